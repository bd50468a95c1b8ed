// 8: computes in bfloat16 precision where the task asks for fp32.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstring>
static inline float to_bf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits &= 0xffff0000u;
  std::memcpy(&v, &bits, 4);
  return v;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s = to_bf16(s + to_bf16(std::exp(to_bf16(x[r * cols + c] - m))));
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = to_bf16(to_bf16(std::exp(x[r * cols + c] - m)) / s);
  }
}
