#include "nmt/kernels/sentence_kernels.h"

#include "nmt/kernels/dispatch.h"
#include "nmt/kernels/row_kernels.h"

namespace nmt {

using namespace kernel_math;

namespace {

// The float kernels are compiled three times, for AVX-512, AVX2 + FMA and the x86-64 baseline, and
// the best one the CPU supports is chosen once at run time (the library itself is built for the
// baseline, so that it runs everywhere). Other architectures get the portable build only.
struct FloatKernels {
  void (*forward)(const float*, const float*, const float*, float*, float*, std::int64_t, std::int64_t);
  void (*forward_keep)(const float*, const float*, const float*, float*, float*, std::int64_t, std::int64_t);
  void (*backward)(const float*, const float*, const float*, float*, float*, float*, std::int64_t, std::int64_t);
  void (*dot)(const float*, const float*, const float*, float*, std::int64_t, std::int64_t);
  void (*context)(const float*, const float*, const float*, float*, std::int64_t, std::int64_t);
  void (*dot_int8)(const float*, const std::int8_t*, const float*, float*, std::int64_t, std::int64_t);
  void (*context_int8)(const float*, const std::int8_t*, const float*, float*, std::int64_t, std::int64_t);
  void (*log_softmax)(float*, std::int64_t);
  float (*normaliser)(const float*, std::int64_t, float*);
  void (*best_of_log_softmax)(const float*, std::int64_t, float, float&, std::int64_t&);
  void (*gru_cell)(const float*, const float*, const float*, float*, std::int64_t);
  void (*tanh)(const float*, float*, std::int64_t);
  void (*softmax)(const float*, float*, std::int64_t);
};

#define NMT_FLOAT_KERNELS(suffix, attribute)                                                                    \
  attribute void forward_##suffix(const float* q, const float* k, const float* v, float* e, float* t,          \
                                  std::int64_t s, std::int64_t n) {                                             \
    energy_rows<float, false>(q, k, v, e, t, s, n);                                                             \
  }                                                                                                             \
  attribute void forward_keep_##suffix(const float* q, const float* k, const float* v, float* e, float* t,     \
                                       std::int64_t s, std::int64_t n) {                                        \
    energy_rows<float, true>(q, k, v, e, t, s, n);                                                              \
  }                                                                                                             \
  attribute void backward_##suffix(const float* t, const float* g, const float* v, float* dq, float* dk,       \
                                   float* dv, std::int64_t s, std::int64_t n) {                                 \
    energy_rows_backward<float>(t, g, v, dq, dk, dv, s, n);                                                     \
  }                                                                                                             \
  attribute void dot_##suffix(const float* q, const float* k, const float* sc, float* e, std::int64_t s,        \
                              std::int64_t n) {                                                                 \
    dot_rows<float, float>(q, k, sc, e, s, n);                                                                  \
  }                                                                                                             \
  attribute void context_##suffix(const float* w, const float* m, const float* sc, float* c, std::int64_t s,    \
                                  std::int64_t n) {                                                             \
    context_rows<float, float>(w, m, sc, c, s, n);                                                              \
  }                                                                                                             \
  attribute void dot_int8_##suffix(const float* q, const std::int8_t* k, const float* sc, float* e,            \
                                   std::int64_t s, std::int64_t n) {                                            \
    dot_rows<float, std::int8_t>(q, k, sc, e, s, n);                                                            \
  }                                                                                                             \
  attribute void context_int8_##suffix(const float* w, const std::int8_t* m, const float* sc, float* c,        \
                                       std::int64_t s, std::int64_t n) {                                        \
    context_rows<float, std::int8_t>(w, m, sc, c, s, n);                                                        \
  }                                                                                                             \
  attribute void log_softmax_##suffix(float* x, std::int64_t n) { log_softmax_row<float>(x, n); }              \
  attribute float normaliser_##suffix(const float* x, std::int64_t n, float* block_max) {                       \
    return log_softmax_normaliser_by_block<float>(x, n, block_max);                                             \
  }                                                                                                             \
  attribute void best_of_log_softmax_##suffix(const float* x, std::int64_t n, float r, float& score,          \
                                              std::int64_t& id) {                                               \
    best_of_log_softmax_row<float>(x, n, r, score, id);                                                         \
  }                                                                                                             \
  attribute void gru_cell_##suffix(const float* i, const float* g, const float* h, float* out, std::int64_t n) { \
    gru_cell_row<float>(i, g, h, out, n);                                                                       \
  }                                                                                                             \
  attribute void tanh_##suffix(const float* x, float* y, std::int64_t n) { tanh_row<float>(x, y, n); }          \
  attribute void softmax_##suffix(const float* x, float* y, std::int64_t n) { softmax_row<float>(x, y, n); }

NMT_FLOAT_KERNELS(portable, )
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
NMT_FLOAT_KERNELS(avx2, __attribute__((target("avx2,fma"))))
NMT_FLOAT_KERNELS(avx512, __attribute__((target("avx512f,avx2,fma"))))
#endif

const FloatKernels& float_kernels() {
  static const FloatKernels kernels = [] {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    if (cpu_features().avx512f) {
      return FloatKernels{forward_avx512, forward_keep_avx512, backward_avx512, dot_avx512, context_avx512, dot_int8_avx512, context_int8_avx512,
                          log_softmax_avx512, normaliser_avx512, best_of_log_softmax_avx512, gru_cell_avx512, tanh_avx512, softmax_avx512};
    }
    if (cpu_features().avx2_fma) {
      return FloatKernels{forward_avx2, forward_keep_avx2, backward_avx2, dot_avx2, context_avx2, dot_int8_avx2, context_int8_avx2,
                          log_softmax_avx2, normaliser_avx2, best_of_log_softmax_avx2, gru_cell_avx2, tanh_avx2, softmax_avx2};
    }
#endif
    return FloatKernels{forward_portable, forward_keep_portable, backward_portable, dot_portable, context_portable, dot_int8_portable, context_int8_portable,
                       log_softmax_portable, normaliser_portable, best_of_log_softmax_portable, gru_cell_portable, tanh_portable, softmax_portable};
  }();
  return kernels;
}

}  // namespace

// One sentence, float (the dispatched kernels) or double (the portable template).
void forward_sentence(const float* q, const float* k, const float* v, float* e, float* t, std::int64_t src_len,
                      std::int64_t size) {
  const auto& kernels = float_kernels();
  (t != nullptr ? kernels.forward_keep : kernels.forward)(q, k, v, e, t, src_len, size);
}
void forward_sentence(const double* q, const double* k, const double* v, double* e, double* t, std::int64_t src_len,
                      std::int64_t size) {
  if (t != nullptr) {
    energy_rows<double, true>(q, k, v, e, t, src_len, size);
  } else {
    energy_rows<double, false>(q, k, v, e, t, src_len, size);
  }
}
void dot_sentence(const float* q, const float* k, const float* scales, float* e, std::int64_t src_len,
                  std::int64_t size) {
  float_kernels().dot(q, k, scales, e, src_len, size);
}
void dot_sentence(const double* q, const double* k, const double* scales, double* e, std::int64_t src_len,
                  std::int64_t size) {
  dot_rows<double, double>(q, k, scales, e, src_len, size);
}
void dot_sentence(const float* q, const std::int8_t* k, const float* scales, float* e, std::int64_t src_len,
                  std::int64_t size) {
  float_kernels().dot_int8(q, k, scales, e, src_len, size);
}
void context_sentence(const float* w, const float* m, const float* scales, float* c, std::int64_t src_len,
                      std::int64_t size) {
  float_kernels().context(w, m, scales, c, src_len, size);
}
void context_sentence(const double* w, const double* m, const double* scales, double* c, std::int64_t src_len,
                      std::int64_t size) {
  context_rows<double, double>(w, m, scales, c, src_len, size);
}
void context_sentence(const float* w, const std::int8_t* m, const float* scales, float* c, std::int64_t src_len,
                      std::int64_t size) {
  float_kernels().context_int8(w, m, scales, c, src_len, size);
}
void log_softmax_sentence(float* x, std::int64_t size) { float_kernels().log_softmax(x, size); }
void log_softmax_sentence(double* x, std::int64_t size) { log_softmax_row<double>(x, size); }
float log_softmax_normaliser_sentence(const float* x, std::int64_t size, float* block_max) {
  return float_kernels().normaliser(x, size, block_max);
}
void best_of_log_softmax_sentence(const float* x, std::int64_t size, float r, float& score, std::int64_t& id) {
  float_kernels().best_of_log_softmax(x, size, r, score, id);
}
void gru_cell_sentence(const float* i, const float* g, const float* h, float* out, std::int64_t size) {
  float_kernels().gru_cell(i, g, h, out, size);
}
void gru_cell_sentence(const double* i, const double* g, const double* h, double* out, std::int64_t size) {
  gru_cell_row<double>(i, g, h, out, size);
}
void tanh_sentence(const float* x, float* y, std::int64_t size) { float_kernels().tanh(x, y, size); }
void tanh_sentence(const double* x, double* y, std::int64_t size) { tanh_row<double>(x, y, size); }
void softmax_sentence(const float* x, float* y, std::int64_t size) { float_kernels().softmax(x, y, size); }
void softmax_sentence(const double* x, double* y, std::int64_t size) { softmax_row<double>(x, y, size); }
void backward_sentence(const float* t, const float* g, const float* v, float* dq, float* dk, float* dv,
                       std::int64_t src_len, std::int64_t size) {
  float_kernels().backward(t, g, v, dq, dk, dv, src_len, size);
}
void backward_sentence(const double* t, const double* g, const double* v, double* dq, double* dk, double* dv,
                       std::int64_t src_len, std::int64_t size) {
  energy_rows_backward<double>(t, g, v, dq, dk, dv, src_len, size);
}

}  // namespace nmt
