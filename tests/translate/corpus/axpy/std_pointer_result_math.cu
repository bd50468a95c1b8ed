// <cmath>'s std:: functions with a second result through a pointer, in device code: alpha * x split by std::frexp and
// put back by std::ldexp, w split by std::modf into its whole and fractional parts and summed again (both exact),
// std::remquo's quotient bits checked against the remainder they go with.
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void axpy_split(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int exponent = 0;
  const float mantissa = std::frexp(alpha * x[i], &exponent);
  float whole = 0.f;
  const float fraction = std::modf(w[i], &whole);
  int quotient = 0;
  const float rest = std::remquo(whole, 1.0f, &quotient);  // whole is integral: the remainder is 0
  y[i] = std::ldexp(mantissa, exponent) + (whole + fraction) + rest;
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_split<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
