// bf16 scalars: static_cast<float> of the loads, the float result rounded by __float2bfloat16 and clamped
// from below by __hmax against a bf16 constant, a 64-bit grid-stride loop.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void bf16_axpy_ops(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                              __nv_bfloat16* __restrict__ y, int64_t n, float alpha) {
  const __nv_bfloat16 lowest = __float2bfloat16(-3.0e38f);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float r = alpha * static_cast<float>(x[i]) + static_cast<float>(w[i]);
    y[i] = __hmax(__float2bfloat16(r), lowest);
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  bf16_axpy_ops<<<8, 256, 0, stream>>>(x, w, y, n, alpha);
}
