// The public, testable faces of the scalar math (fast_math.h).
#include "nmt/kernels/fast_math.h"

#include "nmt/kernels/kernels.h"

namespace nmt {

using namespace kernel_math;

float fast_tanh(float x) { return tanh_float(x); }
float fast_sigmoid(float x) { return sigmoid_float(x); }
float fast_exp_nonpositive(float y) { return exp_nonpositive(y); }

}  // namespace nmt
