// Hillis-Steele inclusive scan per row in two shared buffers whose pointers std::swap exchanges (ping-pong),
// chunks carried.
#include <cuda_runtime.h>
#include <stdint.h>
#include <utility>

template <int N>
__global__ void scan_rows_pingpong(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float buf_a[N];
  __shared__ float buf_b[N];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += N) {
    float* src = buf_a;
    float* dst = buf_b;
    const int c = base + threadIdx.x;
    src[threadIdx.x] = c < cols ? xr[c] : 0.f;
    __syncthreads();
    for (int offset = 1; offset < N; offset <<= 1) {
      dst[threadIdx.x] = threadIdx.x >= offset ? src[threadIdx.x] + src[threadIdx.x - offset] : src[threadIdx.x];
      __syncthreads();
      std::swap(src, dst);
    }
    if (c < cols) yr[c] = src[threadIdx.x] + carry;
    carry += src[N - 1];
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_rows_pingpong<256><<<rows, 256, 0, stream>>>(x, y, cols);
}
