#include "tests/model/model_test_util.h"

#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include "nmt/data/tokenizer.h"

namespace nmt::test {

void fit_briefly(Seq2Seq& model, const Batch& batch, int steps) {
  model->train();
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.04));
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    const auto out = model->forward(batch.source, batch.source_lengths, batch.target_in);
    torch::nn::functional::cross_entropy(
        out.logits.reshape({-1, out.logits.size(-1)}), batch.target_out.reshape(-1),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(SpecialIds::kPad))
        .backward();
    optimizer.step();
  }
  model->eval();
}

}  // namespace nmt::test
