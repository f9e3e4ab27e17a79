#include "nmt/model/scripted_model.h"

#include <torch/csrc/jit/serialization/import.h>

#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/torch_error.h"
#include "nmt/core/verified_archive.h"
#include "nmt/core/zip_check.h"

namespace nmt {
namespace {

std::string shape_text(const at::Tensor& t) {
  std::string text = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d) text += (d ? ", " : "") + std::to_string(t.size(d));
  return text + "]";
}

// The state: the tensors encode() and step() return, batch first.
class ScriptedState : public DecoderState {
 public:
  explicit ScriptedState(std::vector<at::Tensor> parts) : parts_(std::move(parts)) {}
  std::int64_t batch_size() const override { return parts_.front().size(0); }
  std::shared_ptr<const DecoderState> select(const at::Tensor& indices) const override {
    std::vector<at::Tensor> selected;
    selected.reserve(parts_.size());
    for (const at::Tensor& part : parts_) selected.push_back(part.index_select(0, indices.to(part.device())));
    return std::make_shared<ScriptedState>(std::move(selected));
  }
  const std::vector<at::Tensor>& parts() const { return parts_; }

 private:
  std::vector<at::Tensor> parts_;
};

}  // namespace

ScriptedDecoder::ScriptedDecoder(torch::jit::Module module, std::string name, std::int64_t target_vocab_size,
                                 bool has_attention)
    : module_(std::move(module)), name_(std::move(name)), target_vocab_size_(target_vocab_size),
      has_attention_(has_attention) {}

namespace {

std::vector<at::Tensor> state_parts(const c10::IValue& value, std::int64_t batch, const std::string& name,
                                    const char* method) {
  if (!value.isTensorList()) throw DataError("scripted model " + name + ": " + method + " must return a list of tensors");
  std::vector<at::Tensor> parts = value.toTensorList().vec();
  if (parts.empty()) throw DataError("scripted model " + name + ": " + method + " returned an empty state");
  for (const at::Tensor& part : parts) {
    if (part.dim() == 0 || part.size(0) != batch) {
      throw DataError("scripted model " + name + ": " + method + " returned a state tensor of shape " +
                      shape_text(part) + ", expected the batch (" + std::to_string(batch) + ") first");
    }
  }
  return parts;
}

}  // namespace

DecoderStatePtr ScriptedDecoder::encode(const at::Tensor& source, const at::Tensor& source_lengths) const {
  const c10::IValue out = module_.run_method("encode", source, source_lengths);
  return std::make_shared<ScriptedState>(state_parts(out, source.size(0), name_, "encode"));
}

StepOutput ScriptedDecoder::step(const DecoderState& state, const at::Tensor& previous_tokens) const {
  const auto& parts = static_cast<const ScriptedState&>(state).parts();
  const c10::IValue out = module_.run_method("step", c10::List<at::Tensor>(parts), previous_tokens);
  const std::int64_t batch = previous_tokens.size(0);
  if (!out.isTuple() || out.toTupleRef().elements().size() != 3) {
    throw DataError("scripted model " + name_ + ": step must return (log_probs, attention, state)");
  }
  const auto& elements = out.toTupleRef().elements();
  StepOutput result;
  result.log_probs = elements[0].toTensor();
  if (result.log_probs.dim() != 2 || result.log_probs.size(0) != batch || result.log_probs.size(1) != target_vocab_size_ ||
      result.log_probs.scalar_type() != at::kFloat) {
    throw DataError("scripted model " + name_ + ": step returned log-probabilities of shape " +
                    shape_text(result.log_probs) + " (" + c10::toString(result.log_probs.scalar_type()) +
                    "), expected float [" + std::to_string(batch) + ", " + std::to_string(target_vocab_size_) + "]");
  }
  if (has_attention_) {
    result.attention = elements[1].toTensor();
    if (result.attention.dim() != 2 || result.attention.size(0) != batch) {
      throw DataError("scripted model " + name_ + ": step returned attention of shape " + shape_text(result.attention) +
                      ", expected [" + std::to_string(batch) + ", source length]");
    }
  }
  result.state = std::make_shared<ScriptedState>(state_parts(elements[2], batch, name_, "step"));
  return result;
}

namespace {

std::int64_t integer_attribute(const torch::jit::Module& module, const char* name, const std::string& path,
                               std::optional<std::int64_t> fallback = std::nullopt) {
  if (!module.hasattr(name)) {
    if (fallback) return *fallback;
    throw DataError("scripted model " + path + " has no attribute '" + name + "' (docs/checkpoints.md, the contract)");
  }
  const c10::IValue value = module.attr(name);
  if (!value.isInt()) throw DataError("scripted model " + path + ": attribute '" + name + "' is not an int");
  return value.toInt();
}

Tokenizer tokenizer_attribute(const torch::jit::Module& module, const char* name, const std::string& path) {
  if (!module.hasattr(name) || !module.attr(name).isTensor()) {
    throw DataError("scripted model " + path + " has no tensor attribute '" + name + "' (a SentencePiece model's bytes)");
  }
  const at::Tensor bytes = module.attr(name).toTensor().to(at::kCPU).contiguous();
  if (bytes.scalar_type() != at::kByte || bytes.dim() != 1) {
    throw DataError("scripted model " + path + ": '" + name + "' is not a uint8 vector");
  }
  try {
    return Tokenizer::from_bytes(std::string(static_cast<const char*>(bytes.data_ptr()), static_cast<std::size_t>(bytes.numel())),
                                 path + ":" + name);
  } catch (const DataError&) {
    throw DataError("scripted model " + path + ": '" + name + "' is not a SentencePiece model with the toolkit's special ids");
  }
}

}  // namespace

ScriptedModel load_scripted_model(const std::string& path, const c10::Device& device) {
  const std::string bytes = read_archive_file(path, "scripted model");
  check_zip(bytes, "scripted model", path);  // LibTorch's parser crashes on some damaged code entries
  torch::jit::Module module;
  try {
    std::istringstream in(bytes);
    module = torch::jit::load(in, device);
  } catch (const std::exception& e) {
    throw DataError("scripted model " + path + " is not a readable TorchScript archive (damaged, truncated or another " +
                    "format): " + first_line(e));
  }
  if (module.hasattr("format_version") && module.hasattr(kDigestsEntry)) {  // an nmt checkpoint: check it as one
    const std::int64_t format = integer_attribute(module, "format_version", path);
    if (format < 3) {
      throw DataError("checkpoint " + path + " has format version " + std::to_string(format) +
                      ", which has no methods: use --engine native, or add them with nmt-checkpoint upgrade " + path +
                      " NEW.pt");
    }
    if (!verify_module_digests(module, bytes, path, "checkpoint", /*with_code=*/true)) {
      throw DataError("checkpoint " + path + " is damaged: its table of checksums is missing");
    }
  }
  module.eval();
  for (const char* method : {"encode", "step"}) {
    if (!module.find_method(method)) {
      throw DataError("scripted model " + path + " has no method '" + method + "' (docs/checkpoints.md, the contract)");
    }
  }
  const std::pair<const char*, int> special[] = {{"pad_id", SpecialIds::kPad}, {"unk_id", SpecialIds::kUnk},
                                                 {"bos_id", SpecialIds::kBos}, {"eos_id", SpecialIds::kEos}};
  for (const auto& [name, expected] : special) {
    const std::int64_t id = integer_attribute(module, name, path);
    if (id != expected) {
      throw DataError("scripted model " + path + ": " + name + " is " + std::to_string(id) + ", nmt's is " +
                      std::to_string(expected));
    }
  }
  Tokenizer source_tokenizer = tokenizer_attribute(module, "source_spm", path);
  Tokenizer target_tokenizer = tokenizer_attribute(module, "target_spm", path);
  const std::int64_t source_vocab = integer_attribute(module, "source_vocab_size", path);
  const std::int64_t target_vocab = integer_attribute(module, "target_vocab_size", path);
  if (source_vocab != source_tokenizer.vocab_size() || target_vocab != target_tokenizer.vocab_size()) {
    throw DataError("scripted model " + path + ": vocabulary sizes " + std::to_string(source_vocab) + " and " +
                    std::to_string(target_vocab) + ", its SentencePiece models have " +
                    std::to_string(source_tokenizer.vocab_size()) + " and " +
                    std::to_string(target_tokenizer.vocab_size()) + " pieces");
  }
  const bool has_attention = integer_attribute(module, "has_attention", path, 1) != 0;
  return {std::make_unique<ScriptedDecoder>(std::move(module), path, target_vocab, has_attention),
          std::move(source_tokenizer), std::move(target_tokenizer)};
}

}  // namespace nmt
