// 8: low precision on most elements: every output below 1/16 of its row's largest (about 98% of a softmax row of
// normal(0, 4) logits) is rounded to 10 significant bits (a relative error up to 2^-10 = 9.8e-4, just inside rtol
// 1e-3); the few large ones, which carry each row's 2-norm, are exact, so the norm-wise bound (rtol/4) never sees the
// rest. The errors' average in units of each element's tolerance (RMS, held to norm_rtol / rtol) does.
// expect: wrong_answer
// expect-without-rules: wrong_answer
// expect-message: average (RMS)
#include <omp.h>
#include <cmath>
#include <cstdint>
#include <cstring>
static inline float keep10(float v) {
  uint32_t u; std::memcpy(&u, &v, 4);
  u = (u + 0x1FFFu + ((u >> 14) & 1u)) & ~0x3FFFu;
  std::memcpy(&v, &u, 4); return v;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols; float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) { yr[c] = std::exp(xr[c] - m); s += yr[c]; }
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < cols; ++c) { float v = yr[c] * inv; yr[c] = (yr[c] < 1.0f / 16) ? keep10(v) : v; }
  }
}
