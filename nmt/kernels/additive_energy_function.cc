// The additive energy as an autograd function: one pass forward (keeping t = tanh(q + k)) and one
// backward (kernels.h gives the formulas).
//
// GCC 14 inlines LibTorch 2.x's Function::apply (a std::vector<bool>::reserve in
// custom_function.h) into this file's one caller and reports a bounds warning there that does not
// hold; apply_autograd_function's pragmas do not reach a warning raised after inlining into its
// caller, so this file, which holds nothing else, silences the two for itself.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include "nmt/core/torch_compat.h"
#include "nmt/kernels/energy.h"
#include "nmt/kernels/sentence_kernels.h"

namespace nmt {
namespace {

// dq [batch, A], dk [batch, src_len, A], dv [A] from t and g [batch, src_len].
void run_backward(const at::Tensor& t, const at::Tensor& g, const at::Tensor& v, at::Tensor& dq, at::Tensor& dk,
                  at::Tensor& dv) {
  const std::int64_t batch = t.size(0), src_len = t.size(1), size = t.size(2);
  at::Tensor dv_rows = at::zeros({batch, size}, t.options());  // each sentence's share, summed in order below
  AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "additive_energy_backward", [&] {
    const scalar_t* tp = t.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const scalar_t* vp = v.data_ptr<scalar_t>();
    scalar_t* dqp = dq.data_ptr<scalar_t>();
    scalar_t* dkp = dk.data_ptr<scalar_t>();
    scalar_t* dvp = dv_rows.data_ptr<scalar_t>();
    at::parallel_for(0, batch, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t b = begin; b < end; ++b) {
        const std::int64_t block = b * src_len * size;
        backward_sentence(tp + block, gp + b * src_len, vp, dqp + b * size, dkp + block, dvp + b * size, src_len,
                          size);
      }
    });
  });
  dv = dv_rows.sum(0);
}

class AdditiveEnergyFunction : public torch::autograd::Function<AdditiveEnergyFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& query, const at::Tensor& keys,
                            const at::Tensor& v) {
    const at::Tensor q = query.contiguous(), k = keys.contiguous(), w = v.contiguous();
    at::Tensor e = at::empty({k.size(0), k.size(1)}, k.options());
    at::Tensor t = at::empty_like(k);
    run_forward(q, k, w, nullptr, nullptr, e, t);
    ctx->save_for_backward({t, w});
    return e;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& t = saved[0];
    const at::Tensor& v = saved[1];
    const at::Tensor g = grads[0].contiguous();
    at::Tensor dq = at::zeros({t.size(0), t.size(2)}, t.options());
    at::Tensor dk = at::empty_like(t);
    at::Tensor dv;
    run_backward(t, g, v, dq, dk, dv);
    return {dq, dk, dv};
  }
};

}  // namespace

at::Tensor additive_energy_with_grad(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v) {
  return apply_autograd_function<AdditiveEnergyFunction>(query, keys, v);
}

}  // namespace nmt
