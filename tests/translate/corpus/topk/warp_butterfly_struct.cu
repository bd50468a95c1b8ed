// topk: a warp per row (blockDim 32 x 8), each lane keeping its 4 largest values sorted in a struct's register
// array (insertion with a while loop), then a __shfl_xor_sync butterfly merging every lane's list with its
// partner's; range-based for loops over the register arrays, std::numeric_limits<float>::lowest().
#include <cuda_runtime.h>
#include <limits>
#include <stdint.h>

template <int K>
struct TopList {
  float v[K];

  __device__ __forceinline__ void clear() {
    for (float& e : v) e = std::numeric_limits<float>::lowest();
  }

  __device__ __forceinline__ void push(float x) {
    if (x <= v[K - 1]) return;
    int i = K - 1;
    while (i > 0 && v[i - 1] < x) {
      v[i] = v[i - 1];
      --i;
    }
    v[i] = x;
  }
};

template <int K, int kWarps>
__global__ void __launch_bounds__(32 * kWarps) topk_butterfly(const float* __restrict__ x, float* __restrict__ y,
                                                              int rows, int cols) {
  const int row = blockIdx.x * kWarps + threadIdx.y;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  TopList<K> list;
  list.clear();
  for (int c = threadIdx.x; c < cols; c += 32) list.push(xr[c]);
#pragma unroll
  for (int mask = 1; mask < 32; mask <<= 1) {
    float other[K];
#pragma unroll
    for (int i = 0; i < K; ++i) other[i] = __shfl_xor_sync(0xffffffffu, list.v[i], mask);
    for (const float o : other) list.push(o);
  }
  if (threadIdx.x < K) {
    float out = list.v[0];
#pragma unroll
    for (int i = 1; i < K; ++i)
      if (threadIdx.x == i) out = list.v[i];
    y[(size_t)row * K + threadIdx.x] = out;
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kWarps = 8;
  const dim3 block(32, kWarps);
  topk_butterfly<4, kWarps><<<(unsigned)((rows + kWarps - 1) / kWarps), block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
