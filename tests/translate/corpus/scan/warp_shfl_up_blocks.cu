// Inclusive row scan, a block of 4 warps per row in chunks of 128: __shfl_up_sync warp scans,
// warp totals in shared memory scanned by warp 0, a carry between chunks.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_inclusive_scan(float v, int lane) {
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += up;
  }
  return v;
}

__global__ void scan_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float warp_totals[4];
  __shared__ float carry;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* in = x + (int64_t)blockIdx.x * cols;
  float* out = y + (int64_t)blockIdx.x * cols;
  if (threadIdx.x == 0) carry = 0.f;
  __syncthreads();
  for (int base = 0; base < cols; base += blockDim.x) {
    const int c = base + threadIdx.x;
    float v = c < cols ? in[c] : 0.f;
    v = warp_inclusive_scan(v, lane);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
      float t = lane < 4 ? warp_totals[lane] : 0.f;
      t = warp_inclusive_scan(t, lane);
      if (lane < 4) warp_totals[lane] = t;
    }
    __syncthreads();
    const float offset = carry + (warp > 0 ? warp_totals[warp - 1] : 0.f);
    if (c < cols) out[c] = v + offset;
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) carry = offset + v;
    __syncthreads();
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_rows<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
