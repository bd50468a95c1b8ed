// Hillis-Steele scan of 128-element chunks in double-buffered shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kChunk = 128;

__global__ void scan_shared(const float* x, float* y, int cols) {
  __shared__ float buf[2][kChunk];
  __shared__ float carry;
  const int t = threadIdx.x;
  if (t == 0) carry = 0.0f;
  for (int start = 0; start < cols; start += kChunk) {
    const int c = start + t;
    int in = 0;
    buf[in][t] = c < cols ? x[(int64_t)blockIdx.x * cols + c] : 0.0f;
    __syncthreads();
    for (int d = 1; d < kChunk; d *= 2) {
      buf[1 - in][t] = t >= d ? buf[in][t] + buf[in][t - d] : buf[in][t];
      in = 1 - in;
      __syncthreads();
    }
    const float v = buf[in][t] + carry;
    if (c < cols) y[(int64_t)blockIdx.x * cols + c] = v;
    __syncthreads();
    if (t == kChunk - 1) carry = v;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_shared<<<rows, kChunk, 0, stream>>>(x, y, cols);
}
