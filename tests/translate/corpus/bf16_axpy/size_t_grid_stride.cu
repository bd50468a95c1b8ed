// bfloat16 conversions (__float2bfloat16_rn, __bfloat162float), cudaFuncSetAttribute
// before the launch, a size_t grid-stride loop.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void bf16_axpy_k(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, size_t n, float alpha) {
  const __nv_bfloat16 a = __float2bfloat16_rn(alpha);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = __float2bfloat16(__bfloat162float(a) * __bfloat162float(x[i]) + __bfloat162float(w[i]));
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  cudaFuncSetAttribute(bf16_axpy_k, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  bf16_axpy_k<<<16, 64, 0, stream>>>(x, w, y, (size_t)n, alpha);
}
