// Untranslatable: a launcher that calls another launcher (line 19, the inner one defined at line 14); launchers are
// followed one level below the entry.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[(int64_t)r * cols + c];
  y[r] = s;
}

static void launch_inner(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  rowsum_k<<<(rows + 63) / 64, 64, 0, stream>>>(x, y, rows, cols);
}

static void launch_outer(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  launch_inner(x, y, rows, cols, stream);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_outer(x, y, (int)rows, (int)cols, stream);
}
