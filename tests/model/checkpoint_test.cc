#include "nmt/model/checkpoint.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>
#include <zlib.h>

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <sstream>
#include <filesystem>
#include <optional>
#include <random>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"
#include "nmt/core/verified_archive.h"
#include "nmt/core/version.h"
#include "nmt/data/tokenizer_training.h"
#include "nmt/model/scripted_model.h"
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
  // full: separate embeddings, linear bridge; lean: shared + tied, zero bridge; none: no attention.
  for (const std::string kind : {"full", "lean", "none"}) {
    const bool lean = kind == "lean";
    ModelConfig config = config_for(200, 300, lean ? AttentionType::concat : AttentionType::bahdanau,
                                    lean ? DecoderStyle::luong : DecoderStyle::bahdanau);
    if (lean) {
      config.target_vocab_size = 200;
      config.share_embeddings = config.tie_output_embedding = true;
      config.bridge = BridgeType::zero;
    }
    if (kind == "none") config.attention = AttentionType::none;
    at::manual_seed(lean ? 1 : 2);
    Seq2Seq model(config);
    model->eval();
    const Tokenizer& target = test::toy_tokenizer(static_cast<int>(config.target_vocab_size));
    const std::string path = dir.path(kind + ".pt");
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
    EXPECT_TRUE(at::equal(before.logits, after.logits)) << kind;
    EXPECT_EQ(after.attention.defined(), kind != "none");
    if (kind != "none") {
      EXPECT_TRUE(at::equal(before.attention, after.attention));
    }
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir.root())) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"full.pt", "lean.pt", "none.pt"})) << "no temporary files left";
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

// Writes the documented layout of format 2 (parameters and metadata, no methods) by hand, with one
// thing changed, to produce broken checkpoints.
struct Variant {
  std::optional<std::int64_t> format_version = 2;
  std::string config_json;                 // empty: the model's own
  bool write_target_tokenizer = true;
  int source_tokenizer_size = 200;
  std::string source_spm_bytes;            // non-empty: these bytes instead of a real model
  std::function<void(std::map<std::string, at::Tensor>&)> edit_parameters;
  bool digests = true;                     // the "digests" entry format 2 requires
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
  if (v.digests) {
    write_file_atomic(path, serialize_with_digests(archive));
  } else {
    archive.save_to(path);
  }
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
    EXPECT_THROW_WITH(load_checkpoint(dir_.path("truncated.pt")), DataError, "truncated.pt", "is damaged");
  }
  EXPECT_THROW_WITH(load_checkpoint(test::data_path("toy.es")), DataError, "toy.es", "not a zip file");
  // A TorchScript archive of something else entirely.
  torch::serialize::OutputArchive other;
  other.write("weights", at::ones({3}));
  other.save_to(dir_.path("other.pt"));
  EXPECT_THROW_WITH(load_checkpoint(dir_.path("other.pt")), DataError, "other.pt", "not an nmt checkpoint");
}

TEST_F(BrokenCheckpoint, FormatVersion) {
  Variant v;
  v.format_version = 4;
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "format version 4", "reads versions 1 to 3");
  // Format 3's table covers the methods' code: a file that says 3 without code checksums is damaged.
  v.format_version = 3;
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "variant.pt is damaged", "entry 'code/", "has no checksum");
  v.format_version.reset();
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "no format_version");
  // Version 1 (nmt 0.1) had no checksums: such files still load; a version 2 file must have them.
  v.format_version = 1;
  v.digests = false;
  EXPECT_NO_THROW(load_checkpoint(write(v)));
  v.format_version = 2;
  EXPECT_THROW_WITH(load_checkpoint(write(v)), DataError, "variant.pt is damaged", "checksums is missing");
}

// Where `needle` lies in `haystack` (exactly once).
std::size_t find_once(const std::string& haystack, const std::string& needle) {
  const std::size_t at = haystack.find(needle);
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(haystack.find(needle, at + 1), std::string::npos);
  return at;
}

// The data offset and size of the zip entry whose name ends with `suffix`, from the central
// directory (PyTorch's local headers leave the sizes to a data descriptor).
std::pair<std::size_t, std::size_t> zip_entry(const std::string& zip, const std::string& suffix) {
  const auto u16 = [&](std::size_t at) {
    return std::size_t{static_cast<unsigned char>(zip[at])} | std::size_t{static_cast<unsigned char>(zip[at + 1])} << 8;
  };
  const auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
  for (std::size_t at = zip.find("PK\x01\x02"); at != std::string::npos; at = zip.find("PK\x01\x02", at + 4)) {
    const std::string name = zip.substr(at + 46, u16(at + 28));
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::size_t local = u32(at + 42);
    return {local + 30 + u16(local + 26) + u16(local + 28), u32(at + 20)};
  }
  ADD_FAILURE() << "no zip entry " << suffix;
  return {0, 0};
}

// Sets every stored entry's CRC-32 (central directory and local header) to match its data.
void recompute_zip_crcs(std::string& zip) {
  const auto u16 = [&](std::size_t at) {
    return std::size_t{static_cast<unsigned char>(zip[at])} | std::size_t{static_cast<unsigned char>(zip[at + 1])} << 8;
  };
  const auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
  const auto put32 = [&](std::size_t at, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) zip[at + static_cast<std::size_t>(i)] = static_cast<char>(value >> (8 * i));
  };
  for (std::size_t at = zip.find("PK\x01\x02"); at != std::string::npos; at = zip.find("PK\x01\x02", at + 4)) {
    const std::size_t local = u32(at + 42);
    const std::size_t data = local + 30 + u16(local + 26) + u16(local + 28);
    const auto crc = static_cast<std::uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(zip.data() + data), static_cast<uInt>(u32(at + 20))));
    put32(at + 16, crc);
    put32(local + 14, crc);
  }
}

// The archive `zip` rewritten record by record with `from` replaced by `to` (once) in record `name`.
std::string edit_record(const std::string& zip, const std::string& name, const std::string& from, const std::string& to) {
  std::istringstream in(zip);
  caffe2::serialize::PyTorchStreamReader reader(&in);
  std::string out;
  caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, std::size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  bool edited = false;
  for (const std::string& record : reader.getAllRecords()) {
    if (record == "version" || record == ".data/version") continue;  // the writer adds its own
    const auto [data, size] = reader.getRecord(record);
    std::string bytes(static_cast<const char*>(data.get()), size);
    if (record == name && bytes.find(from) != std::string::npos) {
      bytes.replace(bytes.find(from), from.size(), to);
      edited = true;
    }
    writer.writeRecord(record, bytes.data(), bytes.size());
  }
  writer.writeEndOfFile();
  EXPECT_TRUE(edited) << name << " has no '" << from << "'";
  return out;
}

std::string tensor_bytes(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), static_cast<std::size_t>(c.numel()) * c.element_size());
}

// LibTorch does not check zip CRCs: one flipped byte once loaded silently and changed scores (10 of
// 40 random flips), a flip in the embedded SentencePiece model too, and a flip in the pickle gave
// a 3-line parser error without the file name.
TEST_F(BrokenCheckpoint, FlippedBytesNeverLoadSilently) {
  const std::string good_path = dir_.path("good.pt");
  save_checkpoint(good_path, model_, test::toy_tokenizer(200), test::toy_tokenizer(300), "cfg");
  const std::string good = read_file(good_path);
  const Checkpoint reference = load_checkpoint(good_path);
  const std::string flipped_path = dir_.path("flipped.pt");
  // recompute_crc: the zip's CRC-32s are made to match again, as a crafted file would, so that
  // the check behind them (the SHA-256 digests) is the one that must catch the flip.
  const auto flip_at = [&](std::size_t position, unsigned char mask, bool recompute_crc = false) {
    std::string bytes = good;
    bytes[position] = static_cast<char>(static_cast<unsigned char>(bytes[position]) ^ mask);
    if (recompute_crc) recompute_zip_crcs(bytes);
    write_file_atomic(flipped_path, bytes);
  };
  const auto expect_one_line_error = [&](const std::string& where, const std::string& part) {
    try {
      load_checkpoint(flipped_path);
      ADD_FAILURE() << "a flip in " << where << " loaded";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("flipped.pt"), std::string::npos) << message;
      EXPECT_NE(message.find(part), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    }
  };
  // A parameter's bytes, the embedded subword model, the config string: the zip's CRC-32 catches
  // each flip first; with the CRCs recomputed (a crafted file), the SHA-256 digests do.
  const std::size_t bias = find_once(good, tensor_bytes(reference.model->named_parameters()["output.bias"])) + 5;
  flip_at(bias, 0x01);
  expect_one_line_error("a parameter", "does not match its CRC-32");
  flip_at(bias, 0x01, /*recompute_crc=*/true);
  expect_one_line_error("a parameter", "entry 'model.output.bias' does not match its SHA-256 checksum");
  const std::string spm = test::toy_tokenizer(200).model_bytes();
  flip_at(find_once(good, spm) + spm.size() / 2, 0x10, true);
  expect_one_line_error("the source subword model", "'source_spm'");
  flip_at(find_once(good, "\"attention\":\"general\"") + 14, 0x20, true);  // general -> General
  expect_one_line_error("the model config", "model_config");
  // The methods' code (format 3), compressed in the zip: a literal changed so that the code still
  // compiles ("+ 10" in the length limit becomes "+ 11") and the archive rewritten around it with
  // matching CRCs: the code records' digests catch it, for both engines.
  write_file_atomic(flipped_path, edit_record(good, "code/__torch__/nmt/checkpoint.py", "torch.sub(m, 1)), 10)",
                                              "torch.sub(m, 1)), 11)"));
  expect_one_line_error("the methods' code", "entry 'code/__torch__/nmt/checkpoint.py' does not match its SHA-256");
  try {
    load_scripted_model(flipped_path, c10::Device(c10::kCPU));
    ADD_FAILURE() << "the script engine loaded changed code";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("'code/__torch__/nmt/checkpoint.py' does not match its SHA-256"),
              std::string::npos) << e.what();
  }
  // The pickle that describes the archive (the zip entry .../data.pkl, stored uncompressed).
  const auto [pickle, pickle_size] = zip_entry(good, "/data.pkl");
  ASSERT_GT(pickle_size, 100u);
  for (std::size_t offset = 0; offset < pickle_size; offset += pickle_size / 9) {
    flip_at(pickle + offset, 0xff);
    expect_one_line_error("the pickle", "flipped.pt");
  }

  // Random single-byte flips anywhere: each one is refused with the file's name, or (in zip
  // metadata that no reader uses) loads exactly what was saved.
  std::mt19937 random(13);
  int refused = 0;
  constexpr int kFlips = 60;
  for (int i = 0; i < kFlips; ++i) {
    const std::size_t position = std::uniform_int_distribution<std::size_t>(0, good.size() - 1)(random);
    flip_at(position, static_cast<unsigned char>(1u << std::uniform_int_distribution<int>(0, 7)(random)));
    try {
      const Checkpoint loaded = load_checkpoint(flipped_path);
      auto expected = reference.model->named_parameters();
      for (const auto& p : loaded.model->named_parameters()) {
        EXPECT_TRUE(at::equal(p.value(), expected[p.key()])) << "flip at " << position << " changed " << p.key();
      }
      EXPECT_EQ(loaded.source_tokenizer.model_bytes(), reference.source_tokenizer.model_bytes()) << position;
      EXPECT_EQ(loaded.target_tokenizer.model_bytes(), reference.target_tokenizer.model_bytes()) << position;
      EXPECT_EQ(loaded.training_config, "cfg") << position;
    } catch (const Error& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("flipped.pt"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(refused, kFlips / 2) << "most of the file is content";
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

namespace nmt {
namespace {

// A scripted model written in C++ for the contract's refusals: identity-like methods over a
// vocabulary of 200 pieces; `edit` changes one thing.
std::string write_scripted(const test::TempDir& dir, const std::string& name,
                           const std::function<void(torch::jit::Module&, std::string&)>& edit = nullptr) {
  torch::jit::Module module(c10::QualifiedName("__torch__.Foreign"));
  std::string source =
      "def encode(self, src: Tensor, src_lengths: Tensor) -> List[Tensor]:\n"
      "    return [src.float()]\n"
      "def step(self, state: List[Tensor], previous: Tensor) -> Tuple[Tensor, Tensor, List[Tensor]]:\n"
      "    scores = torch.zeros([previous.size(0), self.target_vocab_size])\n"
      "    return torch.log_softmax(scores, 1), state[0], state\n";
  const auto bytes = [](const std::string& b) {
    at::Tensor t = at::empty({static_cast<std::int64_t>(b.size())}, at::kByte);
    std::memcpy(t.data_ptr(), b.data(), b.size());
    return t;
  };
  module.register_buffer("source_spm", bytes(test::toy_tokenizer(200).model_bytes()));
  module.register_buffer("target_spm", bytes(test::toy_tokenizer(200).model_bytes()));
  for (const auto& [key, value] : std::vector<std::pair<const char*, std::int64_t>>{
           {"source_vocab_size", 200}, {"target_vocab_size", 200}, {"pad_id", 0}, {"unk_id", 1}, {"bos_id", 2},
           {"eos_id", 3}}) {
    module.register_attribute(key, c10::IntType::get(), value);
  }
  if (edit) edit(module, source);
  module.define(source);
  const std::string path = dir.path(name);
  module.save(path);
  return path;
}

TEST(ScriptedModelContract, RefusalsNameTheFileAndWhatIsWrong) {
  test::TempDir dir;
  const c10::Device cpu(c10::kCPU);
  const ScriptedModel good = load_scripted_model(write_scripted(dir, "good.pt"), cpu);
  EXPECT_EQ(good.decoder->target_vocab_size(), 200);
  EXPECT_TRUE(good.decoder->has_attention());
  const at::Tensor source = at::full({2, 5}, 7, at::kLong);
  const auto state = good.decoder->encode(source, at::full({2}, 5, at::kLong));
  const StepOutput out = good.decoder->step(*state, at::full({2}, SpecialIds::kBos, at::kLong));
  EXPECT_EQ(out.log_probs.sizes(), (at::IntArrayRef{2, 200}));
  EXPECT_EQ(out.state->select(at::tensor({1, 1, 0}))->batch_size(), 3);

  EXPECT_THROW_WITH(load_scripted_model(write_scripted(dir, "no-step.pt", [](torch::jit::Module&, std::string& s) {
                      s = s.substr(0, s.find("def step"));
                    }), cpu), DataError, "no-step.pt has no method 'step'");
  EXPECT_THROW_WITH(load_scripted_model(write_scripted(dir, "eos.pt", [](torch::jit::Module& m, std::string&) {
                      m.setattr("eos_id", 5);
                    }), cpu), DataError, "eos.pt: eos_id is 5, nmt's is 3");
  EXPECT_THROW_WITH(load_scripted_model(write_scripted(dir, "vocab.pt", [](torch::jit::Module& m, std::string&) {
                      m.setattr("target_vocab_size", 300);
                    }), cpu), DataError, "vocab.pt: vocabulary sizes 200 and 300", "200 and 200 pieces");
  const std::string no_attention = write_scripted(dir, "plain.pt", [](torch::jit::Module& m, std::string&) {
    m.register_attribute("has_attention", c10::IntType::get(), 0);
  });
  EXPECT_FALSE(load_scripted_model(no_attention, cpu).decoder->has_attention());
  // A step that returns the wrong shape is named at the step, not later.
  const ScriptedModel wrong = load_scripted_model(
      write_scripted(dir, "shape.pt", [](torch::jit::Module&, std::string& s) {
        s.replace(s.find("self.target_vocab_size])"), 24, "7])");
      }), cpu);
  const auto wrong_state = wrong.decoder->encode(source, at::full({2}, 5, at::kLong));
  EXPECT_THROW_WITH(wrong.decoder->step(*wrong_state, at::full({2}, SpecialIds::kBos, at::kLong)), DataError,
                    "shape.pt: step returned log-probabilities of shape [2, 7]", "expected float [2, 200]");
  // An nmt checkpoint of format 2 has no methods: the message says how to add them.
  Seq2Seq model(config_for(200, 300, AttentionType::general, DecoderStyle::luong));
  Variant format2;
  write_variant(dir.path("old.pt"), model, format2);
  EXPECT_THROW_WITH(load_scripted_model(dir.path("old.pt"), cpu), DataError, "old.pt has format version 2",
                    "nmt-checkpoint upgrade");
  EXPECT_THROW_WITH(load_scripted_model(dir.path("absent.pt"), cpu), IoError, "absent.pt");
}

TEST(CheckpointUpgrade, AddsTheMethodsAndKeepsEverythingElse) {
  test::TempDir dir;
  Seq2Seq model(config_for(200, 300, AttentionType::general, DecoderStyle::luong));
  write_variant(dir.path("old.pt"), model, Variant{});  // format 2, as nmt 0.1 wrote with digests
  upgrade_checkpoint(dir.path("old.pt"), dir.path("new.pt"));
  const Checkpoint before = load_checkpoint(dir.path("old.pt")), after = load_checkpoint(dir.path("new.pt"));
  auto expected = before.model->named_parameters();
  for (const auto& p : after.model->named_parameters()) EXPECT_TRUE(at::equal(p.value(), expected[p.key()])) << p.key();
  EXPECT_EQ(after.source_tokenizer.model_bytes(), before.source_tokenizer.model_bytes());
  EXPECT_EQ(load_scripted_model(dir.path("new.pt"), c10::Device(c10::kCPU)).decoder->target_vocab_size(), 300);
  const std::string upgraded = read_file(dir.path("new.pt"));
  EXPECT_THROW_WITH(upgrade_checkpoint(dir.path("old.pt"), dir.path("new.pt")), IoError, "new.pt: it exists");
  EXPECT_EQ(read_file(dir.path("new.pt")), upgraded) << "a refused upgrade changed the file";
  upgrade_checkpoint(dir.path("new.pt"), dir.path("new.pt"), /*replace=*/true);  // in place: a rename
  EXPECT_NO_THROW(load_checkpoint(dir.path("new.pt")));
  EXPECT_THROW_WITH(upgrade_checkpoint(dir.path("absent.pt"), dir.path("x.pt")), IoError, "absent.pt");
  EXPECT_FALSE(std::filesystem::exists(dir.path("x.pt")));
}

}  // namespace
}  // namespace nmt
