// The kernels layer: the model's hot arithmetic as CPU kernels that give a row the same bits alone
// and in any batch, with tensor-operation fallbacks (same formulas) for autograd and other devices.
// This header is the layer's one face; the files behind it (docs/architecture.md):
//   dispatch.cc                  the CPU-feature check and when the inference kernels apply
//   fast_math.h                  exp, tanh, sigmoid for float, branch-free, with error bounds
//   row_kernels.h                the loops over one row; sentence_kernels.cc builds them per CPU level
//   attention_kernels.cc         additive energy, dot scores, weighted context
//   additive_energy_function.cc  the additive energy's autograd function
//   elementwise.cc               GRU cell, tanh, masked softmax by rows
//   log_softmax.cc               the output layer's log-softmax, and its normalisers for ranking
//   top_candidates.h/.cc         search's best candidates of a few adjacent rows (its own header)
//   packed_linear.cc             the row-invariant product (PackedLinear, stable_linear)
//   int8_linear.cc               int8 products: quantization, the portable loop, the kernel's choice
//   int8_kernels_x86.cc          int8 products' AVX2, AVX-512BW and AVX-512 VNNI loops
//   int8_positions.cc            int8 positions: the per-position tables a step reads, a byte a value
//
// Additive energy (Bahdanau and Luong concat scores), differentiable:
//
//   e[r, j] = sum_a v[a] tanh(q[r, a] + k[n(r), j, a])
//
// Written as tensor operations (add, tanh, multiply, sum) the energy made four passes over a fresh
// [rows, src_len, A] tensor at every decoder step and as many in the backward: ~140 ms of a
// ~1,100 ms training step at the reference size. The kernel makes one pass forward (writing
// t = tanh(q + k) only when a gradient is needed) and one backward:
//
//   u[r, j, a] = g[r, j] v[a] (1 - t[r, j, a]^2)
//   dq[r, a] = sum_j u[r, j, a],   dk[r, j, a] = u[r, j, a],   dv[a] = sum_{r, j} g[r, j] t[r, j, a]
//
// Inference (no autograd; other devices and autograd take tensor operations with the same formulas):
//
//   dot scores   e[r, j] = sum_a q[r, a] k[n(r), j, a]        (Luong dot and general)
//   context      c[r, :] = sum_j w[r, j] m[n(r), j, :]
//   log-softmax  y[r, i] = x[r, i] - (m + log sum_i' exp(x[r, i'] - m)),  m = max_i' x[r, i']
//
// Source rows: n(r) = rows[r] when `rows` ([decoder rows] int64) is given, else r. Beam search
// reorders and repeats decoder rows at every step, but the encoder memory and keys of a sentence
// never change: with `rows` the search moves a row index instead of copying [rows, src_len, 768]
// floats per step (docs/search.md).
//
// Batch invariance: every output row is summed in one fixed order whatever the other rows are,
// so a sentence gets the same bits alone as in any batch (docs/search.md, "Batch invariance").
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "nmt/core/enum_names.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nmt {

/// query [R, A], keys [N, S, A], v [A], rows [R] int64 or undefined (then N = R) -> e [R, S].
/// mask [R, S] bool, when given: e is -inf where it is false, and the inference kernel does not
/// compute those positions (a batch's padding: a quarter of the work on the test books).
at::Tensor additive_energy(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v,
                           const at::Tensor& rows = at::Tensor(), const at::Tensor& mask = at::Tensor());

/// The additive energy as tensor operations (reference for the tests; keys [R, S, A]).
at::Tensor additive_energy_reference(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& v);

/// True when the inference kernels apply: all defined tensors on the CPU, float or double, and no
/// gradient wanted (grad mode off, or nothing requires one).
bool inference_kernels_apply(const at::Tensor& a, const at::Tensor& b);

/// e[r, j] = q[r] . k[n(r), j]: query [R, D], keys [N, S, D], rows as above -> e [R, S]. The kernel
/// when the inference kernels apply, else elementwise products summed (autograd, other devices).
/// mask [R, S] bool, when given: e is -inf where it is false, and the kernel does not compute the
/// positions after a row's last real one (its padding); the others are the same bits either way.
/// Keys stored in int8 (Int8Positions.values, CPU): `key_scales` [N, S] float gives each
/// position's scale (see "int8 positions" below).
at::Tensor dot_scores(const at::Tensor& query, const at::Tensor& keys, const at::Tensor& rows,
                      const at::Tensor& mask = at::Tensor(), const at::Tensor& key_scales = at::Tensor());

/// weights [R, S], memory [N, S, M], rows as above -> context [R, M]: the kernel when the inference
/// kernels apply, else a batched matrix product (autograd, other devices). Memory in int8 (CPU, float
/// weights) takes its positions' scales [N, S] in `memory_scales`.
at::Tensor weighted_context(const at::Tensor& weights, const at::Tensor& memory, const at::Tensor& rows,
                            const at::Tensor& memory_scales = at::Tensor());

/// int8 positions: the per-source-position tables that every decoder step reads whole (the
/// attention's keys, the context's projections W_c h_j), stored as one byte a value for
/// --precision int8. Each position's row x [D] is quantized as the int8 products quantize a weight
/// row (int8_linear.h): s = max_d |x[d]| / 127, x8[d] = round_half_even(x[d] / s) in [-127, 127]
/// (a zero row: s = 0; a row with NaN or an infinity: s = NaN, so its scores and contexts are NaN
/// as the float tables would make them). dot_scores and weighted_context read them with the float
/// kernels' sums, a byte converted exactly: a step reads a quarter of the bytes (the tables of a
/// greedy batch are ~32 MB in float, beyond this machine's L3).
struct Int8Positions {
  at::Tensor values;  // [N, S, D] int8
  at::Tensor scales;  // [N, S] float
};
/// x [N, S, D] float on the CPU (any strides) -> its int8 positions.
Int8Positions quantize_positions(const at::Tensor& x);

/// log_softmax over the last dimension of logits [R, V], in place when the inference kernels apply
/// (CPU, float or double, contiguous, no autograd), else at::log_softmax. ATen's CPU log-softmax
/// took 3-5 ns per element here (its exp dominates), a sixth of a beam search step.
at::Tensor log_softmax_last(at::Tensor logits);

/// Greedy search's choice from logits [R, V] without writing their log-softmax: for each row the
/// first piece with the largest offset[r] + log p (log p: log_softmax_last's values; the sum in
/// float, as greedy search adds them) and that value; NaN never ranks, and a row of NaN gives
/// (-inf, 0). The bits of log_softmax_last followed by that scan (greedy_search.cc), for float
/// logits where the inference kernels apply (`best_of_log_softmax_applies`); offset [R] float.
struct BestOfRows {
  std::vector<float> scores;
  std::vector<std::int64_t> ids;
};
bool best_of_log_softmax_applies(const at::Tensor& logits);
BestOfRows best_of_log_softmax(const at::Tensor& logits, const at::Tensor& offset);

/// Beam search's ranking from logits [R, V] without writing their log-softmax: each row's normaliser
/// N_r (log_softmax_last's values are the bits of x - N_r) and the largest logit of each block of
/// kRankingBlock (NaN ignored), taken from the normaliser's own first pass; top_of_rows
/// (top_candidates.h) ranks r + (x - N_r) with them, a block on one comparison. For float logits
/// where best_of_log_softmax_applies.
struct RowNormalisers {
  std::int64_t blocks = 0;                 // per row: ceil(V / kRankingBlock)
  std::vector<float> normalisers;          // [R]
  std::vector<float> block_maxima;         // [R, blocks]
};
RowNormalisers log_softmax_normalisers(const at::Tensor& logits);

/// A lexical shortlist's output (nmt/search/shortlist_decoder.h): logits [R, K] over the pieces
/// [K] (int64, increasing, any device); row r may produce only the columns columns[r] (increasing
/// positions in [0, K)). Returns [R, vocab]: at pieces[c] for each c of columns[r] the row's
/// logits normalised over those columns alone, -inf elsewhere. For the inference kernels' case
/// only (CPU, no autograd): each row's values are gathered and normalised as log_softmax_last
/// normalises a row of that size, so a row's result depends on its own columns only (batch
/// invariance) and a subset of every piece gives log_softmax_last's bits.
at::Tensor scatter_subsets(const at::Tensor& logits, const std::vector<const std::vector<std::int64_t>*>& columns,
                           const at::Tensor& pieces, std::int64_t vocab);
/// The values scatter_subsets writes, without its [R, vocab] rows: row r's logits at columns[r],
/// normalised over them by the same code, row after row ([sum of the lists' sizes]).
std::vector<float> log_softmax_of_lists(const at::Tensor& logits,
                                        const std::vector<const std::vector<std::int64_t>*>& columns);

// Elementwise inference kernels. ATen's vectorised sigmoid (LibTorch 2.6) gives an element other
// bits in its loop's scalar tail than in its vector body, and whether an element falls in the tail
// depends on how many rows the tensor has: a sentence's encoder states changed with its batch. These
// compute every element with one formula whatever the row count, so results stay batch invariant
// on any LibTorch and CPU (docs/search.md, "Batch invariance").

/// PyTorch's GRU cell (gru_cell.h) with the kernels' sigmoid and tanh: input_gates, hidden_gates
/// [R, 3D] (rows may be strided, each row contiguous), h [R, D] -> h' [R, D]. Inference only.
at::Tensor gru_cell_rows(const at::Tensor& input_gates, const at::Tensor& hidden_gates, const at::Tensor& h);

/// tanh of every element, each row of the last dimension alone, when the inference kernels apply;
/// else at::tanh.
at::Tensor tanh_rows(const at::Tensor& x);

/// softmax over the last dimension when the inference kernels apply, else ATen's. -inf (masked
/// positions) gives exactly 0, and a row's weights do not depend on how much -inf padding follows.
at::Tensor softmax_last(const at::Tensor& scores);

/// sparsemax and 1.5-entmax over the last dimension, one row at a time in one pass (a sort of the
/// row's real scores, running sums, the threshold): the sort-based closed forms of
/// nmt/model/attention_normaliser.h (sparsemax_last, entmax15_last), operation for operation, so the
/// same bits, without their twenty-odd tensor operations a step, for finite scores and -inf (which
/// gives exactly 0); NaN or +inf (a diverged model) give NaN in the row, not the closed forms' bits.
/// For the inference kernels' case only (CPU, float or double, no autograd; anything else is an error).
at::Tensor sparsemax_rows(const at::Tensor& scores);
at::Tensor entmax15_rows(const at::Tensor& scores);

/// The kernels' exp for y <= 0 in float: relative error < 3e-7 (tested against std::exp).
float fast_exp_nonpositive(float y);

/// The kernels' tanh for float: |error| < 1.4e-7 (tested against std::tanh), exposed for that test.
/// Written so that compilers vectorise loops over it.
float fast_tanh(float x);

/// The kernels' sigmoid for float: relative error < 2e-7 (tested against 1 / (1 + exp(-x))).
float fast_sigmoid(float x);

// ---------------------------------------------------------------------------------------------
// A linear layer whose rows do not depend on how many rows there are, or on which.
//
// Why: a sentence must get the same numbers alone and inside any batch (docs/search.md, "Batch
// invariance"), and the model's arithmetic is row-wise, but BLAS kernels are not: OpenBLAS 0.3.21
// sums a row of x W^T in an order that depends on the product's shape and on the row's place in
// the kernel's tiles. Measured: its SkylakeX kernels (AVX-512 Xeons) run a separate small-matrix
// kernel when rows x out <= 1200; its Haswell/Zen kernels (AMD EPYC, AVX2) give rows 0-5 of every
// 12 other low bits than rows 6-11 once there are more than ~8 rows. Padding cannot fix the second.
//
// So inference (CPU, float or double, no autograd) runs its own product, in which every output is
//
//   y[r, n] = fma(x[r, K-1], W[n, K-1], ... fma(x[r, 1], W[n, 1], fma(x[r, 0], W[n, 0], 0)) ...) + b[n]
//
// one fused multiply-add chain in k order, then the bias: the same bits for a row whatever else is
// in the batch, on every CPU (fma is correctly rounded everywhere). The float kernel keeps W packed
// in panels of 16 columns and computes 12 rows x 2 panels at a time in AVX-512 registers, or 6 rows
// x 16 columns in AVX2 registers; without AVX2 + FMA a portable loop computes the same chains.
// PackedLinear packs a weight once (the inference model holds one per product it runs): faster
// than OpenBLAS at the row counts of search (docs/benchmarks.md), with no per-call packing of the
// 8000 x 256 output matrix; stable_linear() packs per call. Training (autograd) and other devices use at::linear.

/// The arithmetic of inference's products: float32 (the chain above; the default) or int8 (below).
enum class Precision { float32, int8 };

const EnumNames<Precision>& enum_names(Precision);  // float32, int8

/// A copy of `tensor` on `device`, detached from autograd: what the inference model holds (later
/// changes to the original never reach it).
at::Tensor snapshot(const at::Tensor& tensor, const c10::Device& device);

struct PackedWeight;
namespace int8 {
struct Int8Weight;
}

/// y = W x + b with W packed once: a snapshot of the weight and bias as they were when it was made
/// (copies on `device`). Row-invariant (the chain above) when the inference kernels apply
/// (kernels.h), at::linear otherwise. With Precision::int8 (a float weight on the CPU) it holds W
/// quantized and nothing else (no float copy: docs/search.md, "int8 decoding"), and it takes float
/// input on the CPU without autograd only (anything else is an error). Safe to call from several
/// threads at once.
class PackedLinear {
 public:
  PackedLinear() = default;
  /// weight [out, in], bias [out] or undefined.
  PackedLinear(const at::Tensor& weight, const at::Tensor& bias, const c10::Device& device,
               Precision precision = Precision::float32);
  /// input [..., in] -> [..., out].
  at::Tensor operator()(const at::Tensor& input) const;
  /// The product of the rows `ids` ([K] int64) alone: input [..., in] -> [..., K], each output the
  /// bits that column of the whole product has (int8 rows are quantized per row, so selecting them
  /// is exact).
  PackedLinear rows(const at::Tensor& ids) const;
  bool defined() const { return weight_.defined() || int8_ != nullptr; }
  /// The float weight [out, in] and bias [out] (or undefined); undefined with Precision::int8.
  const at::Tensor& weight() const { return weight_; }
  const at::Tensor& bias() const { return bias_; }
  /// int8 when the int8 product runs for float input on the CPU, else float32.
  Precision precision() const { return int8_ ? Precision::int8 : Precision::float32; }

 private:
  at::Tensor weight_, bias_;                    // contiguous copies (float32 only)
  std::shared_ptr<const PackedWeight> packed_;  // float on a CPU with AVX2 + FMA; else null
  std::shared_ptr<const int8::Int8Weight> int8_;  // with Precision::int8; else null
};

/// at::linear(input, weight, bias): input [..., in], weight [out, in], bias [out] or undefined.
/// Row-invariant (the chain above) when the inference kernels apply (kernels.h); packs per call.
at::Tensor stable_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias = at::Tensor());

/// The vector build the CPU kernels run: "avx512", "avx2" or "portable" (the best this CPU has,
/// capped by the environment variable NMT_CPU_CAPABILITY). Throws ConfigError naming a value of
/// NMT_CPU_CAPABILITY other than those three: the programs call it at start, before any work.
std::string kernel_capability();

/// The chain above as plain scalar loops, for the tests: input [rows, in] float or double.
at::Tensor fma_chain_linear_reference(const at::Tensor& input, const at::Tensor& weight,
                                      const at::Tensor& bias = at::Tensor());

// ---------------------------------------------------------------------------------------------
// int8 products (opt-in quantized decoding, --precision int8; docs/search.md, "int8 decoding").
//
// W is quantized once, symmetrically, one scale per output row; each input row at every call:
//
//   sw[n] = max_k |W[n, k]| / 127     qw[n, k] = round(W[n, k] / sw[n])   (to nearest, ties to even)
//   sx[r] = max_k |x[r, k]| / 127     qx[r, k] = round(x[r, k] / sx[r])   (computed as x * (127 / max))
//   y[r, n] = float(sum_k qx[r, k] qw[n, k]) * (sx[r] * sw[n]) + b[n]
//
// The sum is exact in int32 (|qx qw| <= 127^2, at most 65,536 inputs), so its order does not
// matter, and the epilogue is one multiply, one multiply and one add, never fused: every kernel
// (AVX-512 VNNI, AVX-512BW, AVX2, portable) gives the same bits, and a row's result depends on
// that row alone (batch invariance). A zero row gives qx = 0, sx = 0; a row with NaN or an
// infinity gives NaN in every output.

/// The int8 kernels this CPU runs, narrowest first: "portable", then "avx2", "avx512bw", "vnni" as
/// it has them (under NMT_CPU_CAPABILITY's cap).
std::vector<std::string> int8_kernels();
/// The one that runs: the last of int8_kernels().
std::string int8_kernel();
/// The int8 product of input [..., in] (float, CPU) with weight [out, in] and bias [out] (or
/// undefined), quantized for this call, with one of int8_kernels() (the tests and benchmarks).
at::Tensor int8_linear(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                       const std::string& kernel);
/// The definition above as plain scalar loops over unpacked values: input [rows, in] float.
at::Tensor int8_linear_reference(const at::Tensor& input, const at::Tensor& weight,
                                 const at::Tensor& bias = at::Tensor());

}  // namespace nmt
