// One block per row: extern __shared__ sized by the launch's third argument, __syncthreads tree
// reductions for the max and the sum, __expf, fmaxf and __fdividef.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float red[];
  const float* row = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float total = red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = __fdividef(__expf(row[c] - m), total);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  softmax_rows<<<rows, threads, threads * sizeof(float), stream>>>(x, y, (int)cols);
}
