// Control: an honest softmax that calls a helper of its own named `write` (a libc name, declared by the
// candidate, so not libc's), with an `omp declare simd` exp2 helper and std::numbers. It must pass.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <numbers>

namespace {

#pragma omp declare simd notinbranch
inline float shifted_exp(float v, float m) { return std::exp2((v - m) * std::numbers::log2e_v<float>); }

inline void write(float* row, int64_t cols, float scale) {
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) row[c] *= scale;
}

}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float m = -INFINITY, sum = 0;
#pragma omp simd reduction(max : m)
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, in[c]);
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < cols; ++c) sum += (out[c] = shifted_exp(in[c], m));
    write(out, cols, 1.0f / sum);
  }
}
