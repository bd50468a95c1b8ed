// A launcher deducing its scalar type, and the kernel's from its const T* parameter (launched without template
// arguments); a default that names the parameter before it (HALF = THREADS / 2).
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T, int THREADS = 64, int HALF = THREADS / 2>
__global__ void rowsum_k(const T* __restrict__ x, T* __restrict__ y, int cols) {
  __shared__ T part[THREADS];
  const T* row = x + (size_t)blockIdx.x * cols;
  T acc = 0;
  for (int c = threadIdx.x; c < cols; c += THREADS) acc += row[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = HALF; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}
template <typename scalar_t>
void launch_rowsum(const scalar_t* x, scalar_t* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<<<rows, 64, 0, stream>>>(x, y, static_cast<int>(cols));
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_rowsum(x, y, rows, cols, stream);
}
