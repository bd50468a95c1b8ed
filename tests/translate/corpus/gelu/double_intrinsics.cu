// GELU computed in double through the double intrinsics (__dmul_rn, __dadd_rn, __fma_rn, __double2float_rn) and a
// double erf, as code that wants the extra precision writes it: the port narrows every double to float (Metal has
// none), which the task's float tolerance allows.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void gelu_double_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double v = (double)x[i];
  const double e = erf(__dmul_rn(v, 0.70710678118654752440));
  y[i] = __double2float_rn(__fma_rn(__dmul_rn(0.5, v), e, __dmul_rn(0.5, v)));
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int block = 256;
  gelu_double_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(x, y, (int)n);
}
