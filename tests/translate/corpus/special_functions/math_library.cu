// CUDA's math library beyond the common functions: erfinvf, sinpif and cospif, fdimf, rhypotf, norm3df, ldexpf,
// modff and frexpf (results through pointers), rcbrtf, nearbyintf, lrintf, ilogbf; the bit intrinsics __sad,
// __funnelshift_l, __byte_perm and umin.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void special_functions_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float whole;
  const float fraction = modff(8.0f * v, &whole);
  y[i] = erfinvf(v) + sinpif(v) * cospif(v) + fdimf(v, 0.25f) + rhypotf(v, 0.5f) + norm3df(v, 1.0f, 2.0f) +
         ldexpf(v, 3) + fraction + rcbrtf(v + 2.0f) + nearbyintf(4.0f * v);
  int exponent;
  frexpf(v, &exponent);
  const unsigned bits = __float_as_uint(v);
  const int half = (int)lrintf(v * 64.0f);
  k[i] = (int)lrintf(v * 128.0f) + exponent + (int)__sad(half, 7, 1u) + ilogbf(v) +
         (int)(__funnelshift_l(bits, 0x12345678u, 8) & 0xffu) + (int)(__byte_perm(bits, 0xa1b2c3d4u, 0x5140u) & 0xffffu) +
         (int)umin(bits & 0xffu, 100u);
}

extern "C" void special_functions(const float* x, float* y, int* k, int64_t n, cudaStream_t stream) {
  const int block = 128;
  special_functions_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(x, y, k, (int)n);
}
