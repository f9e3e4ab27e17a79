#include "nmt/model/checkpoint.h"

#include <torch/csrc/jit/api/module.h>

#include <cstring>
#include <filesystem>
#include <tuple>
#include <map>
#include <set>
#include <sstream>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/log.h"
#include "nmt/core/verified_archive.h"
#include "nmt/core/version.h"
#include "nmt/model/checkpoint_program.h"

namespace nmt {
namespace {

// Archive keys. Parameters live under the submodule "model" with their module paths
// (model.encoder.rnn.weight_ih_l0, ...).
constexpr const char* kFormatVersion = "format_version";
constexpr const char* kToolkitVersion = "toolkit_version";
constexpr const char* kModelConfig = "model_config";
constexpr const char* kTrainingConfig = "training_config";
constexpr const char* kSourceTokenizer = "source_spm";
constexpr const char* kTargetTokenizer = "target_spm";
constexpr const char* kModel = "model";
// Format 3: what the methods read besides the parameters (docs/checkpoints.md, "Methods").
constexpr const char* kPadId = "pad_id";
constexpr const char* kUnkId = "unk_id";
constexpr const char* kBosId = "bos_id";
constexpr const char* kEosId = "eos_id";
constexpr const char* kSourceVocabSize = "source_vocab_size";
constexpr const char* kTargetVocabSize = "target_vocab_size";
constexpr const char* kHasAttention = "has_attention";

at::Tensor bytes_tensor(const std::string& bytes) {
  at::Tensor tensor = at::empty({static_cast<std::int64_t>(bytes.size())}, at::kByte);
  std::memcpy(tensor.data_ptr(), bytes.data(), bytes.size());
  return tensor;
}

std::string tensor_bytes(const at::Tensor& tensor) {
  const at::Tensor cpu = tensor.to(at::kCPU).contiguous();
  return std::string(static_cast<const char*>(cpu.data_ptr()), static_cast<std::size_t>(cpu.numel()));
}

std::string shape_string(at::IntArrayRef sizes) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
  return out.str() + ']';
}

Tokenizer read_tokenizer(const ArchiveReader& reader, const char* key, const std::string& path) {
  at::Tensor bytes;
  if (!reader.try_tensor(key, bytes)) reader.fail(std::string("no '") + key + "' entry");
  if (bytes.scalar_type() != at::kByte || bytes.dim() != 1) reader.fail(std::string("'") + key + "' is not a uint8 vector");
  try {
    return Tokenizer::from_bytes(tensor_bytes(bytes), path + ":" + key);
  } catch (const DataError&) {
    reader.fail(std::string("'") + key + "' is not a SentencePiece model with the toolkit's special ids");
  }
}

void check_vocab(const Tokenizer& tokenizer, std::int64_t expected, const char* side, const std::string& path) {
  if (tokenizer.vocab_size() != expected) {
    throw DataError("checkpoint " + path + ": " + side + " tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                    " pieces, the model's vocabulary " + std::to_string(expected));
  }
}

// Parameters and buffers as a tree of modules (one per module path), written from CPU copies so that
// a checkpoint saved during GPU training loads anywhere.
struct ParameterTree {
  std::vector<std::tuple<std::string, at::Tensor, bool>> tensors;  // name, value, is_buffer
  std::map<std::string, ParameterTree> children;

  void insert(const std::string& path, const at::Tensor& tensor, bool is_buffer) {
    const auto dot = path.find('.');
    if (dot == std::string::npos) {
      tensors.emplace_back(path, tensor.detach().to(at::kCPU), is_buffer);
    } else {
      children[path.substr(0, dot)].insert(path.substr(dot + 1), tensor, is_buffer);
    }
  }
  // A module of class __torch__.nmt.checkpoint.<path with _> holding this node's tensors and children.
  torch::jit::Module build(const std::shared_ptr<torch::jit::CompilationUnit>& unit, const std::string& path) const {
    torch::jit::Module module(c10::QualifiedName("__torch__.nmt.checkpoint." + path), unit, /*shouldMangle=*/true);
    for (const auto& [name, tensor, is_buffer] : tensors) module.register_parameter(name, tensor, is_buffer);
    for (const auto& [name, child] : children) module.register_module(name, child.build(unit, path + "_" + name));
    return module;
  }
};

constexpr std::int64_t kOldestReadableFormat = 1;

Checkpoint read_checkpoint(const std::string& path, const c10::Device& device, const std::string& bytes);

}  // namespace

void save_checkpoint(const std::string& path, Seq2Seq& model, const Tokenizer& source_tokenizer,
                     const Tokenizer& target_tokenizer, const std::string& training_config) {
  const ModelConfig& config = model->config();
  if (source_tokenizer.vocab_size() != config.source_vocab_size ||
      target_tokenizer.vocab_size() != config.target_vocab_size) {
    throw ConfigError("cannot save " + path + ": tokenizers have " + std::to_string(source_tokenizer.vocab_size()) +
                      " and " + std::to_string(target_tokenizer.vocab_size()) + " pieces, the model " +
                      std::to_string(config.source_vocab_size) + " and " + std::to_string(config.target_vocab_size));
  }
  // The archive is a TorchScript module: attributes, the parameters under "model", and methods
  // (checkpoint_program) compiled over them here, so that a broken program never reaches a file.
  const auto unit = std::make_shared<torch::jit::CompilationUnit>();
  torch::jit::Module archive(c10::QualifiedName("__torch__.nmt.checkpoint.Checkpoint"), unit, /*shouldMangle=*/true);
  const auto integer = [&](const char* key, std::int64_t value) {
    archive.register_attribute(key, c10::IntType::get(), c10::IValue(value));
  };
  const auto text = [&](const char* key, const std::string& value) {
    archive.register_attribute(key, c10::StringType::get(), c10::IValue(value));
  };
  integer(kFormatVersion, kCheckpointFormatVersion);
  text(kToolkitVersion, version());
  text(kModelConfig, config.to_json());
  text(kTrainingConfig, training_config);
  archive.register_buffer(kSourceTokenizer, bytes_tensor(source_tokenizer.model_bytes()));
  archive.register_buffer(kTargetTokenizer, bytes_tensor(target_tokenizer.model_bytes()));
  integer(kPadId, SpecialIds::kPad);
  integer(kUnkId, SpecialIds::kUnk);
  integer(kBosId, SpecialIds::kBos);
  integer(kEosId, SpecialIds::kEos);
  integer(kSourceVocabSize, config.source_vocab_size);
  integer(kTargetVocabSize, config.target_vocab_size);
  integer(kHasAttention, config.has_attention() ? 1 : 0);
  ParameterTree parameters;
  for (const auto& item : model->named_parameters()) parameters.insert(item.key(), item.value(), false);
  for (const auto& item : model->named_buffers()) parameters.insert(item.key(), item.value(), true);
  archive.register_module(kModel, parameters.build(unit, kModel));
  text(kDigestsEntry, "");  // filled in by serialize_with_digests
  try {
    archive.define(checkpoint_program(config));
  } catch (const std::exception& e) {  // a bug of the toolkit's, not the user's: say all TorchScript says
    std::string what = e.what();
    for (char& c : what) c = c == '\n' ? ' ' : c;
    throw Error("cannot save " + path + ": the checkpoint's TorchScript methods do not compile (a bug): " + what);
  }
  write_file_atomic(path, serialize_with_digests(archive));
}

void upgrade_checkpoint(const std::string& input, const std::string& output, bool replace) {
  refuse_existing_output(output, replace);
  Checkpoint checkpoint = load_checkpoint(input);
  save_checkpoint(output, checkpoint.model, checkpoint.source_tokenizer, checkpoint.target_tokenizer,
                  checkpoint.training_config);
}

Checkpoint load_checkpoint(const std::string& path, const c10::Device& device) {
  return load_checkpoint_from_bytes(read_archive_file(path, "checkpoint"), path, device);
}

Checkpoint load_checkpoint_from_bytes(const std::string& bytes, const std::string& path, const c10::Device& device) {
  return read_archive_reporting_damage("checkpoint", path, [&] { return read_checkpoint(path, device, bytes); });
}

namespace {

Checkpoint read_checkpoint(const std::string& path, const c10::Device& device, const std::string& bytes) {
  // The values only: compiling a format 3 file's methods (torch::jit::load) would cost tens of
  // milliseconds that the native engine does not need. Copied into the model, which then moves to
  // `device` once.
  const torch::jit::Module archive = read_archive_values(bytes, path, "checkpoint");
  if (!archive.hasattr(kFormatVersion) || !archive.attr(kFormatVersion).isInt()) {
    throw DataError("checkpoint " + path + " has no format_version: a TorchScript archive, but not an nmt checkpoint");
  }
  const std::int64_t format = archive.attr(kFormatVersion).toInt();
  if (archive.hasattr("position") && archive.attr("position").isString()) {  // what training states hold
    throw DataError("checkpoint " + path + " is a training state (a run's optimizer and data position), not a model: " +
                    "use the .pt file of the same step");
  }
  if (format < kOldestReadableFormat || format > kCheckpointFormatVersion) {
    throw DataError("checkpoint " + path + " has format version " + std::to_string(format) + ", nmt " + version() +
                    " reads versions " + std::to_string(kOldestReadableFormat) + " to " +
                    std::to_string(kCheckpointFormatVersion));
  }
  // Version 2 carries digests of every entry, and they must all match; version 1 had none. Version 3
  // adds the methods' code to the table.
  if (!verify_module_digests(archive, bytes, path, "checkpoint", /*with_code=*/format >= 3)) {
    if (format >= 2) throw DataError("checkpoint " + path + " is damaged: its table of checksums is missing");
    log().warn("checkpoint {} has format version 1, written before checkpoints carried checksums: loaded unverified",
               path);
  }
  const ArchiveReader reader(archive, "checkpoint", path);
  std::string toolkit_version = reader.string(kToolkitVersion);
  std::string training_config = reader.string(kTrainingConfig);
  ModelConfig config;
  try {
    config = ModelConfig::from_json(reader.string(kModelConfig));
  } catch (const DataError& e) {
    reader.fail(e.what());
  }
  Tokenizer source_tokenizer = read_tokenizer(reader, kSourceTokenizer, path);
  Tokenizer target_tokenizer = read_tokenizer(reader, kTargetTokenizer, path);
  check_vocab(source_tokenizer, config.source_vocab_size, "source", path);
  check_vocab(target_tokenizer, config.target_vocab_size, "target", path);
  if (!archive.hasattr(kModel) || !archive.attr(kModel).isModule()) reader.fail("no 'model' entry");
  const std::map<std::string, at::Tensor> stored = list_module_tensors(archive.attr(kModel).toModule());

  Seq2Seq model(config);
  std::vector<std::string> problems;
  std::set<std::string> expected;
  torch::NoGradGuard no_grad;
  const auto fill = [&](const std::string& name, at::Tensor& target) {
    expected.insert(name);
    const auto found = stored.find(name);
    if (found == stored.end()) {
      problems.push_back("missing " + name);
    } else if (found->second.sizes() != target.sizes()) {
      problems.push_back(name + " has shape " + shape_string(found->second.sizes()) + ", expected " +
                         shape_string(target.sizes()));
    } else if (found->second.scalar_type() != target.scalar_type()) {
      problems.push_back(name + " is " + std::string(c10::toString(found->second.scalar_type())) + ", expected " +
                         c10::toString(target.scalar_type()));
    } else {
      target.copy_(found->second);
    }
  };
  for (auto& item : model->named_parameters()) fill(item.key(), item.value());
  for (auto& item : model->named_buffers()) fill(item.key(), item.value());
  for (const auto& item : stored) {
    if (!expected.count(item.first)) problems.push_back("unexpected " + item.first);
  }
  if (!problems.empty()) {
    std::string list;
    for (std::size_t i = 0; i < problems.size() && i < 8; ++i) list += (i ? "; " : "") + problems[i];
    if (problems.size() > 8) list += "; and " + std::to_string(problems.size() - 8) + " more";
    throw DataError("checkpoint " + path + " does not match its model config: " + list);
  }
  model->to(device);
  model->eval();
  return {model, std::move(source_tokenizer), std::move(target_tokenizer), std::move(training_config),
          std::move(toolkit_version)};
}

}  // namespace

}  // namespace nmt
