// softmax: __device__ helpers returning row pointers (const float* row_in(...), float* row_out(...)) and a helper
// advancing a pointer through a reference parameter (const float*& p), a warp per row.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ const float* row_in(const float* base, int row, int cols) { return base + (size_t)row * cols; }
__device__ __forceinline__ float* row_out(float* base, int row, int cols) { return base + (size_t)row * cols; }

// reads one element per lane and moves the pointer on by a warp's width
__device__ __forceinline__ float take(const float*& p, const float* end) {
  const float* q = p + threadIdx.x;
  p += 32;
  return q < end ? *q : -INFINITY;
}

__global__ void softmax_helpers(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float* in = row_in(x, row, cols);
  const float* end = in + cols;
  float m = -INFINITY;
  for (const float* p = in; p < end;) m = fmaxf(m, take(p, end));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += expf(in[c] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float* out = row_out(y, row, cols);
  for (int c = threadIdx.x; c < cols; c += 32) out[c] = expf(in[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_helpers<<<(unsigned)((rows + 3) / 4), dim3(32, 4), 0, stream>>>(x, y, (int)rows, (int)cols);
}
