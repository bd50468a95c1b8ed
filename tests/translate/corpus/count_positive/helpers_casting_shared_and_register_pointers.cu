// Positives of a row counted through __device__ helpers that cast their pointer parameters, which the calls give
// into shared memory and a register array: an atomicAdd on a shared counter through a helper (NVIDIA's
// atomicAggInc shape), a C-style cast and a reinterpret_cast of the shared staging array, a helper returning a
// pointer into it, and a float4 store into a register array. Each cast keeps the space the calls give (the
// helpers' pointer types are template parameters; a cast names a space).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ void bump(int* counter, int by) { atomicAdd(counter, by); }
__device__ float* slot(float* base, int i) { return base + 4 * i; }
__device__ float pair_sum(const float* buf, int i) {
  const float2* pairs = reinterpret_cast<const float2*>(buf);
  return pairs[i].x + pairs[i].y;
}
__device__ void zero(float* buf, int n) {
  float* p = (float*)buf;
  for (int i = 0; i < n; ++i) p[i] = 0.0f;
}
__device__ void store4(float* dst, float4 v) { *reinterpret_cast<float4*>(dst) = v; }
__device__ void stage4(float* dst, float a, float b) { reinterpret_cast<float2*>(dst)[0] = make_float2(a, b); }

__global__ void count_through_helpers(const float* x, int* y, int cols) {
  __shared__ int count;
  __shared__ float4 staging[64];  // float4 elements: 16-byte aligned for the float2 stores
  float* stage = reinterpret_cast<float*>(staging);
  if (threadIdx.x == 0) count = 0;
  zero(slot(stage, threadIdx.x), 4);
  __syncthreads();
  const float* row = x + (int64_t)blockIdx.x * cols;
  float flags[4];
  int mine = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) mine += row[c] > 0.0f;
  store4(flags, make_float4(float(mine), 0.0f, 0.0f, 0.0f));
  stage4(slot(stage, threadIdx.x), flags[0], flags[1]);
  bump(&count, int(pair_sum(slot(stage, threadIdx.x), 0)));
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = count;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_through_helpers<<<(unsigned)rows, 64, 0, stream>>>(x, y, (int)cols);
}
