// Untranslatable: a __device__ global array (line 6) that one kernel writes and a second reads; MLX
// kernels have no global state (a cudaMalloc scratch buffer is the translatable form).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float g_partial[4096];

__global__ void partial_sums(const float* x, int cols) {
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(int64_t)blockIdx.x * cols + c];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) g_partial[blockIdx.x] = s;
}

__global__ void copy_out(float* y, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) y[r] = g_partial[r];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  partial_sums<<<rows, 32, 0, stream>>>(x, (int)cols);
  copy_out<<<(rows + 63) / 64, 64, 0, stream>>>(y, (int)rows);
}
