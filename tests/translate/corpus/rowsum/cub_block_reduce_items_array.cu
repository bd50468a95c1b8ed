// CUB's BlockReduce over several items per thread: `Sum(items)` and `Reduce(items, op)` with a user functor (the array
// overloads: each thread's items reduced in order, then the block), alternating over a row's tiles; 80 threads (a
// partial last SIMD group), 3 items each, a `__syncthreads()` before TempStorage is reused.
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 80, kItems = 3;

struct AddFloat {
  __device__ float operator()(const float& a, const float& b) const { return a + b; }
};

__global__ void rowsum_cub_items(const float* __restrict__ x, float* __restrict__ y, int cols) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float* row = x + (int64_t)blockIdx.x * cols;
  float total = 0.f;
  for (int tile = 0, base = 0; base < cols; ++tile, base += kThreads * kItems) {
    float items[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = base + threadIdx.x * kItems + i;
      items[i] = c < cols ? row[c] : 0.f;
    }
    const float tile_sum = tile % 2 == 0 ? BlockReduce(temp).Sum(items) : BlockReduce(temp).Reduce(items, AddFloat());
    total += tile_sum;
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cub_items<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
