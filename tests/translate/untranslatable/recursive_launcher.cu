// Untranslatable: a launcher that calls itself (line 17) to split a large grid; how many launches it makes is known
// only at run time. Reported at the recursive call.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[(int64_t)r * cols + c];
  y[r] = s;
}

static void launch_rows(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  const int chunk = 65535 * 64;
  if (rows > chunk) {
    launch_rows(x, y, chunk, cols, stream);
    launch_rows(x + (int64_t)chunk * cols, y + chunk, rows - chunk, cols, stream);
    return;
  }
  rowsum_k<<<(rows + 63) / 64, 64, 0, stream>>>(x, y, rows, cols);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_rows(x, y, (int)rows, (int)cols, stream);
}
