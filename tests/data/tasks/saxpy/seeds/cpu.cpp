#include <cstdint>

extern "C" void saxpy(const float* x, const float* w, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i] + w[i];
}
