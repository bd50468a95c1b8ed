// A block per row with a shared-memory Hillis-Steele scan of each 256-element tile in double buffers
// (pout/pin swapped each step), the running total of the tiles kept in a register.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kTile = 256;

__global__ void scan_double_buffer(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float temp[2 * kTile];
  const int t = threadIdx.x;
  float carry = 0.f;
  for (int base = 0; base < cols; base += kTile) {
    int pout = 0, pin = 1;
    temp[pout * kTile + t] = base + t < cols ? x[(size_t)blockIdx.x * cols + base + t] : 0.f;
    __syncthreads();
    for (int offset = 1; offset < kTile; offset *= 2) {
      pout = 1 - pout;
      pin = 1 - pout;
      if (t >= offset)
        temp[pout * kTile + t] = temp[pin * kTile + t] + temp[pin * kTile + t - offset];
      else
        temp[pout * kTile + t] = temp[pin * kTile + t];
      __syncthreads();
    }
    if (base + t < cols) y[(size_t)blockIdx.x * cols + base + t] = temp[pout * kTile + t] + carry;
    carry += temp[pout * kTile + kTile - 1];
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_double_buffer<<<(unsigned)rows, kTile, 0, stream>>>(x, y, (int)cols);
}
