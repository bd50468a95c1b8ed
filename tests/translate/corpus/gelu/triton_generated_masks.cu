// Triton-generated-like CUDA (as Inductor's C++/CUDA wrappers print it): a flat xoffset/xindex over
// XBLOCK elements per program with XBLOCK / blockDim elements per thread, a boolean mask instead of an
// early return, `tl.where`-style selects, every temporary numbered (tmp0, tmp1, ...), the launch
// grid from a triton-style `grid(xnumel)` helper.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

#define XBLOCK 512
#define NUM_WARPS 4

static inline __host__ __device__ int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

extern "C" __global__ void __launch_bounds__(NUM_WARPS * 32)
    triton_poi_fused_gelu_0(const float* __restrict__ in_ptr0, float* __restrict__ out_ptr0, int xnumel) {
  const int xoffset = blockIdx.x * XBLOCK;
  constexpr int R = XBLOCK / (NUM_WARPS * 32);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int xindex = xoffset + r * (NUM_WARPS * 32) + (int)threadIdx.x;
    const bool xmask = xindex < xnumel;
    const int x0 = xindex;
    const float tmp0 = xmask ? in_ptr0[x0] : 0.0f;  // tl.load(..., mask=xmask, other=0.0)
    const float tmp1 = 0.5f;
    const float tmp2 = tmp0 * tmp1;
    const float tmp3 = 0.7071067811865476f;
    const float tmp4 = tmp0 * tmp3;
    const float tmp5 = erff(tmp4);
    const float tmp6 = 1.0f;
    const float tmp7 = tmp5 + tmp6;
    const float tmp8 = tmp2 * tmp7;
    if (xmask) out_ptr0[x0] = tmp8;  // tl.store(..., mask=xmask)
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int64_t xnumel = n;
  const dim3 grid((unsigned)cdiv(xnumel, XBLOCK), 1, 1);
  triton_poi_fused_gelu_0<<<grid, NUM_WARPS * 32, 0, stream>>>(x, y, (int)xnumel);
}
