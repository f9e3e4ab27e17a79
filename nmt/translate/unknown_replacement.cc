#include "nmt/translate/unknown_replacement.h"

#include <ATen/ATen.h>

namespace nmt {

bool replace_unknown_pieces(const std::vector<int>& tokens, const at::Tensor& attention, const std::vector<int>& source,
                            const Tokenizer& source_tokenizer, std::vector<std::string>& pieces) {
  if (source.empty()) return false;
  bool replaced = false;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] != SpecialIds::kUnk) continue;
    const at::Tensor row = attention[static_cast<std::int64_t>(t)].slice(0, 0, static_cast<std::int64_t>(source.size()));
    const auto j = static_cast<std::size_t>(row.argmax().item<std::int64_t>());
    if (source[j] == SpecialIds::kUnk) continue;  // nothing better to copy than <unk> itself
    pieces[t] = source_tokenizer.id_to_piece(source[j]);
    replaced = true;
  }
  return replaced;
}

}  // namespace nmt
