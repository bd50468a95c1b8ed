// Untranslatable: cub::BlockReduce of a struct (line 19): the Metal collective shuffles values, and Metal's
// SIMD-group shuffles take scalars and vectors only.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

struct SumCount {
  float sum;
  int count;
};
struct Merge {
  __device__ SumCount operator()(const SumCount& a, const SumCount& b) const { return {a.sum + b.sum, a.count + b.count}; }
};

__global__ void mean_rows(const float* x, float* y, int cols) {
  typedef cub::BlockReduce<SumCount, 128> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  SumCount v{threadIdx.x < cols ? x[blockIdx.x * cols + threadIdx.x] : 0.f, 1};
  const SumCount s = BlockReduce(temp).Reduce(v, Merge());
  if (threadIdx.x == 0) y[blockIdx.x] = s.sum * float(cols) / float(s.count);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  mean_rows<<<rows, 128, 0, stream>>>(x, y, cols);
}
