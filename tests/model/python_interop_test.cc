// Checkpoints load in Python: scripts/reference/nmt_reference.py, a PyTorch re-implementation written
// from docs/model.md, reads a checkpoint with torch.jit.load and must reproduce the C++ model's
// log-probabilities and attention to 1e-5, for every attention type (none included) and decoder style.
// Skips where /usr/bin/python3 or its torch (Debian's python3-torch) is missing.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "nmt/model/checkpoint.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using test::python_torch_available;
constexpr const char* kPython = test::kSystemPython;

// Writes dir/inputs.pt beside dir/model.pt: a batch and the C++ model's log-probabilities and
// attention on it, for the Python reference to recompute.
void write_inputs(Seq2Seq& model, const std::filesystem::path& dir) {
  const Batch batch = test::varied_batch(model->config());
  const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
  torch::serialize::OutputArchive inputs;
  inputs.write("source", batch.source, /*is_buffer=*/true);
  inputs.write("source_lengths", batch.source_lengths, true);
  inputs.write("target_in", batch.target_in, true);
  inputs.write("log_probs", out.logits.log_softmax(-1).detach(), true);
  // attention = none: no weights, an empty tensor in their place.
  inputs.write("attention", out.attention.defined() ? out.attention.detach() : at::empty({0}), true);
  inputs.save_to((dir / "inputs.pt").string());
}

// Saves the model as dir/model.pt with its inputs.pt.
void write_case(Seq2Seq& model, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  save_checkpoint((dir / "model.pt").string(), model, test::toy_tokenizer(static_cast<int>(model->config().source_vocab_size)),
                  test::toy_tokenizer(static_cast<int>(model->config().target_vocab_size)));
  write_inputs(model, dir);
}

// Runs the reference on every directory's model.pt and inputs.pt in one interpreter (importing
// torch takes seconds): it must exit 0 and give each directory's model a line ending "ok".
void expect_reference_agrees(const std::vector<std::filesystem::path>& dirs, const std::string& log) {
  std::string command = std::string(kPython) + " " + NMT_SOURCE_DIR + "/scripts/reference/nmt_reference.py";
  for (const auto& dir : dirs) command += " " + (dir / "model.pt").string() + " " + (dir / "inputs.pt").string();
  const int status = std::system((command + " >" + log + " 2>&1").c_str());
  const std::string text = test::read_text(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text;
  for (const auto& dir : dirs) {
    const std::string line = (dir / "model.pt").string() + ": ";
    const std::size_t at = text.find(line);
    ASSERT_NE(at, std::string::npos) << dir.filename() << " has no line: " << text;
    const std::string result = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(result.find(": ok"), std::string::npos) << result;
  }
}

// full: separate embeddings, a linear bridge over a 2-layer encoder; lean: shared + tied, zero
// bridge, 2 decoder layers. Every attention type (none included) and decoder style, each both ways.
TEST(PythonInterop, ReferenceImplementationReproducesLogProbsOfEveryCombination) {
  if (!python_torch_available()) GTEST_SKIP() << kPython << " with torch not available";
  test::TempDir temp;
  std::vector<std::filesystem::path> dirs;
  for (const auto attention : {AttentionType::bahdanau, AttentionType::dot, AttentionType::general,
                               AttentionType::concat, AttentionType::none}) {
    for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong}) {
      for (const bool lean : {false, true}) {
        ModelConfig config = test::tiny_config(attention, style, 1);
        (lean ? config.decoder_layers : config.encoder_layers) = 2;
        config.source_vocab_size = 200;
        config.target_vocab_size = lean ? 200 : 300;
        if (lean) {
          config.share_embeddings = config.tie_output_embedding = true;
          config.bridge = BridgeType::zero;
        }
        at::manual_seed(17);
        Seq2Seq model(config);
        model->eval();
        dirs.push_back(temp.root() / (name_of(attention) + "_" + name_of(style) + (lean ? "_lean" : "_full")));
        write_case(model, dirs.back());
      }
    }
  }
  expect_reference_agrees(dirs, temp.path("log.txt"));
}

TEST(PythonInterop, DotWithoutProjectionWhenSizesMatch) {
  if (!python_torch_available()) GTEST_SKIP() << kPython << " with torch not available";
  ModelConfig config = test::tiny_config(AttentionType::dot, DecoderStyle::luong, 1);
  config.decoder_hidden_size = 2 * config.encoder_hidden_size;  // D = 2H: keys are the memory itself
  config.source_vocab_size = 200;
  config.target_vocab_size = 300;
  at::manual_seed(18);
  Seq2Seq model(config);
  model->eval();
  EXPECT_EQ(model->named_parameters().find("decoder.attention.key_layer.weight"), nullptr);
  test::TempDir temp;
  const std::filesystem::path dir = temp.root() / "dot";
  write_case(model, dir);
  expect_reference_agrees({dir}, temp.path("log.txt"));
}

TEST(PythonCheckpoint, ParameterNamesAsPythonSeesThem) {
  if (!python_torch_available()) GTEST_SKIP() << kPython << " with torch not available";
  test::TempDir dir;
  ModelConfig config = test::tiny_config(AttentionType::bahdanau, DecoderStyle::bahdanau);
  config.source_vocab_size = 200;
  config.target_vocab_size = 300;
  Seq2Seq model(config);
  save_checkpoint(dir.path("m.pt"), model, test::toy_tokenizer(200), test::toy_tokenizer(300), "x = 1");
  std::string expected;
  for (const auto& p : model->named_parameters()) expected += "model." + p.key() + "\n";
  test::write_text(dir.path("expected.txt"), expected);
  const std::string script =
      "import torch,json,sys\n"
      "m = torch.jit.load(sys.argv[1])\n"
      "names = sorted(n for n, _ in m.named_parameters())\n"
      "expected = sorted(open(sys.argv[2]).read().split())\n"
      "assert names == expected, (names, expected)\n"
      "assert m.format_version == 3 and m.training_config == 'x = 1'\n"
      // The checksums are plain SHA-256 of what Python reads (docs/checkpoints.md).
      "import hashlib\n"
      "d = json.loads(m.digests)\n"
      "w = m.model.decoder.readout.weight.detach().contiguous().numpy().tobytes()\n"
      "assert d['model.decoder.readout.weight'] == hashlib.sha256(w).hexdigest()\n"
      "assert d['source_spm'] == hashlib.sha256(bytes(m.source_spm.numpy())).hexdigest()\n"
      "assert d['training_config'] == hashlib.sha256(b'x = 1').hexdigest()\n"
      "assert json.loads(m.model_config)['attention'] == 'bahdanau'\n"
      "assert bytes(m.source_spm.numpy())[:2] and m.target_spm.dtype == torch.uint8\n";
  test::write_text(dir.path("check.py"), script);
  const std::string command = std::string(kPython) + " " + dir.path("check.py") + " " + dir.path("m.pt") + " " +
                              dir.path("expected.txt") + " >" + dir.path("log.txt") + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << test::read_text(dir.path("log.txt"));
}

}  // namespace
}  // namespace nmt
