// const references bound to elements of the input (fewer than 8 elements: constant memory in MLX) and to registers,
// in a function and a function template called with explicit arguments.
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T>
__device__ __forceinline__ T max_of(const T& a, const T& b) { return a > b ? a : b; }
__device__ __forceinline__ float plus_of(const float& a, const float& b) { return a + b; }
__global__ void rowsum_fn(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float acc = 0.f, biggest = -3.0e38f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    acc = plus_of(acc, row[c]);
    biggest = max_of<float>(biggest, row[c]);
  }
  if (threadIdx.x == 0) y[blockIdx.x] = acc + 0.f * biggest;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_fn<<<rows, 1, 0, stream>>>(x, y, (int)cols);
}
