// The int8 products (kernels.h, "int8 products"): every kernel the CPU has gives the scalar
// reference's bits, rows are batch invariant, the scales are per row, and the result is the float
// product to within quantization's error. ctest runs this program again under NMT_CPU_CAPABILITY
// avx2 and portable (and avx512bw), so an AVX-512 VNNI machine checks every kernel.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/kernels/int8_linear.h"
#include "nmt/kernels/kernels.h"

// A namespace of its own: the unity build puts this file in one unit with others.
namespace nmt::int8_linear_test {
namespace {

void expect_identical(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  // NaN equals NaN here: both sides must have it in the same places.
  const at::Tensor differ = a.ne(b).logical_and(a.isnan().logical_and(b.isnan()).logical_not());
  if (differ.any().item<bool>()) {
    const at::Tensor where = differ.nonzero()[0];
    ADD_FAILURE() << what << ": " << differ.sum().item<std::int64_t>() << " values differ, first at " << where << ": "
                  << a.masked_select(differ)[0].item<double>() << " vs " << b.masked_select(differ)[0].item<double>();
  }
}

std::string shape_name(std::int64_t rows, std::int64_t in, std::int64_t out) {
  return std::to_string(rows) + "x" + std::to_string(in) + " -> " + std::to_string(out);
}

// Every tile height (AVX2 1..4, AVX-512BW 1..8, VNNI 1..12) and beyond a tile, panels partly
// filled, pairs of panels and a lone last one, inputs that are not a multiple of 4, the 192-row
// chunks, and the reference model's shapes.
struct Shape {
  std::int64_t rows, in, out;
};
const std::vector<Shape> kShapes = {
    {1, 1, 1},    {1, 3, 5},     {2, 4, 16},    {3, 5, 17},     {4, 7, 31},   {5, 8, 32},     {6, 9, 33},
    {7, 10, 47},  {8, 11, 48},   {9, 13, 49},   {10, 64, 64},   {11, 65, 80}, {12, 66, 96},   {13, 67, 97},
    {24, 256, 768}, {25, 255, 100}, {200, 40, 50}, {401, 24, 30}, {1, 256, 4000}, {37, 1024, 81}, {50, 257, 4000}};

TEST(Int8Linear, EveryKernelGivesTheReferencesBits) {
  c10::NoGradGuard no_grad;
  at::manual_seed(21);
  const std::vector<std::string> kernels = int8_kernels();
  ASSERT_EQ(kernels.front(), "portable");
  EXPECT_EQ(int8_kernel(), kernels.back());
  for (const Shape& s : kShapes) {
    const at::Tensor x = at::randn({s.rows, s.in}), w = at::randn({s.out, s.in}) * 0.1, b = at::randn({s.out});
    const at::Tensor reference = int8_linear_reference(x, w, b), no_bias = int8_linear_reference(x, w);
    for (const std::string& kernel : kernels) {
      const std::string what = kernel + " " + shape_name(s.rows, s.in, s.out);
      expect_identical(int8_linear(x, w, b, kernel), reference, what);
      expect_identical(int8_linear(x, w, at::Tensor(), kernel), no_bias, what + " without bias");
    }
  }
}

TEST(Int8Linear, AdversarialRowsGiveTheReferencesBitsEverywhere) {
  c10::NoGradGuard no_grad;
  at::manual_seed(22);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  at::Tensor x = at::randn({14, 37});
  x[0].zero_();                                 // a zero row: sx = 0, y = b
  x[1].fill_(3.0f);                             // every value the maximum
  x[2] = at::randn({37}) * 1e30;                // huge
  x[3] = at::randn({37}) * 1e-30;               // tiny, still normal after scaling
  x[4] = at::randn({37}) * 1e-38;               // subnormal-sized: 127 / max overflows, quantized as zero
  x[5][7] = nan;                                // NaN: the row's outputs are NaN
  x[6][0] = inf;                                // infinity: likewise
  x[7][36] = -inf;
  x[8] = at::arange(-18, 19, at::kFloat) * 0.5f;  // many ties: x * 127 / 9 lands on .5 nowhere, but ±9 at 127
  x[9] = at::full({37}, -127.0f);               // sx = 1: halves of a step, exactly
  x[9][0] = 0.5f;                               // rounds to 0 (ties to even)
  x[9][1] = 1.5f;                               // to 2
  x[9][2] = -2.5f;                              // to -2
  x[10] = at::randn({37}).sign() * 127.0f;      // ±max everywhere
  at::Tensor w = at::randn({50, 37}) * 0.1;
  w[3].zero_();                                 // a zero weight row: sw = 0
  w[4] = at::randn({37}) * 1e20;
  w[5].fill_(-2.0f);
  const at::Tensor b = at::randn({50});
  const at::Tensor reference = int8_linear_reference(x, w, b);
  for (const std::string& kernel : int8_kernels()) expect_identical(int8_linear(x, w, b, kernel), reference, kernel);
  for (const std::int64_t row : {5, 6, 7}) EXPECT_TRUE(reference[row].isnan().all().item<bool>()) << row;
  EXPECT_TRUE(reference[0].equal(b)) << "a zero row gives the bias";
  EXPECT_TRUE(reference[4].equal(b)) << "a negligible row is quantized as zeros";
  EXPECT_TRUE(reference.select(1, 3).slice(0, 8).equal(b[3].expand({6}))) << "a zero weight row gives its bias";
  EXPECT_FALSE(reference.slice(0, 8).isnan().any().item<bool>());
}

// The vector quantization of the input rows (every x86 kernel but the portable one) against the
// scalar definition, byte for byte, with and without VNNI's shifted bytes: every length from 1 to 40
// (the 8-wide loop and its tail), the maximum in the tail, signed zeros, NaN and infinities in either
// part, negligible rows, and a buffer reused from a longer call.
TEST(Int8Linear, TheVectorQuantizationIsTheScalarOneByteForByte) {
  const std::vector<std::string> kernels = int8_kernels();
  if (std::find(kernels.begin(), kernels.end(), "avx2") == kernels.end()) GTEST_SKIP() << "no AVX2 on this CPU";
  at::manual_seed(23);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  int8::Int8Rows scalar, vector;
  const auto expect_same = [&](const at::Tensor& x, bool with_unsigned, const std::string& what) {
    const std::int64_t rows = x.size(0), in = x.size(1);
    int8::quantize_rows(x.data_ptr<float>(), rows, in, with_unsigned, scalar);
    int8::quantize_rows_avx2(x.data_ptr<float>(), rows, in, with_unsigned, vector);
    ASSERT_EQ(vector.rows, scalar.rows) << what;
    ASSERT_EQ(vector.stride, scalar.stride) << what;
    const auto size = static_cast<std::size_t>(rows * scalar.stride);
    EXPECT_TRUE(std::equal(scalar.values.begin(), scalar.values.begin() + size, vector.values.begin())) << what;
    if (with_unsigned) {
      EXPECT_TRUE(std::equal(scalar.unsigned_values.begin(), scalar.unsigned_values.begin() + size,
                             vector.unsigned_values.begin()))
          << what;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const auto i = static_cast<std::size_t>(r);
      EXPECT_EQ(vector.invalid[i], scalar.invalid[i]) << what << ", row " << r;
      EXPECT_EQ(std::memcmp(&vector.scales[i], &scalar.scales[i], sizeof(float)), 0)
          << what << ", row " << r << ": " << vector.scales[i] << " vs " << scalar.scales[i];
    }
  };
  for (const bool with_unsigned : {false, true}) {
    for (std::int64_t in = 1; in <= 40; ++in) {
      at::Tensor x = at::randn({12, in});
      x[1].zero_();
      x[2] = -x[2].abs() * 0.0f;                        // negative zeros
      x[3][in - 1] = 50.0f;                             // the maximum in the tail (or the vector part)
      x[4][0] = nan;
      x[5][in - 1] = -inf;
      x[6] *= 1e-38f;                                   // negligible: zeros
      x[7] = at::arange(in, at::kFloat) - static_cast<float>(in) / 2;  // halves of a step: ties
      x[8].fill_(-3.0f);                                // every value the maximum
      x[9] *= 3e38f / x[9].abs().max().item<float>();   // the largest finite magnitudes
      x[10][in / 2] = inf;
      x[11] = at::randn({in}) * 1e-30f;
      expect_same(x, with_unsigned, std::to_string(in) + " columns" + (with_unsigned ? ", unsigned" : ""));
    }
  }
  // A buffer that held a longer call's rows: every byte is written again.
  expect_same(at::randn({30, 45}), true, "30 x 45");
  expect_same(at::randn({3, 9}), true, "3 x 9 after 30 x 45");
}

TEST(Int8Linear, OneValueByHand) {
  c10::NoGradGuard no_grad;
  // x = [1, -0.5]: sx = 1/127, qx = [127, round(-63.5) = -64] (ties to even). W = [[0.25, 1]]:
  // sw = 1/127, qw = [round(31.75) = 32, 127]. acc = 127 * 32 - 64 * 127 = -4064.
  const at::Tensor x = at::tensor({1.0f, -0.5f}).view({1, 2}), w = at::tensor({0.25f, 1.0f}).view({1, 2});
  const float expected = -4064.0f * ((1.0f / 127.0f) * (1.0f / 127.0f)) + 0.5f;
  for (const std::string& kernel : int8_kernels()) {
    EXPECT_EQ(int8_linear(x, w, at::tensor({0.5f}), kernel).item<float>(), expected) << kernel;
  }
  EXPECT_NEAR(expected, 0.25f, 0.002f);  // the float product is 0.25 - 0.5 + 0.5 = 0.25
}

TEST(Int8Linear, ARowGetsTheSameBitsAloneAndAnywhereInAnyBatch) {
  c10::NoGradGuard no_grad;
  at::manual_seed(23);
  const at::Tensor w = at::randn({4000, 256}) * 0.1, b = at::randn({4000});
  const at::Tensor batch = at::randn({50, 256}) * at::rand({50, 1}) * 10;  // rows of very different scales
  for (const std::string& kernel : int8_kernels()) {
    const at::Tensor all = int8_linear(batch, w, b, kernel);
    for (const std::int64_t row : {0, 3, 4, 11, 12, 49}) {
      expect_identical(int8_linear(batch.slice(0, row, row + 1), w, b, kernel), all.slice(0, row, row + 1),
                       kernel + ": row " + std::to_string(row) + " alone");
      for (std::int64_t at_position = 0; at_position < 13; at_position += 3) {
        at::Tensor other = batch.slice(0, 20, 33).clone();
        other[at_position] = batch[row];
        expect_identical(int8_linear(other, w, b, kernel)[at_position], all[row],
                         kernel + ": row " + std::to_string(row) + " at " + std::to_string(at_position));
      }
    }
  }
}

TEST(Int8Linear, ThreadsTakePanelsAndChangeNoBit) {
  c10::NoGradGuard no_grad;
  at::manual_seed(27);
  // Three chunks of rows (192, 192, 17), each quantized by every thread for its own panels.
  const at::Tensor x = at::randn({401, 256}), w = at::randn({1000, 256}), b = at::randn({1000});
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const at::Tensor one = int8_linear(x, w, b, int8_kernel());
  at::set_num_threads(4);
  const at::Tensor four = int8_linear(x, w, b, int8_kernel());
  at::set_num_threads(threads);
  expect_identical(four, one, "4 threads against 1");
}

TEST(Int8Linear, ScalesArePerRowOfTheInputAndOfTheWeight) {
  c10::NoGradGuard no_grad;
  at::manual_seed(24);
  const at::Tensor x = at::randn({6, 40}), w = at::randn({20, 40});
  const at::Tensor y = int8_linear_reference(x, w);
  // A power of two on one row of x (or of W) scales that row's (column's) outputs exactly and no others.
  at::Tensor x2 = x.clone();
  x2[2] *= 1024.0f;
  at::Tensor expected = y.clone();
  expected[2] *= 1024.0f;
  expect_identical(int8_linear_reference(x2, w), expected, "x row 2 times 1024");
  at::Tensor w2 = w.clone();
  w2[7] *= 0.25f;
  expected = y.clone();
  expected.select(1, 7).mul_(0.25f);
  expect_identical(int8_linear_reference(x, w2), expected, "W row 7 times 1/4");
}

TEST(Int8Linear, IsTheFloatProductWithinQuantizationError) {
  c10::NoGradGuard no_grad;
  at::manual_seed(25);
  const at::Tensor x = at::randn({64, 256}), w = at::randn({500, 256}) * 0.1, b = at::randn({500});
  const at::Tensor exact = at::linear(x.to(at::kDouble), w.to(at::kDouble), b.to(at::kDouble));
  const at::Tensor error = (int8_linear_reference(x, w, b).to(at::kDouble) - exact).abs();
  // Per output, |error| <= sum_k (|x_k| |dw_k| + |w_k| |dx_k| + |dx_k dw_k|) with |dx_k| <= sx / 2 and
  // |dw_k| <= sw / 2, plus float rounding: the bound, computed, and the typical size.
  const at::Tensor sx = x.abs().amax(1, true).to(at::kDouble) / 127, sw = w.abs().amax(1).to(at::kDouble) / 127;
  const at::Tensor bound = (at::matmul(x.abs().to(at::kDouble), at::ones({256, 500}, at::kDouble)) * sw / 2 +
                            at::matmul(at::ones({64, 256}, at::kDouble), w.abs().t().to(at::kDouble)) * sx / 2 +
                            256 * sx * sw / 4) * 1.0001 + 1e-5;
  EXPECT_TRUE(error.le(bound).all().item<bool>()) << "worst error over bound " << (error / bound).max().item<double>();
  EXPECT_LT(error.mean().item<double>() / exact.abs().mean().item<double>(), 0.01);
}

TEST(Int8Linear, PackedLinearRunsItForFloatOnTheCpuOnly) {
  at::manual_seed(26);
  const at::Tensor w = at::randn({33, 20}), b = at::randn({33}), x = at::randn({2, 3, 20});
  const PackedLinear int8(w, b, c10::Device(c10::kCPU), Precision::int8), float32(w, b, c10::Device(c10::kCPU));
  EXPECT_EQ(int8.precision(), Precision::int8);
  EXPECT_EQ(float32.precision(), Precision::float32);
  {
    c10::NoGradGuard no_grad;
    const at::Tensor y = int8(x);
    ASSERT_EQ(y.sizes(), (std::vector<std::int64_t>{2, 3, 33}));
    expect_identical(y.view({6, 33}), int8_linear_reference(x.view({6, 20}), w, b), "PackedLinear int8");
  }
  // It keeps no float weights (their bytes are what int8 saves), so what needs them is refused:
  // autograd and double input.
  EXPECT_FALSE(int8.weight().defined());
  EXPECT_FALSE(int8.bias().defined());
  EXPECT_TRUE(int8.defined());
  EXPECT_THROW(int8(x.clone().requires_grad_(true)), c10::Error);
  {
    c10::NoGradGuard no_grad;
    EXPECT_THROW(int8(x.to(at::kDouble)), c10::Error);
  }
  // A double weight stays float: nothing to quantize.
  EXPECT_EQ(PackedLinear(w.to(at::kDouble), b.to(at::kDouble), c10::Device(c10::kCPU), Precision::int8).precision(),
            Precision::float32);
}

// A shortlist's rows: selected from the quantized weight, they are the bytes, scales, biases and
// corrections that quantizing the float rows gives (per-row scales make it exact), in any order and
// with repeats, across panels; and the product of the selection is those columns of the whole one.
TEST(Int8Linear, SelectedRowsAreTheRowsQuantized) {
  c10::NoGradGuard no_grad;
  at::manual_seed(27);
  const at::Tensor w = at::randn({53, 23}), b = at::randn({53});
  const at::Tensor ids = at::tensor(std::vector<std::int64_t>{52, 0, 17, 17, 31, 16, 15, 48, 1, 33, 2, 5, 7, 11, 13,
                                                              19, 23, 29, 3},
                                    at::kLong);
  const auto whole = quantize_for_int8(w, b);
  const auto selected = select_int8_rows(*whole, ids);
  const auto direct = quantize_for_int8(w.index_select(0, ids), b.index_select(0, ids));
  ASSERT_EQ(selected->out, 19);
  ASSERT_EQ(selected->panels, direct->panels);
  ASSERT_EQ(selected->groups, direct->groups);
  EXPECT_TRUE(at::equal(selected->data, direct->data));
  EXPECT_EQ(selected->scales, direct->scales);
  EXPECT_EQ(selected->bias, direct->bias);
  EXPECT_EQ(selected->shift, direct->shift);

  const at::Tensor x = at::randn({7, 23});
  const PackedLinear int8(w, b, c10::Device(c10::kCPU), Precision::int8);
  const PackedLinear float32(w, b, c10::Device(c10::kCPU));
  expect_identical(int8.rows(ids)(x), int8(x).index_select(1, ids), "int8 rows");
  expect_identical(float32.rows(ids)(x), float32(x).index_select(1, ids), "float32 rows");
  EXPECT_EQ(int8.rows(ids).precision(), Precision::int8);
  try {
    select_int8_rows(*whole, at::tensor(std::vector<std::int64_t>{3, 53}, at::kLong));
    ADD_FAILURE() << "row 53 of 53 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "int8 rows: row 53 is outside the weight's 53 rows");
  }
}

TEST(Int8Linear, RefusesWhatItCannotSumExactlyAndNamesBadPrecisions) {
  c10::NoGradGuard no_grad;
  try {
    PackedLinear(at::zeros({1, 65537}), at::Tensor(), c10::Device(c10::kCPU), Precision::int8);
    ADD_FAILURE() << "65,537 inputs were accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "int8 products take at most 65536 inputs, and this layer has 65537 (use --precision float32)");
  }
  EXPECT_EQ(parse_enum<Precision>("int8"), Precision::int8);
  EXPECT_EQ(parse_enum<Precision>("float32"), Precision::float32);
  EXPECT_EQ(name_of(Precision::int8), "int8");
  try {
    parse_enum<Precision>("fp16");
    ADD_FAILURE() << "fp16 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "unknown precision 'fp16' (expected float32 or int8)");
  }
}

}  // namespace
}  // namespace nmt::int8_linear_test
