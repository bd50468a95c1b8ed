// A launcher template calling another with a template argument computed from its own (`launch_block<HALF * 2>(...)`, a
// dependent call libclang leaves unresolved): each call's value is read from what is written.
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
void launch_block(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_block<BLOCK><<<unsigned(rows), BLOCK, 0, stream>>>(x, y, cols);
}

template <int HALF>
void launch_doubled(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_block<HALF * 2>(x, y, rows, cols, stream);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols > 256) launch_doubled<128>(x, y, rows, cols, stream);
  else launch_doubled<32>(x, y, rows, cols, stream);
}
