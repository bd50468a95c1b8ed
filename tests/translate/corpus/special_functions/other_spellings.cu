// The same values through other spellings: sincospif, scalbnf, llrintf, rnorm3df inverted, norm4df with a zero,
// __usad, __funnelshift_lc (a count past 32 clamped) and __funnelshift_r, frexp/modf's double-named float overloads,
// ullmin; the reciprocal cube root as a power.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ unsigned low_byte_of_left_shift(unsigned bits) {
  // (hi:lo << 8) >> 32 as a right funnel shift by 24, and the clamped left shift by 40 is lo itself
  return (__funnelshift_r(bits, 0x12345678u, 24) & 0xffu) + (__funnelshift_lc(bits, 0u, 40) - bits);
}

__global__ void special_functions_kernel(const float* __restrict__ x, float* __restrict__ y, int* __restrict__ k, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float v = x[i];
    float s, c, whole;
    sincospif(v, &s, &c);
    const float fraction = modf(8.0f * v, &whole);
    y[i] = erfinvf(v) + s * c + fdimf(v, 0.25f) + 1.0f / sqrtf(v * v + 0.25f) + 1.0f / rnorm3df(v, 1.0f, 2.0f) +
           scalbnf(v, 3) + fraction + powf(v + 2.0f, -1.0f / 3.0f) + rintf(4.0f * v) + (norm4df(v, 1.0f, 2.0f, 0.0f) - norm3df(v, 1.0f, 2.0f));
    int exponent;
    frexp(v, &exponent);
    const unsigned bits = __float_as_uint(v);
    const int half = (int)llrintf(v * 64.0f);
    k[i] = (int)llrintf(v * 128.0f) + exponent + (int)__usad((unsigned)abs(half - 7), 0u, 1u) + ilogbf(v) +
           (int)low_byte_of_left_shift(bits) + (int)(__byte_perm(bits, 0xa1b2c3d4u, 0x5140u) & 0xffffu) +
           (int)ullmin(bits & 0xffu, 100ull);
  }
}

extern "C" void special_functions(const float* x, float* y, int* k, int64_t n, cudaStream_t stream) {
  special_functions_kernel<<<4, 64, 0, stream>>>(x, y, k, (int)n);
}
