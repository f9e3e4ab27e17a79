#include "nmt/kernels/kernels.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace nmt {
namespace {

// Bit-for-bit equality, reported with the first differing position.
void expect_identical(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  const at::Tensor differ = a.ne(b);
  if (differ.any().item<bool>()) {
    const at::Tensor where = differ.nonzero()[0];
    ADD_FAILURE() << what << ": " << differ.sum().item<std::int64_t>() << " values differ, first at "
                  << where << ": " << a.masked_select(differ)[0].item<double>() << " vs " << b.masked_select(differ)[0].item<double>();
  }
}

// Shapes that exercise every tile height (AVX2: 1..6; AVX-512: 1..12), partial panels (out not a
// multiple of 16), pairs of panels and a lone last one (AVX-512), odd input sizes, inputs deeper
// than a depth block (AVX-512: 128; AVX2: 256) and the 192-row chunks. ctest runs this program
// again with NMT_CPU_CAPABILITY=avx2 and =portable, so an AVX-512 machine checks every build.
struct Shape {
  std::int64_t rows, in, out;
};
const std::vector<Shape> kShapes = {{1, 1, 1},      {1, 256, 8000}, {5, 7, 33},     {6, 64, 16},
                                    {7, 31, 17},    {13, 256, 768}, {200, 40, 50},  {401, 24, 30},
                                    {23, 300, 49},  {12, 129, 32},  {11, 1024, 81}, {36, 257, 4000}};

TEST(StableLinear, EveryOutputIsOneFmaChainInKOrderThenTheBias) {
  c10::NoGradGuard no_grad;
  at::manual_seed(11);
  for (const Shape& s : kShapes) {
    const at::Tensor x = at::randn({s.rows, s.in}), w = at::randn({s.out, s.in}) * 0.1, b = at::randn({s.out});
    const std::string what = std::to_string(s.rows) + "x" + std::to_string(s.in) + " -> " + std::to_string(s.out);
    expect_identical(stable_linear(x, w, b), fma_chain_linear_reference(x, w, b), what);
    expect_identical(stable_linear(x, w), fma_chain_linear_reference(x, w), what + " without bias");
    // And it is the product, to float rounding: the chain is not some other function.
    EXPECT_TRUE(at::allclose(stable_linear(x, w, b), at::linear(x, w, b), 1e-4, 1e-4)) << what;
  }
  // The reference itself, one value by hand: fma(3, 0.5, fma(2, 0.25, 0)) + 1 = 3.
  const at::Tensor x = at::tensor({2.0f, 3.0f}).view({1, 2}), w = at::tensor({0.25f, 0.5f}).view({1, 2});
  EXPECT_EQ(fma_chain_linear_reference(x, w, at::tensor({1.0f})).item<float>(), 3.0f);
}

TEST(StableLinear, ARowGetsTheSameBitsAloneAndAnywhereInAnyBatch) {
  c10::NoGradGuard no_grad;
  at::manual_seed(12);
  const at::Tensor w = at::randn({8000, 256}) * 0.1, b = at::randn({8000});
  const at::Tensor batch = at::randn({50, 256});
  const at::Tensor all = stable_linear(batch, w, b);
  for (const std::int64_t row : {0, 5, 6, 11, 12, 49}) {
    expect_identical(stable_linear(batch.slice(0, row, row + 1), w, b), all.slice(0, row, row + 1),
                     "row " + std::to_string(row) + " alone");
    // The same row at every position of a smaller batch.
    for (std::int64_t at_position = 0; at_position < 13; at_position += 4) {
      at::Tensor other = batch.slice(0, 20, 33).clone();
      other[at_position] = batch[row];
      expect_identical(stable_linear(other, w, b)[at_position], all[row],
                       "row " + std::to_string(row) + " at " + std::to_string(at_position));
    }
  }
}

TEST(StableLinear, WeightViewsAndLeadingDimensionsWork) {
  c10::NoGradGuard no_grad;
  at::manual_seed(13);
  const at::Tensor w = at::randn({48, 40});
  const at::Tensor block = w.slice(/*dim=*/1, 8);  // a non-contiguous view, as the decoder's W_ih[:, E:]
  const at::Tensor x = at::randn({3, 5, 32});
  const at::Tensor y = stable_linear(x, block);
  ASSERT_EQ(y.sizes(), (std::vector<std::int64_t>{3, 5, 48}));
  expect_identical(y.view({15, 48}), fma_chain_linear_reference(x.view({15, 32}), block.contiguous()), "view");
  // Both views of one storage are packed separately.
  const at::Tensor front = w.slice(1, 0, 8);
  expect_identical(stable_linear(x.slice(2, 0, 8), front).view({15, 48}),
                   fma_chain_linear_reference(x.slice(2, 0, 8).reshape({15, 8}), front.contiguous()), "front view");
}

TEST(StableLinear, AWeightChangedInPlaceIsRepackedAndANewWeightIsNotConfused) {
  c10::NoGradGuard no_grad;
  at::manual_seed(14);
  const at::Tensor x = at::randn({4, 32});
  at::Tensor w = at::randn({20, 32});
  const at::Tensor before = stable_linear(x, w);
  w.mul_(2);  // as an optimizer step changes a parameter
  expect_identical(stable_linear(x, w), fma_chain_linear_reference(x, w), "after mul_");
  EXPECT_FALSE(stable_linear(x, w).equal(before));
  for (int i = 0; i < 20; ++i) {  // fresh tensors, possibly at freed addresses
    const at::Tensor fresh = at::randn({20, 32});
    expect_identical(stable_linear(x, fresh), fma_chain_linear_reference(x, fresh), "fresh weight " + std::to_string(i));
  }
}

// PackedLinear packs once and computes the same chains: the same bits as stable_linear for a weight
// view and any row count, from a snapshot that later changes to the weight never reach.
TEST(StableLinear, PackedLinearIsTheSameChainOverASnapshot) {
  at::manual_seed(16);
  const at::Tensor w = at::randn({40, 70}), b = at::randn({37});
  const at::Tensor view = w.slice(/*dim=*/0, 1, 38).slice(/*dim=*/1, 3, 67);  // [37, 64], strided
  const PackedLinear packed(view, b, c10::Device(c10::kCPU));
  for (const std::int64_t rows : {1, 5, 6, 13, 200}) {
    const at::Tensor x = at::randn({rows, 64});
    expect_identical(packed(x), fma_chain_linear_reference(x, view, b), "rows " + std::to_string(rows));
    expect_identical(packed(x), stable_linear(x, view, b), "stable_linear, rows " + std::to_string(rows));
  }
  const at::Tensor x = at::randn({3, 2, 64});  // leading dimensions, and autograd on: no graph to record
  const at::Tensor before = packed(x);
  EXPECT_EQ(before.sizes(), (std::vector<std::int64_t>{3, 2, 37}));
  EXPECT_FALSE(before.requires_grad());
  w.mul_(2);
  b.add_(1);
  EXPECT_TRUE(packed(x).equal(before)) << "a snapshot";
  EXPECT_FALSE(stable_linear(x, view, b).equal(before));
  const at::Tensor wanting_grad = x.clone().requires_grad_(true);  // autograd: at::linear, same function
  EXPECT_TRUE(packed(wanting_grad).requires_grad());
  EXPECT_TRUE(at::allclose(packed(wanting_grad), before, 1e-5, 1e-6));
}

TEST(StableLinear, AutogradAndDoubleStillWork) {
  at::manual_seed(15);
  const at::Tensor x = at::randn({3, 8}, at::kDouble).requires_grad_(true);
  const at::Tensor w = at::randn({5, 8}, at::kDouble).requires_grad_(true);
  const at::Tensor b = at::randn({5}, at::kDouble).requires_grad_(true);
  const at::Tensor y = stable_linear(x, w, b);  // autograd: at::linear
  ASSERT_TRUE(y.requires_grad());
  y.sum().backward();
  EXPECT_TRUE(at::allclose(w.grad(), x.sum(0).unsqueeze(0).expand({5, 8})));
  c10::NoGradGuard no_grad;
  expect_identical(stable_linear(x, w, b), fma_chain_linear_reference(x, w, b), "double");
  EXPECT_THROW(stable_linear(x, at::randn({5, 7}, at::kDouble)), c10::Error);
}

}  // namespace
}  // namespace nmt
