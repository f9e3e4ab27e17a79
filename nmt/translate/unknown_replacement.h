// <unk> replacement: an unknown target piece becomes the source piece it attended to most.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "nmt/data/tokenizer.h"

namespace nmt {

/// For each t with tokens[t] == <unk>: pieces[t] = the source piece with the largest attention
/// attention[t, j] over the source's subwords (EOS excluded), unless that is <unk> itself.
/// attention [steps, >= source.size()] on the CPU. Returns whether any piece was replaced.
bool replace_unknown_pieces(const std::vector<int>& tokens, const at::Tensor& attention, const std::vector<int>& source,
                            const Tokenizer& source_tokenizer, std::vector<std::string>& pieces);

}  // namespace nmt
