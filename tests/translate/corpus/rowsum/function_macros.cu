// Function-like macros in the launch size (CEIL_DIV) and the body (IDX2), an object-like macro naming
// built-in variables (GTID): the port expands them where they are used.
#include <cuda_runtime.h>
#include <stdint.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define IDX2(r, c, ld) ((int64_t)(r) * (ld) + (c))
#define GTID (blockIdx.x * blockDim.x + threadIdx.x)
#define THREADS 128

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = GTID;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[IDX2(r, c, cols)];
  y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<<<CEIL_DIV(rows, THREADS), THREADS, 0, stream>>>(x, y, (int)rows, (int)cols);
}
