// Untranslatable: CUB's block reduction (line 9): its TempStorage and collective algorithms are a
// library of their own, not CUDA built-ins.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int kThreads>
__global__ void k_cub(const float* x, float* y, int cols) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += kThreads) v += x[blockIdx.x * cols + c];
  const float s = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_cub<128><<<rows, 128, 0, stream>>>(x, y, cols);
}
