// Untranslatable: two pointers declared in a for statement's initializer (line 10); a declarator
// after the first would need its own declaration (its own `auto`), which a for's initializer cannot hold.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (const float *p = x + (int64_t)r * cols, *end = p + cols; p < end; ++p) s += *p;
  y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<<<(rows + 127) / 128, 128, 0, stream>>>(x, y, (int)rows, (int)cols);
}
