// expect: wrong_answer: only the first row is written; the rest keeps the poison.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void first_row(const float* x, float* y, int64_t cols) {
  __shared__ float red[256];
  float m = -INFINITY, s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  red[threadIdx.x] = m; __syncthreads();
  if (threadIdx.x == 0) { for (int i = 1; i < blockDim.x; ++i) m = fmaxf(m, red[i]); red[0] = m; }
  __syncthreads(); m = red[0]; __syncthreads();
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
  red[threadIdx.x] = s; __syncthreads();
  if (threadIdx.x == 0) { for (int i = 1; i < blockDim.x; ++i) s += red[i]; red[0] = s; }
  __syncthreads(); s = red[0];
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_row<<<1, 256, 0, stream>>>(x, y, cols);
}
