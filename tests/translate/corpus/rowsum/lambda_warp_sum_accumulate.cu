// Row sums with device lambdas: a warp butterfly `[](float v)` (a shuffle in a lambda), a `[&]` lambda that
// accumulates into a register and reads the row through a captured pointer, and a shared-memory combine across warps.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_lambdas(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float warp_sums[32];
  const float* row = x + (size_t)blockIdx.x * cols;
  auto warp_sum = [](float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
  };
  float acc = 0.f;
  auto accumulate = [&](int c) { acc += row[c]; };
  for (int c = threadIdx.x; c < cols; c += blockDim.x) accumulate(c);
  acc = warp_sum(acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    float v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.f;
    v = warp_sum(v);
    if (lane == 0) y[blockIdx.x] = v;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_lambdas<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
