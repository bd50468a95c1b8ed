// A static method of a class template as the launcher (`Rowsum<256>::run(...)`): the class's parameter in the launch and
// through a static constexpr member (`kThreads = BLOCK`); the struct in the header keeps no host method.
#include <cuda_runtime.h>
#include <cstdint>

template <int BLOCK>
__global__ void rowsum_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[BLOCK];
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += BLOCK) s += x[blockIdx.x * cols + i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

template <int BLOCK>
struct Rowsum {
  static constexpr int kThreads = BLOCK;
  static void run(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
    rowsum_block<kThreads><<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
  }
};

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols > 256) Rowsum<256>::run(x, y, rows, cols, stream);
  else Rowsum<64>::run(x, y, rows, cols, stream);
}
