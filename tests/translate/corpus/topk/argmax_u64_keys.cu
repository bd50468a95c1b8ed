// topk: four rounds of a warp argmax over 64-bit keys (order-preserving float bits in the high word, the column in
// the low word) reduced by __shfl_xor_sync on unsigned long long; the lane holding the winner drops it from its
// register list, which stays sorted; a __device__ key encoder with __float_as_uint.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ unsigned ordered_bits(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ float from_ordered(unsigned u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

constexpr int K = 4;

__global__ void topk_keys(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int lane = threadIdx.x;
  const float* xr = x + (size_t)blockIdx.x * cols;
  // each lane keeps its own K best keys, largest first (0 = empty)
  unsigned long long best[K];
#pragma unroll
  for (int i = 0; i < K; ++i) best[i] = 0ull;
  for (int c = lane; c < cols; c += 32) {
    unsigned long long key = ((unsigned long long)ordered_bits(xr[c]) << 32) | (unsigned)c;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (key > best[i]) {
        const unsigned long long t = best[i];
        best[i] = key;
        key = t;
      }
    }
  }
  for (int round = 0; round < K; ++round) {
    unsigned long long m = best[0];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const unsigned long long other = __shfl_xor_sync(0xffffffffu, m, o);
      m = other > m ? other : m;
    }
    if (best[0] == m) {  // keys are unique (column in the low word): one lane pops
#pragma unroll
      for (int i = 0; i < K - 1; ++i) best[i] = best[i + 1];
      best[K - 1] = 0ull;
    }
    if (lane == 0) y[(size_t)blockIdx.x * K + round] = from_ordered((unsigned)(m >> 32));
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  topk_keys<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
