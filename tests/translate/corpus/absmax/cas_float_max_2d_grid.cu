// Several blocks per row (blockIdx.y the row, blockIdx.x a chunk): each block's maximum joins the row's
// through atomicMax on a float, written as the usual atomicCAS loop over __float_as_int.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float atomicMaxFloat(float* address, float val) {
  int* address_as_int = reinterpret_cast<int*>(address);
  int old = *address_as_int, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(address_as_int, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

constexpr int kThreads = 128;
constexpr int kChunk = 512;

__global__ void absmax_chunks(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float s_max[kThreads / 32];
  const int row = blockIdx.y;
  const int begin = blockIdx.x * kChunk;
  const int end = min(begin + kChunk, cols);
  float m = 0.f;
  for (int c = begin + threadIdx.x; c < end; c += kThreads) m = fmaxf(m, fabsf(x[(size_t)row * cols + c]));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
  if ((threadIdx.x & 31) == 0) s_max[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float b = s_max[0];
#pragma unroll
    for (int w = 1; w < kThreads / 32; ++w) b = fmaxf(b, s_max[w]);
    atomicMaxFloat(&y[row], b);
  }
}

extern "C" void absmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, rows * sizeof(float), stream);
  const dim3 grid((unsigned)((cols + kChunk - 1) / kChunk), (unsigned)rows);
  absmax_chunks<<<grid, kThreads, 0, stream>>>(x, y, (int)cols);
}
