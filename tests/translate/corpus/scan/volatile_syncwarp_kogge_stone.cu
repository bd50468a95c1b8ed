// Kogge-Stone warp scans in `volatile` shared memory with __syncwarp() between each read and write
// (the CUDA 9+ fix of the old implicit-warp-synchronous style), then a scan of the warp totals by warp 0,
// chunks of blockDim.x carried along the row.
#include <cuda_runtime.h>
#include <stdint.h>

template <int kThreads>
__device__ __forceinline__ float warp_scan_volatile(volatile float* s, int lane, float v) {
  s[lane] = v;
  __syncwarp();
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const float t = lane >= off ? s[lane - off] : 0.f;
    __syncwarp();
    s[lane] += t;
    __syncwarp();
  }
  return s[lane];
}

template <int kThreads>
__global__ void scan_rows_volatile(const float* __restrict__ x, float* __restrict__ y, int cols) {
  constexpr int kWarps = kThreads / 32;
  __shared__ float buf[kThreads];
  __shared__ float totals[32];
  __shared__ float carry;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  if (threadIdx.x == 0) carry = 0.f;
  for (int base = 0; base < cols; base += kThreads) {
    const int c = base + threadIdx.x;
    const float v = c < cols ? xr[c] : 0.f;
    const float inc = warp_scan_volatile<kThreads>(buf + warp * 32, lane, v);
    if (lane == 31) totals[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      const float t = lane < kWarps ? totals[lane] : 0.f;
      const float s = warp_scan_volatile<kThreads>(buf, lane, t);
      if (lane < kWarps) totals[lane] = s - t;  // exclusive
    }
    __syncthreads();
    const float out = carry + totals[warp] + inc;
    if (c < cols) yr[c] = out;
    __syncthreads();
    if (threadIdx.x == kThreads - 1) carry = out;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_rows_volatile<128><<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
}
