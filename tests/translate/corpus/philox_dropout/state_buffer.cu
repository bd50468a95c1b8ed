// The same draws as local_state.cu in the style of cuRAND's examples: a setup kernel initializes a buffer of states
// the host allocated with cudaMallocAsync (one per element), the dropout kernel copies its state into registers and
// draws. (Storing it back for a later launch would be an in-place update across launches, which the port reports.)
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdint.h>

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { return (h << 5 | h >> 27) ^ v; }

__global__ void setup_states(curandStatePhilox4_32_10_t* states, int n, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) curand_init(seed * 0x9E3779B97F4A7C15ull, i, 3, &states[i]);
}

__global__ void philox_dropout_kernel(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ normals,
                                      int* __restrict__ bits, const curandStatePhilox4_32_10_t* states, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t state = states[i];
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
  const unsigned grid = (unsigned)((n + block - 1) / block);
  curandStatePhilox4_32_10_t* states = nullptr;
  cudaMallocAsync(&states, n * sizeof(curandStatePhilox4_32_10_t), stream);
  setup_states<<<grid, block, 0, stream>>>(states, (int)n, (unsigned long long)seed);
  philox_dropout_kernel<<<grid, block, 0, stream>>>(x, y, normals, bits, states, (int)n);
  cudaFreeAsync(states, stream);
}
