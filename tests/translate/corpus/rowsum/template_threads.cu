// Block size as a template parameter sizing a shared array; #pragma unroll over a constexpr.
#include <cuda_runtime.h>
#include <stdint.h>

template <int THREADS>
__global__ void rowsum_tpl(const float* x, float* y, int cols) {
  __shared__ float buf[THREADS];
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += THREADS) s += x[blockIdx.x * cols + c];
  buf[threadIdx.x] = s;
  __syncthreads();
#pragma unroll
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = buf[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tpl<64><<<rows, 64, 0, stream>>>(x, y, cols);
}
