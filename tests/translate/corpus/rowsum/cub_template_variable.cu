// NVIDIA's samples' spelling: cub::BlockReduce written out (no typedef) over the kernel's own type parameter, its
// TempStorage `typename cub::BlockReduce<T, kThreads>::TempStorage`, a named collective `reduce(temp)` (in a template
// its initializer is an argument list, no call, until instantiation), 64 threads.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T, int kThreads>
__global__ void rowsum_direct(const T* x, T* y, int cols) {
  __shared__ typename cub::BlockReduce<T, kThreads>::TempStorage temp;
  T v = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) v += x[blockIdx.x * cols + c];
  cub::BlockReduce<T, kThreads> reduce(temp);
  const T s = reduce.Sum(v);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_direct<float, 64><<<rows, 64, 0, stream>>>(x, y, cols);
}
