// Softmax with one exp per element, computed by a polynomial the compiler vectorizes (no libm call):
// exp(t) for t <= 0 as 2^n * p(r), t = n*ln2 + r, |r| <= ln2/2, relative error about 2e-7.
#include <cmath>
#include <cstdint>
#include <cstring>

static inline float exp_nonpositive(float t) {
  t = t < -87.0f ? -87.0f : t;
  const float n = std::nearbyint(t * 1.44269504f);
  const float r = t - n * 0.693147181f;
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      yr[c] = exp_nonpositive(xr[c] - m);
      sum += yr[c];
    }
    const float inv = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}
