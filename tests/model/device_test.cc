// The model is device-generic: on CUDA it computes what it computes on the CPU. CI has no GPU, so
// these tests skip there; they run wherever LibTorch sees a CUDA device.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "nmt/model/checkpoint.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

TEST(Device, CudaMatchesCpuForBothFaces) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const c10::Device cuda(c10::kCUDA, 0);
  for (const auto style : {DecoderStyle::bahdanau, DecoderStyle::luong}) {
    const ModelConfig config = test::tiny_config(AttentionType::bahdanau, style, 2);
    at::manual_seed(6);
    Seq2Seq model(config);
    model->eval();
    const Batch batch = test::varied_batch(config);
    const auto cpu = model->forward(batch.source, batch.source_lengths, batch.target_in);
    model->to(cuda);
    const Batch on_gpu = batch.to(cuda);
    const auto gpu = model->forward(on_gpu.source, on_gpu.source_lengths, on_gpu.target_in);
    EXPECT_TRUE(at::allclose(gpu.logits.cpu(), cpu.logits, 1e-4, 1e-5));
    EXPECT_TRUE(at::allclose(gpu.attention.cpu(), cpu.attention, 1e-4, 1e-5));
    DecoderState state = model->encode(on_gpu.source, on_gpu.source_lengths);
    const StepOutput step = model->step(state.select(at::tensor({1, 1, 0}, at::kLong)),
                                        at::full({3}, SpecialIds::kBos, at::kLong).to(cuda));
    EXPECT_EQ(step.log_probs.device(), cuda);
  }
}

TEST(Device, CheckpointSavedOnCudaLoadsOnCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  ModelConfig config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  config.source_vocab_size = config.target_vocab_size = 200;
  Seq2Seq model(config);
  model->to(c10::Device(c10::kCUDA, 0));
  test::TempDir dir;
  save_checkpoint(dir.path("gpu.pt"), model, test::toy_tokenizer(200), test::toy_tokenizer(200));
  Checkpoint loaded = load_checkpoint(dir.path("gpu.pt"));
  for (const auto& p : loaded.model->parameters()) EXPECT_EQ(p.device().type(), c10::kCPU);
}

}  // namespace
}  // namespace nmt
