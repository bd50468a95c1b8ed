// task: softmax
// A warp per row when rows are short, a block per row when they are long; the runtime's queries (device count, the
// stream's flags, free memory, runtime and driver versions) are read on every call and printed where they look wrong.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// WARPS warps share a row (1: a warp per row, 8: a block of 256 per row); partials meet in shared memory.
template <int WARPS>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  __shared__ float red[2][WARPS];
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % WARPS;
  const int64_t row = int64_t(blockIdx.x) * (blockDim.x / (32 * WARPS)) + threadIdx.x / (32 * WARPS);
  if (row >= rows) return;  // WARPS > 1 launches exactly one row per block, so no thread of a row's barrier leaves
  const float* in = x + row * cols;
  float m = -INFINITY;
  for (int64_t c = warp * 32 + lane; c < cols; c += 32 * WARPS) m = fmaxf(m, in[c]);
  m = warp_max(m);
  if (WARPS > 1) {
    if (lane == 0) red[0][warp] = m;
    __syncthreads();
    for (int w = 0; w < WARPS; ++w) m = fmaxf(m, red[0][w]);
  }
  float s = 0.f;
  for (int64_t c = warp * 32 + lane; c < cols; c += 32 * WARPS) s += __expf(in[c] - m);
  s = warp_sum(s);
  if (WARPS > 1) {
    if (lane == 0) red[1][warp] = s;
    __syncthreads();
    s = 0.f;
    for (int w = 0; w < WARPS; ++w) s += red[1][w];
  }
  for (int64_t c = warp * 32 + lane; c < cols; c += 32 * WARPS) y[row * cols + c] = __expf(in[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  int devices = 0, runtime = 0, driver = 0;
  unsigned flags = 0;
  size_t free_bytes = 0, total_bytes = 0;
  cudaGetDeviceCount(&devices);
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  cudaStreamGetFlags(stream, &flags);
  cudaMemGetInfo(&free_bytes, &total_bytes);
  if (devices == 0 || total_bytes == 0)  // never on a working GPU: what a bug report would need
    printf("softmax: %d devices, runtime %d, driver %d, stream flags %u, %zu of %zu bytes free\n", devices, runtime, driver,
           flags, free_bytes, total_bytes);
  if (cols <= 1024) {
    softmax_rows<1><<<unsigned((rows + 7) / 8), 256, 0, stream>>>(x, y, rows, cols);
  } else {
    softmax_rows<8><<<unsigned(rows), 256, 0, stream>>>(x, y, rows, cols);
  }
}
