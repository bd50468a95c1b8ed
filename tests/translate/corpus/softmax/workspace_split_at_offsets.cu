// Multi-kernel over one cudaMallocAsync workspace split into parts by local pointers at offsets (`maxes = ws`,
// `sums = ws + rows`, `inv_sums = &ws[2 * rows]`): each part a scratch buffer of its own, as MLX kernels write fresh
// arrays (the second kernel writes two parts, the third reads two).
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

__device__ float block_max(float v, float* partial) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = -FLT_MAX;
  for (int w = 0; w < (int)blockDim.x / 32; ++w) v = fmaxf(v, partial[w]);
  return v;
}

__device__ float block_sum(float v, float* partial) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = 0.f;
  for (int w = 0; w < (int)blockDim.x / 32; ++w) v += partial[w];
  return v;
}

__global__ void row_max(const float* __restrict__ x, float* __restrict__ maxes, int cols) {
  __shared__ float partial[8];
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[(int64_t)blockIdx.x * cols + c]);
  m = block_max(m, partial);
  if (threadIdx.x == 0) maxes[blockIdx.x] = m;
}

__global__ void row_sum(const float* __restrict__ x, const float* __restrict__ maxes, float* __restrict__ sums,
                        float* __restrict__ inv_sums, int cols) {
  __shared__ float partial[8];
  const float m = maxes[blockIdx.x];
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[(int64_t)blockIdx.x * cols + c] - m);
  s = block_sum(s, partial);
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s;
    inv_sums[blockIdx.x] = 1.f / s;
  }
}

__global__ void normalize(const float* __restrict__ x, const float* __restrict__ maxes, const float* __restrict__ inv_sums,
                          float* __restrict__ y, int64_t total, int cols) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = expf(x[i] - maxes[i / cols]) * inv_sums[i / cols];
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* ws = nullptr;
  cudaMallocAsync(&ws, 3 * rows * sizeof(float), stream);
  float* maxes = ws;
  float* sums = ws + rows;
  float* inv_sums = &ws[2 * rows];
  row_max<<<rows, 256, 0, stream>>>(x, maxes, (int)cols);
  row_sum<<<rows, 256, 0, stream>>>(x, maxes, sums, inv_sums, (int)cols);
  const int64_t total = rows * cols;
  normalize<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, maxes, inv_sums, y, total, (int)cols);
  cudaFreeAsync(ws, stream);
}
