// Launchers two deep: the entry calls a launcher that picks the thread count and calls another launcher, which
// computes the block count from its parameters and launches (each call's arguments read through the calls above it).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[(int64_t)r * cols + c];
  y[r] = s;
}

static void launch_inner(const float* x, float* y, int rows, int cols, int threads, cudaStream_t stream) {
  const int blocks = (rows + threads - 1) / threads;
  rowsum_k<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}

static void launch_outer(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  const int threads = rows >= 256 ? 128 : 32;
  launch_inner(x, y, rows, cols, threads, stream);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_outer(x, y, (int)rows, (int)cols, stream);
}
