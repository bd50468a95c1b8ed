// A row pointer without const taken from the input by `const_cast<float*>(x)` and only read: MLX binds the input
// read-only (in constant memory when it is small), so the cast keeps its space and const (`ks_ro_cast`); a write
// through it is an input write, which fails to compile.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_const_cast(const float* x, float* y, int cols) {
  float* row = const_cast<float*>(x) + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += row[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_const_cast<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
