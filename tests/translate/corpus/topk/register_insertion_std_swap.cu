// Top-4 per row: per-thread sorted registers kept by insertion with std::swap through a float (&)[K]
// parameter, merged by a warp butterfly; std::numeric_limits<float>::infinity().
#include <cuda_runtime.h>
#include <stdint.h>
#include <utility>
#include <limits>

constexpr int K = 4;

__device__ __forceinline__ void insert_sorted(float (&top)[K], float v) {
  if (v <= top[K - 1]) return;
  top[K - 1] = v;
#pragma unroll
  for (int i = K - 1; i > 0; --i)
    if (top[i] > top[i - 1]) std::swap(top[i], top[i - 1]);
}

__global__ void topk_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* xr = x + (size_t)blockIdx.x * cols;
  float top[K];
#pragma unroll
  for (int i = 0; i < K; ++i) top[i] = -std::numeric_limits<float>::infinity();
  for (int c = threadIdx.x; c < cols; c += 32) insert_sorted(top, xr[c]);
  for (int mask = 16; mask > 0; mask >>= 1) {
    float other[K];
#pragma unroll
    for (int i = 0; i < K; ++i) other[i] = __shfl_xor_sync(0xffffffffu, top[i], mask);
#pragma unroll
    for (int i = 0; i < K; ++i) insert_sorted(top, other[i]);
  }
  if (threadIdx.x == 0)
    for (int i = 0; i < K; ++i) y[(size_t)blockIdx.x * K + i] = top[i];
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  topk_rows<<<rows, 32, 0, stream>>>(x, y, cols);
}
