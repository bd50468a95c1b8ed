// Two kernels per launcher: a row statistics pass writing (max, sum of exp) pairs into a float2
// scratch buffer, then an elementwise kernel over the whole matrix reading its row's pair.
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

__global__ void row_stats(const float* __restrict__ x, float2* __restrict__ stats, int cols) {
  __shared__ float s_max[8], s_sum[8];
  const float* row = x + (size_t)blockIdx.x * cols;
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  if (threadIdx.x % 32 == 0) s_max[threadIdx.x / 32] = m;
  __syncthreads();
  m = s_max[0];
  for (int w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, s_max[w]);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  if (threadIdx.x % 32 == 0) s_sum[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < blockDim.x / 32; ++w) total += s_sum[w];
    stats[blockIdx.x] = make_float2(m, total);
  }
}

__global__ void normalize(const float* __restrict__ x, const float2* __restrict__ stats, float* __restrict__ y,
                          int64_t total, int cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)blockDim.x * gridDim.x) {
    const float2 st = stats[i / cols];
    y[i] = expf(x[i] - st.x) / st.y;
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float2* stats;
  cudaMalloc(&stats, rows * sizeof(float2));
  row_stats<<<(unsigned)rows, 256, 0, stream>>>(x, stats, (int)cols);
  const int64_t total = rows * cols;
  normalize<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(x, stats, y, total, (int)cols);
  cudaFree(stats);
}
