// A warp per row: each lane keeps its own top-K in a sorted register array (insertion with
// #pragma unroll), then K rounds of a warp-wide argmax by __shfl_xor_sync pick the winners; the
// winning lane pops its head. template <int K, int kWarps> with if constexpr and static_assert.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

template <int K>
__device__ __forceinline__ void insert_sorted(float (&top)[K], float v) {
  if (v <= top[K - 1]) return;
  int pos = K - 1;
#pragma unroll
  for (int i = K - 1; i > 0; --i) {
    if (top[i - 1] < v) {
      top[i] = top[i - 1];
      pos = i - 1;
    }
  }
  top[pos] = v;
}

template <int K, int kWarps>
__global__ void topk_warp(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  static_assert(K >= 1 && K <= 8, "registers per lane");
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarps + (threadIdx.x >> 5);
  if (row >= rows) return;
  float top[K];
#pragma unroll
  for (int i = 0; i < K; ++i) top[i] = -FLT_MAX;
  for (int c = lane; c < cols; c += 32) insert_sorted<K>(top, x[(int64_t)row * cols + c]);
  int head = 0;
  for (int k = 0; k < K; ++k) {
    const float mine = head < K ? top[head] : -FLT_MAX;
    float best = mine;
    int best_lane = lane;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const float other = __shfl_xor_sync(0xffffffffu, best, offset);
      const int other_lane = __shfl_xor_sync(0xffffffffu, best_lane, offset);
      if (other > best || (other == best && other_lane < best_lane)) {
        best = other;
        best_lane = other_lane;
      }
    }
    if constexpr (K > 1) {
      if (lane == best_lane) {
#pragma unroll
        for (int i = 0; i < K - 1; ++i)
          if (i >= head) top[i] = top[i + 1];
        top[K - 1] = -FLT_MAX;
      }
    } else {
      if (lane == best_lane) head = K;
    }
    if (lane == 0) y[(int64_t)row * K + k] = best;
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kWarps = 4;
  topk_warp<4, kWarps><<<(rows + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(x, y, (int)rows, (int)cols);
}
