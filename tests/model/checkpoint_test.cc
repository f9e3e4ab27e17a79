#include "nmt/model/checkpoint.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>

#include <cstring>
#include <filesystem>
#include <optional>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/version.h"
#include "nmt/data/tokenizer_training.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {
namespace fs = std::filesystem;

ModelConfig config_for(int source_vocab, int target_vocab, AttentionType attention, DecoderStyle style) {
  ModelConfig config = test::tiny_config(attention, style, 2);
  config.source_vocab_size = source_vocab;
  config.target_vocab_size = target_vocab;
  return config;
}

TEST(Checkpoint, SaveLoadGivesIdenticalOutputs) {
  test::TempDir dir;
  for (const bool lean : {false, true}) {
    ModelConfig config = config_for(200, 300, lean ? AttentionType::concat : AttentionType::bahdanau,
                                    lean ? DecoderStyle::luong : DecoderStyle::bahdanau);
    if (lean) {
      config.target_vocab_size = 200;
      config.share_embeddings = config.tie_output_embedding = true;
      config.bridge = BridgeType::zero;
    }
    at::manual_seed(lean ? 1 : 2);
    Seq2Seq model(config);
    model->eval();
    const Tokenizer& target = test::toy_tokenizer(static_cast<int>(config.target_vocab_size));
    const std::string path = dir.path(lean ? "lean.pt" : "full.pt");
    save_checkpoint(path, model, test::toy_tokenizer(200), target, "train.max_steps = 10\n");

    Checkpoint loaded = load_checkpoint(path);
    EXPECT_EQ(loaded.model->config(), config);
    EXPECT_EQ(loaded.training_config, "train.max_steps = 10\n");
    EXPECT_EQ(loaded.toolkit_version, version());
    EXPECT_EQ(loaded.source_tokenizer.model_bytes(), test::toy_tokenizer(200).model_bytes());
    EXPECT_EQ(loaded.target_tokenizer.model_bytes(), target.model_bytes());
    EXPECT_FALSE(loaded.model->is_training());
    const Batch batch = test::varied_batch(config);
    const auto before = model->forward(batch.source, batch.source_lengths, batch.target_in);
    const auto after = loaded.model->forward(batch.source, batch.source_lengths, batch.target_in);
    EXPECT_TRUE(at::equal(before.logits, after.logits));
    EXPECT_TRUE(at::equal(before.attention, after.attention));
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir.root())) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"full.pt", "lean.pt"})) << "no temporary files left";
}

TEST(Checkpoint, SaveRejectsMismatchedTokenizersAndUnwritablePaths) {
  test::TempDir dir;
  Seq2Seq model(config_for(200, 300, AttentionType::dot, DecoderStyle::luong));
  EXPECT_THROW_WITH(save_checkpoint(dir.path("x.pt"), model, test::toy_tokenizer(200), test::toy_tokenizer(200)),
                    ConfigError, "x.pt", "200 and 200 pieces", "200 and 300");
  EXPECT_THROW_WITH(save_checkpoint(dir.root().string(), model, test::toy_tokenizer(200), test::toy_tokenizer(300)),
                    IoError, "is a directory");
  EXPECT_FALSE(fs::exists(dir.path("x.pt")));
}

// Writes the documented layout by hand, with one thing changed, to produce broken checkpoints.
struct Variant {
  std::optional<std::int64_t> format_version = kCheckpointFormatVersion;
  std::string config_json;                 // empty: the model's own
  bool write_target_tokenizer = true;
  int source_tokenizer_size = 200;
  std::string source_spm_bytes;            // non-empty: these bytes instead of a real model
  std::function<void(std::map<std::string, at::Tensor>&)> edit_parameters;
};

void write_variant(const std::string& path, Seq2Seq& model, const Variant& v) {
  torch::serialize::OutputArchive archive;
  if (v.format_version) archive.write("format_version", c10::IValue(*v.format_version));
  archive.write("toolkit_version", c10::IValue(std::string("test")));
  archive.write("model_config", c10::IValue(v.config_json.empty() ? model->config().to_json() : v.config_json));
  archive.write("training_config", c10::IValue(std::string()));
  const auto bytes = [](const std::string& b) {
    at::Tensor t = at::empty({static_cast<std::int64_t>(b.size())}, at::kByte);
    std::memcpy(t.data_ptr(), b.data(), b.size());
    return t;
  };
  archive.write("source_spm",
                bytes(v.source_spm_bytes.empty() ? test::toy_tokenizer(v.source_tokenizer_size).model_bytes()
                                                 : v.source_spm_bytes),
                true);
  if (v.write_target_tokenizer) archive.write("target_spm", bytes(test::toy_tokenizer(300).model_bytes()), true);
  std::map<std::string, at::Tensor> parameters;
  for (const auto& p : model->named_parameters()) parameters[p.key()] = p.value().detach();
  if (v.edit_parameters) v.edit_parameters(parameters);
  // Nested archives, one level per module path component.
  std::function<void(torch::serialize::OutputArchive&, const std::string&)> write_level;
  write_level = [&](torch::serialize::OutputArchive& out, const std::string& prefix) {
    std::set<std::string> children;
    for (const auto& [name, tensor] : parameters) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string rest = name.substr(prefix.size());
      const auto dot = rest.find('.');
      if (dot == std::string::npos) {
        out.write(rest, tensor);
      } else {
        children.insert(rest.substr(0, dot));
      }
    }
    for (const auto& child : children) {
      torch::serialize::OutputArchive child_archive;
      write_level(child_archive, prefix + child + ".");
      out.write(child, child_archive);
    }
  };
  torch::serialize::OutputArchive model_archive;
  write_level(model_archive, "");
  archive.write("model", model_archive);
  archive.save_to(path);
}

class BrokenCheckpoint : public ::testing::Test {
 protected:
  BrokenCheckpoint() : model_(config_for(200, 300, AttentionType::general, DecoderStyle::luong)) {}
  std::string write(const Variant& variant) {
    const std::string path = dir_.path("variant.pt");
    write_variant(path, model_, variant);
    return path;
  }
  test::TempDir dir_;
  Seq2Seq model_;
};

TEST_F(BrokenCheckpoint, HandWrittenLayoutLoads) {
  // The variants below differ from this one in one thing each.
  EXPECT_NO_THROW(load_checkpoint(write({})));
}

TEST_F(BrokenCheckpoint, MissingFile) {
  EXPECT_THROW_WITH(load_checkpoint(dir_.path("absent.pt")), IoError, "absent.pt", "No such file");
  EXPECT_THROW_WITH(load_checkpoint(dir_.root().string()), IoError, "not a regular file");
}

TEST_F(BrokenCheckpoint, TruncatedOrForeignFiles) {
  const std::string good = write({});
  const std::string bytes = read_file(good);
  for (const std::size_t keep : {std::size_t{0}, std::size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    write_file_atomic(dir_.path("truncated.pt"), bytes.substr(0, keep));
    EXPECT_THROW_WITH(load_checkpoint(dir_.path("truncated.pt")), DataError, "truncated.pt",
                      "not a readable TorchScript archive");
  }
  EXPECT_THROW_WITH(load_checkpoint(test::data_path("toy.es")), DataError, "toy.es", "not a readable TorchScript");
  // A TorchScript archive of something else entirely.
  torch::serialize::OutputArchive other;
  other.write("weights", at::ones({3}));
  other.save_to(dir_.path("other.pt"));
  EXPECT_THROW_WITH(load_checkpoint(dir_.path("other.pt")), DataError, "other.pt", "not an nmt checkpoint");
}

TEST_F(BrokenCheckpoint, FormatVersion) {
  Variant v;
  v.format_version = 2;
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "format version 2", "reads version 1");
  v.format_version.reset();
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "no format_version");
}

TEST_F(BrokenCheckpoint, BadConfig) {
  Variant v;
  v.config_json = "{\"embedding_size\": ";
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "variant.pt", "model config");
  std::string json = model_->config().to_json();
  json.replace(json.find("\"luong\""), 7, "\"transformer\"");
  v.config_json = json;
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "unknown decoder style 'transformer'");
}

TEST_F(BrokenCheckpoint, Tokenizers) {
  Variant missing;
  missing.write_target_tokenizer = false;
  EXPECT_THROW_WITH(load_checkpoint(write(missing)), DataError, "no 'target_spm' entry");
  Variant garbage;
  garbage.source_spm_bytes = "definitely not a protobuf";
  EXPECT_THROW_WITH(load_checkpoint(write(garbage)), DataError, "variant.pt", "'source_spm' is not a SentencePiece model");
  Variant wrong_size;
  wrong_size.source_tokenizer_size = 300;
  EXPECT_THROW_WITH(load_checkpoint(write(wrong_size)), DataError, "source tokenizer has 300 pieces",
                    "vocabulary 200");
}

TEST_F(BrokenCheckpoint, MissingUnexpectedAndMisshapenParameters) {
  Variant v;
  v.edit_parameters = [](std::map<std::string, at::Tensor>& p) {
    p.erase("decoder.bridge.weight");
    p["decoder.extra.weight"] = at::zeros({2});
    p["decoder.rnn.weight_hh_l1"] = at::zeros({60, 19});
    p["output.bias"] = p["output.bias"].to(at::kDouble);
  };
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "does not match its model config",
                    "missing decoder.bridge.weight", "unexpected decoder.extra.weight",
                    "decoder.rnn.weight_hh_l1 has shape [60, 19], expected [60, 20]",
                    "output.bias is Double, expected Float");
}

}  // namespace
}  // namespace nmt
