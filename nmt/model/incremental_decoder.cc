#include "nmt/model/incremental_decoder.h"

#include "nmt/core/error.h"

namespace nmt {

std::shared_ptr<const IncrementalDecoder> IncrementalDecoder::bind_extra_sources(ExtraSources) const {
  throw Error("bind_extra_sources: this model reads no further segmentation of the source (a bug of the caller)");
}

}  // namespace nmt
