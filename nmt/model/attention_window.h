// Local attention (Luong, Pham & Manning 2015, section 3.2; docs/model.md, "Local attention"):
// attention looks at a window of 2W + 1 source positions around a centre p_t, and favours the
// centre with a Gaussian (sigma = W / 2):
//   local-m:  p_t = min(t, n - 1)                          t: the decoder step from 0
//   local-p:  p_t = (n - 1) sigmoid(v_p^T tanh(W_p q))      q: the style's query
//   local-p-offset:  p_t = min(t, n - 1) + W tanh(v_p^T tanh(W_p q))
//             (local-m's centre moved by a learnt offset of at most W: it starts as local-m, v_p = 0
//             at initialisation, which trains well, where local-p's sigmoid can saturate at an end;
//             docs/model.md)
//   a_ts = align_s exp(-(s - p_t)^2 / (2 sigma^2)) / Z      for |s - p_t| <= W, else 0
// with positions s = 0 .. n - 1 of the row's n real ones (EOS included), align the model's
// normaliser (softmax, sparsemax, 1.5-entmax) of the scores inside the window, and Z the sum of
// the products: the weights are renormalised (docs/model.md says why).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

#include "nmt/model/model_config.h"

namespace nmt {

/// local-m's centres: p [rows] = min(step, n - 1) with n = lengths [rows] (int64), in `like`'s type.
at::Tensor monotonic_centres(std::int64_t step, const at::Tensor& lengths, const at::Tensor& like);

/// local-p's centres: energy [rows, 1] = v_p^T tanh(W_p q) -> p [rows] = (n - 1) sigmoid(energy).
at::Tensor predicted_centres(const at::Tensor& energy, const at::Tensor& lengths);

/// local-p-offset's centres: energy [rows, 1] = v_p^T tanh(W_p q) -> p [rows] = min(step, n - 1) +
/// W tanh(energy). No clamp: p may pass an end by at most W, and the window then still holds the
/// real position min(step, n - 1), so no row is empty and the gradient never stops at a bound.
at::Tensor offset_centres(std::int64_t step, const at::Tensor& lengths, const at::Tensor& energy, std::int64_t window);

/// The centres of a window with a position network from its energy [rows, 1]: local-p's
/// predicted_centres or local-p-offset's offset_centres (the trainable and the inference model both).
at::Tensor learnt_centres(AttentionWindow window, std::int64_t step, const at::Tensor& lengths,
                          const at::Tensor& energy, std::int64_t size);

/// scores [rows, src_len] (-inf at padding), centres [rows] -> a [rows, src_len]: rows sum to 1,
/// exactly 0 outside the window and at padding. The row's sum is sequential (cumsum), so padding
/// after the row changes no bit of it.
at::Tensor local_attention_weights(const at::Tensor& scores, const at::Tensor& centres, std::int64_t window,
                                   AttentionNormaliser normaliser);
/// The same with the normaliser given as a function of the window's scores (training's hard
/// attention normalises with Gumbel noise: attention_normaliser.h).
at::Tensor local_attention_weights(const at::Tensor& scores, const at::Tensor& centres, std::int64_t window,
                                   const std::function<at::Tensor(const at::Tensor&)>& normalise);

/// The real positions of each row: mask [rows, src_len] bool -> n [rows] int64.
at::Tensor real_lengths(const at::Tensor& mask);

}  // namespace nmt
