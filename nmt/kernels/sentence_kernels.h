// One row at a time, by scalar type: float runs the best build of row_kernels.h that the CPU
// supports (chosen once), double the portable template. Internal to nmt/kernels.
#pragma once

#include <cstdint>

namespace nmt {

void forward_sentence(const float* q, const float* k, const float* v, float* e, float* t, std::int64_t src_len, std::int64_t size);
void forward_sentence(const double* q, const double* k, const double* v, double* e, double* t, std::int64_t src_len, std::int64_t size);
// Keys and memories in T, or positions in int8 with one scale each (kernels.h, "int8 positions");
// `scales` [src_len] is nullptr for T positions.
void dot_sentence(const float* q, const float* k, const float* scales, float* e, std::int64_t src_len, std::int64_t size);
void dot_sentence(const double* q, const double* k, const double* scales, double* e, std::int64_t src_len, std::int64_t size);
void dot_sentence(const float* q, const std::int8_t* k, const float* scales, float* e, std::int64_t src_len, std::int64_t size);
void context_sentence(const float* w, const float* m, const float* scales, float* c, std::int64_t src_len, std::int64_t size);
void context_sentence(const double* w, const double* m, const double* scales, double* c, std::int64_t src_len, std::int64_t size);
void context_sentence(const float* w, const std::int8_t* m, const float* scales, float* c, std::int64_t src_len, std::int64_t size);
void log_softmax_sentence(float* x, std::int64_t size);
void log_softmax_sentence(double* x, std::int64_t size);
// log_softmax_sentence's normaliser N (its values are x - N) and the largest of every kRankingBlock
// values (top_candidates.h; NaN ignored) in block_max [ceil(size / kRankingBlock)].
float log_softmax_normaliser_sentence(const float* x, std::int64_t size, float* block_max);
void best_of_log_softmax_sentence(const float* x, std::int64_t size, float r, float& score, std::int64_t& id);
void gru_cell_sentence(const float* i, const float* g, const float* h, float* out, std::int64_t size);
void gru_cell_sentence(const double* i, const double* g, const double* h, double* out, std::int64_t size);
void tanh_sentence(const float* x, float* y, std::int64_t size);
void tanh_sentence(const double* x, double* y, std::int64_t size);
void softmax_sentence(const float* x, float* y, std::int64_t size);
void softmax_sentence(const double* x, double* y, std::int64_t size);
void backward_sentence(const float* t, const float* g, const float* v, float* dq, float* dk, float* dv, std::int64_t src_len, std::int64_t size);
void backward_sentence(const double* t, const double* g, const double* v, double* dq, double* dk, double* dv, std::int64_t src_len, std::int64_t size);

}  // namespace nmt
