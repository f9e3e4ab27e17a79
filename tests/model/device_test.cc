// The model is device-generic: on CUDA it computes what it computes on the CPU. CI has no GPU, so
// these tests skip there; they run wherever LibTorch sees a CUDA device.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include "nmt/core/device.h"
#include "nmt/core/error.h"
#include "nmt/model/checkpoint.h"
#include "nmt/model/inference/inference_model.h"
#include "nmt/model/seq2seq.h"
#include "tests/model/model_test_util.h"
#include "tests/test_util.h"

namespace nmt {
namespace {

// --device's values, on every machine: "auto" is CUDA where LibTorch sees a GPU, except for work that
// runs on the CPU alone (int8 decoding), where a GPU machine's default would only be an error.
TEST(Device, NamesParseAndCpuOnlyWorkTakesTheCpuForAuto) {
  const bool cuda = torch::cuda::is_available();
  EXPECT_EQ(parse_device("cpu"), c10::Device(c10::kCPU));
  EXPECT_EQ(parse_device("auto"), cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU));
  EXPECT_EQ(parse_device("auto", true), c10::Device(c10::kCPU));
  EXPECT_EQ(parse_device("cpu", true), c10::Device(c10::kCPU));
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:1234", "CPU"}) {
    EXPECT_THROW(parse_device(bad), ConfigError) << bad;
  }
  if (cuda) {
    EXPECT_EQ(parse_device("cuda", true), c10::Device(c10::kCUDA, 0));  // explicit: the caller refuses it
  } else {
    try {
      parse_device("cuda");
      ADD_FAILURE() << "cuda accepted without CUDA";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA is not available"), std::string::npos) << e.what();
    }
  }
}

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
    const at::Tensor rows = at::tensor({1, 1, 0}, at::kLong), bos = at::full({3}, SpecialIds::kBos, at::kLong);
    const auto cpu_inference = model->for_inference(c10::Device(c10::kCPU));
    const StepOutput cpu_step =
        cpu_inference->step(*cpu_inference->encode(batch.source, batch.source_lengths)->select(rows), bos);
    model->to(cuda);
    const Batch on_gpu = batch.to(cuda);
    EXPECT_EQ(on_gpu.source.device(), cuda);
    EXPECT_EQ(on_gpu.source_lengths.device().type(), c10::kCPU) << "packing needs lengths on the CPU";
    const auto gpu = model->forward(on_gpu.source, on_gpu.source_lengths, on_gpu.target_in);
    EXPECT_TRUE(at::allclose(gpu.logits.cpu(), cpu.logits, 1e-4, 1e-5));
    EXPECT_TRUE(at::allclose(gpu.attention.cpu(), cpu.attention, 1e-4, 1e-5));
    const auto inference = model->for_inference(cuda);
    const StepOutput step =
        inference->step(*inference->encode(on_gpu.source, on_gpu.source_lengths)->select(rows), bos.to(cuda));
    EXPECT_EQ(step.log_probs.device(), cuda);
    EXPECT_TRUE(at::allclose(step.log_probs.cpu(), cpu_step.log_probs, 1e-4, 1e-5));
    EXPECT_TRUE(at::allclose(step.attention.cpu(), cpu_step.attention, 1e-4, 1e-5));
  }
}

// at::gru reads cuDNN's flat buffer from the storage of the first weight it is given, from its
// start; a direction whose weights lie elsewhere is copied at every call, with a warning each time.
TEST(Device, EachEncoderDirectionHasACudnnBufferOfItsOwn) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const ModelConfig config = test::tiny_config(AttentionType::bahdanau, DecoderStyle::luong, 2);
  at::manual_seed(6);
  Seq2Seq model(config);
  const auto parameter_count = model->parameters().size();
  model->to(c10::Device(c10::kCUDA, 0));
  EXPECT_EQ(model->parameters().size(), parameter_count);
  for (const auto& layer : model->encoder()->layers()) {
    for (const GruWeights& w : layer) {
      EXPECT_TRUE(w.weight_ih.is_cuda());
      EXPECT_EQ(w.weight_ih.storage_offset(), 0);
      for (const at::Tensor& t : {w.weight_hh, w.bias_ih, w.bias_hh}) {
        EXPECT_TRUE(t.storage().is_alias_of(w.weight_ih.storage()));
      }
    }
  }
  // The module's own names still reach the same tensors (checkpoints read them).
  const auto named = model->named_parameters();
  EXPECT_TRUE(named["encoder.rnn.weight_hh_l0_reverse"].is_same(model->encoder()->layers()[0][1].weight_hh));
}

TEST(Device, CheckpointsMoveBetweenCudaAndCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const c10::Device cuda(c10::kCUDA, 0);
  ModelConfig config = test::tiny_config(AttentionType::general, DecoderStyle::luong);
  config.source_vocab_size = config.target_vocab_size = 200;
  config.share_embeddings = config.tie_output_embedding = true;
  Seq2Seq model(config);
  model->eval();
  const Batch batch = test::varied_batch(config);
  const auto expected = model->forward(batch.source, batch.source_lengths, batch.target_in).logits;
  model->to(cuda);
  test::TempDir dir;
  save_checkpoint(dir.path("gpu.pt"), model, test::toy_tokenizer(200), test::toy_tokenizer(200));
  Checkpoint on_cpu = load_checkpoint(dir.path("gpu.pt"));
  for (const auto& p : on_cpu.model->parameters()) EXPECT_EQ(p.device().type(), c10::kCPU);
  EXPECT_TRUE(at::equal(on_cpu.model->forward(batch.source, batch.source_lengths, batch.target_in).logits, expected));
  Checkpoint on_gpu = load_checkpoint(dir.path("gpu.pt"), cuda);
  for (const auto& p : on_gpu.model->parameters()) EXPECT_EQ(p.device(), cuda);
  const Batch gpu_batch = batch.to(cuda);
  const auto logits = on_gpu.model->forward(gpu_batch.source, gpu_batch.source_lengths, gpu_batch.target_in).logits;
  EXPECT_TRUE(at::allclose(logits.cpu(), expected, 1e-4, 1e-5)) << "tied weights survive the move";
}

}  // namespace
}  // namespace nmt
