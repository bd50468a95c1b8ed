#pragma once
// Online (max, sum of exp) accumulation and its warp and block merges, shared by the softmax families.
// block_merge uses THREADS.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

// Merges another (max, sum of exp(x - max)) pair into (m, s).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  if (m2 == -INFINITY) return;
  if (m == -INFINITY) { m = m2; s = s2; return; }
  const float mn = fmaxf(m, m2);
  s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
  m = mn;
}

__device__ __forceinline__ void add(float& m, float& s, float v) {
  if (v > m) { s *= __expf(m - v); m = v; }
  s += __expf(v - m);
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
    merge(m, s, m2, s2);
  }
}

// Block-wide (max, sum) for THREADS threads; every thread gets the result.
__device__ __forceinline__ void block_merge(float& m, float& s) {
  __shared__ float sm[32], ss[32];
  warp_merge(m, s);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { sm[warp] = m; ss[warp] = s; }
  __syncthreads();
  m = lane < THREADS / 32 ? sm[lane] : -INFINITY;
  s = lane < THREADS / 32 ? ss[lane] : 0.0f;
  warp_merge(m, s);
}
