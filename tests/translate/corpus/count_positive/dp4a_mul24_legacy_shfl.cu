// Pre-Volta style: indices with __mul24/__umul24, four positive flags packed into the bytes of an
// int and counted with __dp4a against 0x01010101 (as int8 dot-product kernels use it), the warp's
// total by the mask-less __shfl_down of CUDA 8 and broadcast with __shfl.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_packed(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const int lane = threadIdx.x;
  const float* row = x + __mul24(blockIdx.x, cols);
  int count = 0;
  for (int base = __umul24(lane, 4u); base < cols; base += 4 * 32) {
    int packed = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (base + k < cols && row[base + k] > 0.f) packed |= 1 << (8 * k);
    count = __dp4a(packed, 0x01010101, count);
  }
  for (int offset = 16; offset > 0; offset >>= 1) count += __shfl_down(count, offset);
  count = __shfl(count, 0);
  if (lane == 0) y[blockIdx.x] = count;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_packed<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
