// absmax: |x| as unsigned bits (monotonic for non-negative floats), reduced across a warp with sm_80's
// __reduce_max_sync, warp maxima combined in shared memory, a block per row.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void absmax_reduce_sync(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ unsigned warp_max[8];
  const float* xr = x + (size_t)blockIdx.x * cols;
  unsigned m = 0u;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = max(m, __float_as_uint(fabsf(xr[c])));
  m = __reduce_max_sync(0xffffffffu, m);
  if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    unsigned v = threadIdx.x < (blockDim.x >> 5) ? warp_max[threadIdx.x] : 0u;
    v = __reduce_max_sync(0xffffffffu, v);
    if (threadIdx.x == 0) y[blockIdx.x] = __uint_as_float(v);
  }
}

extern "C" void absmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  absmax_reduce_sync<<<(unsigned)rows, 256, 0, stream>>>(x, y, (int)cols);
}
