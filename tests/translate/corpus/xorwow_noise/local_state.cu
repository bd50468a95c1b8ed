// cuRAND's default generator as most kernels use it: a curandState in registers, initialized per element with its
// own subsequence, then uniform draws for a dropout mask, raw words, skips and normal draws.
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdint.h>

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { return (h << 5 | h >> 27) ^ v; }

__global__ void xorwow_noise_kernel(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ normals,
                                    int* __restrict__ bits, int n, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState state;
  curand_init(seed * 0x9E3779B97F4A7C15ull, i, i % 7, &state);
  const float u = curand_uniform(&state);
  y[i] = u > 0.3f ? x[i] * (1.0f / 0.7f) : 0.0f;
  unsigned h = mix(0u, __float_as_uint(u));
  for (int k = 0; k < 3; ++k) h = mix(h, curand(&state));
  h = mix(h, __float_as_uint(curand_uniform(&state)));
  skipahead((1ull << 34) + 5, &state);
  h = mix(h, curand(&state));
  skipahead_sequence(7, &state);
  h = mix(h, curand(&state));
  float sum = curand_normal(&state);
  sum += curand_normal(&state);
  sum += curand_normal(&state);
  const float2 n2 = curand_normal2(&state);
  sum += n2.x + n2.y;
  sum += curand_log_normal(&state, 0.1f, 0.5f) + curand_log_normal(&state, 0.1f, 0.5f);
  const float2 l2 = curand_log_normal2(&state, 0.1f, 0.5f);
  sum += l2.x + l2.y;
  h = mix(h, curand(&state));
  normals[i] = sum;
  bits[i] = (int)h;
}

extern "C" void xorwow_noise(const float* x, float* y, float* normals, int* bits, int64_t n, int64_t seed,
                             cudaStream_t stream) {
  const int block = 128;
  const unsigned grid = (unsigned)((n + block - 1) / block);
  xorwow_noise_kernel<<<grid, block, 0, stream>>>(x, y, normals, bits, (int)n, (unsigned long long)seed);
}
