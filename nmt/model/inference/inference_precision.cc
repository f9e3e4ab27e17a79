#include "nmt/model/inference/inference_precision.h"

#include <sstream>

#include "nmt/core/decimal_number.h"
#include "nmt/core/error.h"

namespace nmt {

InferencePrecision InferencePrecision::of(Precision precision) {
  InferencePrecision p;
  if (precision == Precision::int8) p.output = p.decoder = p.attention = p.encoder = p.memory = true;
  return p;
}

InferencePrecision InferencePrecision::parse(const std::string& groups, const std::string& option) {
  InferencePrecision p;
  std::stringstream words(groups);
  std::string word;
  while (std::getline(words, word, ',')) {
    if (word == "output") {
      p.output = true;
    } else if (word == "decoder") {
      p.decoder = true;
    } else if (word == "attention") {
      p.attention = true;
    } else if (word == "encoder") {
      p.encoder = true;
    } else if (word == "memory") {
      p.memory = true;
    } else if (word == "all") {
      p.output = p.decoder = p.attention = p.encoder = p.memory = true;
    } else if (word != "none" && !word.empty()) {
      throw ConfigError(option + ": " + quoted_excerpt(word) +
                        " is not one of output, decoder, attention, encoder, memory, all, none");
    }
  }
  return p;
}

std::string InferencePrecision::describe() const {
  std::string text;
  const auto add = [&](bool on, const char* name) {
    if (on) text += (text.empty() ? "" : ",") + std::string(name);
  };
  add(output, "output");
  add(decoder, "decoder");
  add(attention, "attention");
  add(encoder, "encoder");
  add(memory, "memory");
  return text.empty() ? "none" : text;
}

}  // namespace nmt
