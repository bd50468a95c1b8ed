// __nv_bfloat16 storage with float math.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(alpha * __bfloat162float(x[i]) + __bfloat162float(w[i]));
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  axpy_bf16<<<(n + 127) / 128, 128, 0, stream>>>(x, w, y, n, alpha);
}
