// Blelloch's work-efficient scan in shared memory: up-sweep, clear the last element, down-sweep
// (exclusive), one block per row over chunks of 2 * blockDim elements with a running carry.
#include <cuda_runtime.h>
#include <stdint.h>

#define THREADS 128
#define CHUNK (2 * THREADS)

__global__ void blelloch_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float temp[CHUNK];
  __shared__ float carry;
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  const int t = threadIdx.x;
  if (t == 0) carry = 0.f;
  for (int base = 0; base < cols; base += CHUNK) {
    const int a = base + 2 * t, b = base + 2 * t + 1;
    temp[2 * t] = a < cols ? in[a] : 0.f;
    temp[2 * t + 1] = b < cols ? in[b] : 0.f;
    int offset = 1;
    for (int d = CHUNK >> 1; d > 0; d >>= 1) {  // up-sweep
      __syncthreads();
      if (t < d) {
        const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
        temp[bi] += temp[ai];
      }
      offset *= 2;
    }
    __syncthreads();
    const float total = temp[CHUNK - 1];
    __syncthreads();
    if (t == 0) temp[CHUNK - 1] = 0.f;
    for (int d = 1; d < CHUNK; d *= 2) {  // down-sweep
      offset >>= 1;
      __syncthreads();
      if (t < d) {
        const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
        const float v = temp[ai];
        temp[ai] = temp[bi];
        temp[bi] += v;
      }
    }
    __syncthreads();
    // inclusive = exclusive + own value, plus the sums of the earlier chunks
    if (a < cols) out[a] = carry + temp[2 * t] + in[a];
    if (b < cols) out[b] = carry + temp[2 * t + 1] + in[b];
    __syncthreads();
    if (t == 0) carry += total;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  blelloch_rows<<<rows, THREADS, 0, stream>>>(x, y, (int)cols);
}
