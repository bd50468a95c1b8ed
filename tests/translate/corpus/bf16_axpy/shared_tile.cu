// A block's tiles of x and w staged in __shared__ __nv_bfloat16 arrays (static and dynamic), read
// back reversed after the barrier.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_bf16_tiles(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int n, float alpha) {
  __shared__ __align__(16) __nv_bfloat16 xs[256];
  extern __shared__ __nv_bfloat16 ws[];
  const int base = blockIdx.x * blockDim.x;
  const int i = base + threadIdx.x;
  if (i < n) {
    xs[threadIdx.x] = x[i];
    ws[threadIdx.x] = w[i];
  }
  __syncthreads();
  const int mirror = blockDim.x - 1 - threadIdx.x;  // each thread finishes another thread's element
  const int j = base + mirror;
  if (j < n) y[j] = __float2bfloat16(alpha * __bfloat162float(xs[mirror]) + __bfloat162float(ws[mirror]));
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  const int threads = 256;
  axpy_bf16_tiles<<<(n + threads - 1) / threads, threads, threads * sizeof(__nv_bfloat16), stream>>>(x, w, y, n, alpha);
}
