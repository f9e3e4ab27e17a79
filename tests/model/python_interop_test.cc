// Checkpoints load in Python: scripts/reference/nmt_reference.py, a PyTorch re-implementation written
// from docs/model.md, reads a checkpoint with torch.jit.load and must reproduce the C++ model's
// log-probabilities and attention to 1e-5, for every attention type (none included) and decoder style.
// Skips where /usr/bin/python3 or its torch (Debian's python3-torch) is missing.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize/output-archive.h>

#include <cstdlib>
#include <tuple>

#include "nmt/model/checkpoint.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

using test::python_torch_available;
constexpr const char* kPython = test::kSystemPython;

int run_reference(const std::string& checkpoint, const std::string& inputs, const std::string& log) {
  const std::string command = std::string(kPython) + " " + NMT_SOURCE_DIR + "/scripts/reference/nmt_reference.py " +
                              checkpoint + " " + inputs + " >" + log + " 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Writes a batch, the model's log-probabilities and attention beside dir/model.pt and has the Python
// reference recompute them; returns its exit status (0: equal within 1e-5).
int check_with_reference(Seq2Seq& model, const test::TempDir& dir);

using Case = std::tuple<AttentionType, DecoderStyle, bool>;  // lean: shared+tied+zero bridge, 2 layers

class PythonInterop : public ::testing::TestWithParam<Case> {};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return name_of(std::get<0>(info.param)) + "_" + name_of(std::get<1>(info.param)) +
         (std::get<2>(info.param) ? "_lean" : "_full");
}

TEST_P(PythonInterop, ReferenceImplementationReproducesLogProbs) {
  if (!python_torch_available()) GTEST_SKIP() << kPython << " with torch not available";
  const auto [attention, style, lean] = GetParam();
  // full: separate embeddings, linear bridge over a 2-layer encoder; lean: shared + tied, zero bridge,
  // 2 decoder layers.
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
  test::TempDir dir;
  save_checkpoint(dir.path("model.pt"), model, test::toy_tokenizer(200),
                  test::toy_tokenizer(static_cast<int>(config.target_vocab_size)));

  EXPECT_EQ(check_with_reference(model, dir), 0) << test::read_text(dir.path("log.txt"));
}

TEST(PythonInteropDot, WithoutProjectionWhenSizesMatch) {
  if (!python_torch_available()) GTEST_SKIP() << kPython << " with torch not available";
  ModelConfig config = test::tiny_config(AttentionType::dot, DecoderStyle::luong, 1);
  config.decoder_hidden_size = 2 * config.encoder_hidden_size;  // D = 2H: keys are the memory itself
  config.source_vocab_size = 200;
  config.target_vocab_size = 300;
  at::manual_seed(18);
  Seq2Seq model(config);
  model->eval();
  EXPECT_EQ(model->named_parameters().find("decoder.attention.key_layer.weight"), nullptr);
  test::TempDir dir;
  save_checkpoint(dir.path("model.pt"), model, test::toy_tokenizer(200), test::toy_tokenizer(300));
  EXPECT_EQ(check_with_reference(model, dir), 0) << test::read_text(dir.path("log.txt"));
}

int check_with_reference(Seq2Seq& model, const test::TempDir& dir) {
  const Batch batch = test::varied_batch(model->config());
  const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
  torch::serialize::OutputArchive inputs;
  inputs.write("source", batch.source, /*is_buffer=*/true);
  inputs.write("source_lengths", batch.source_lengths, true);
  inputs.write("target_in", batch.target_in, true);
  inputs.write("log_probs", out.logits.log_softmax(-1).detach(), true);
  // attention = none: no weights, an empty tensor in their place.
  inputs.write("attention", out.attention.defined() ? out.attention.detach() : at::empty({0}), true);
  inputs.save_to(dir.path("inputs.pt"));
  return run_reference(dir.path("model.pt"), dir.path("inputs.pt"), dir.path("log.txt"));
}

INSTANTIATE_TEST_SUITE_P(All, PythonInterop,
                         ::testing::Combine(::testing::Values(AttentionType::bahdanau, AttentionType::dot,
                                                              AttentionType::general, AttentionType::concat,
                                                              AttentionType::none),
                                            ::testing::Values(DecoderStyle::bahdanau, DecoderStyle::luong),
                                            ::testing::Bool()),
                         case_name);

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
