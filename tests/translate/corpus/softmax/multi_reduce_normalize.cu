// Multi-kernel: a reduction kernel writes each row's max and sum of exponentials to a cudaMalloc'd
// scratch buffer, a second kernel normalizes with them (one block per row in both).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 128;

__global__ void row_stats(const float* __restrict__ x, float* __restrict__ stats, int cols) {
  __shared__ float red[kThreads];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(row[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    stats[2 * blockIdx.x] = m;
    stats[2 * blockIdx.x + 1] = red[0];
  }
}

__global__ void normalize(const float* __restrict__ x, const float* __restrict__ stats, float* __restrict__ y, int cols) {
  const float m = stats[2 * blockIdx.x], inv = 1.0f / stats[2 * blockIdx.x + 1];
  const int64_t base = (int64_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[base + c] = expf(x[base + c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* stats = nullptr;
  cudaMallocAsync(&stats, 2 * rows * sizeof(float), stream);
  row_stats<<<rows, kThreads, 0, stream>>>(x, stats, cols);
  normalize<<<rows, 256, 0, stream>>>(x, stats, y, cols);
  cudaFreeAsync(stats, stream);
}
