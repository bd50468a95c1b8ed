// cuRAND's Philox generator in a dropout kernel, a state per element in registers: curand_init(key, i, 3), a uniform
// draw for the mask, then every other draw of the device API (curand4 from a position inside a block, uniform4,
// skipahead past 2^34 words, skipahead_sequence, normal with its kept second value, normal2/4, log-normal), the
// words and uniform floats hashed (exact), the normal ones summed (a tolerance: the sine and cosine are fast ones).
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdint.h>

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { return (h << 5 | h >> 27) ^ v; }

__global__ void philox_dropout_kernel(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ normals,
                                      int* __restrict__ bits, int n, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t state;
  curand_init(seed * 0x9E3779B97F4A7C15ull, i, 3, &state);  // both key words in play
  const float u = curand_uniform(&state);
  y[i] = u > 0.3f ? x[i] * (1.0f / 0.7f) : 0.0f;
  unsigned h = mix(0u, __float_as_uint(u));
  const uint4 w = curand4(&state);
  h = mix(mix(mix(mix(h, w.x), w.y), w.z), w.w);
  const float4 q = curand_uniform4(&state);
  h = mix(mix(mix(mix(h, __float_as_uint(q.x)), __float_as_uint(q.y)), __float_as_uint(q.z)), __float_as_uint(q.w));
  h = mix(h, curand(&state));
  skipahead((1ull << 34) + 5, &state);
  h = mix(h, curand(&state));
  skipahead_sequence(7, &state);
  h = mix(h, curand(&state));
  float sum = curand_normal(&state);
  sum += curand_normal(&state);
  sum += curand_normal(&state);
  const float4 n4 = curand_normal4(&state);
  const float2 n2 = curand_normal2(&state);
  sum += n4.x + n4.y + n4.z + n4.w + n2.x + n2.y;
  sum += curand_log_normal(&state, 0.1f, 0.5f) + curand_log_normal(&state, 0.1f, 0.5f);
  h = mix(h, curand(&state));
  normals[i] = sum;
  bits[i] = (int)h;
}

extern "C" void philox_dropout(const float* x, float* y, float* normals, int* bits, int64_t n, int64_t seed,
                               cudaStream_t stream) {
  const int block = 128;
  philox_dropout_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(x, y, normals, bits, (int)n,
                                                                                  (unsigned long long)seed);
}
