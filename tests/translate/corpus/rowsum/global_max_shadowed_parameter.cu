// rowsum: PyTorch's MaxFloat style, `::max(max, v)` in a helper whose parameter is named max (the port writes
// metal::max there, which the parameter does not shadow), the row's maximum by a butterfly, then its sum.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float max_step(float max, float v) { return ::max(max, v); }

__global__ void rowmax_k(const float* x, float* y, int cols) {
  float m = -1e30f;
  for (int c = threadIdx.x; c < cols; c += 32) m = max_step(m, x[(int64_t)blockIdx.x * cols + c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;  // rowsum task: sum of x[c] - m + m, the max only exercised
  for (int c = threadIdx.x; c < cols; c += 32) s += (x[(int64_t)blockIdx.x * cols + c] - m) + m;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowmax_k<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
