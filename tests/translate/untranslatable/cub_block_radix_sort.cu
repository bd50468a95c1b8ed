// Untranslatable: CUB's block radix sort (line 10), which the port does not rewrite (its block reductions it does).
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void sort_then_sum(const float* x, float* y, int cols) {
  typedef cub::BlockReduce<float, 128> BlockReduce;
  __shared__ typename BlockReduce::TempStorage reduce_temp;
  float keys[1] = {threadIdx.x < cols ? x[blockIdx.x * cols + threadIdx.x] : 0.f};
  typedef cub::BlockRadixSort<float, 128, 1> BlockRadixSort;
  __shared__ typename BlockRadixSort::TempStorage sort_temp;
  BlockRadixSort(sort_temp).Sort(keys);
  const float s = BlockReduce(reduce_temp).Sum(keys[0]);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  sort_then_sum<<<rows, 128, 0, stream>>>(x, y, cols);
}
