// T5/LLaMA RMSNorm: __noinline__ block reduction helper taking the shared scratch, float4 loads when the
// row is 16-byte aligned (static_assert on the vector size), __frsqrt_rn, __fmul_rn, __restrict__ everywhere.
#include <cuda_runtime.h>
#include <stdint.h>

static_assert(sizeof(float4) == 4 * sizeof(float), "float4 is four floats");

__device__ __noinline__ float block_sum_noinline(float v, float* __restrict__ scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float t = lane < warps ? scratch[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
  __syncthreads();
  return t;
}

__global__ void rms_norm_kernel(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y,
                                int cols, float eps) {
  __shared__ float scratch[32];
  const float* __restrict__ xr = x + (size_t)blockIdx.x * cols;
  float* __restrict__ yr = y + (size_t)blockIdx.x * cols;
  float ss = 0.f;
  const bool vec = (cols & 3) == 0;
  if (vec) {
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
      const float4 v = x4[c];
      ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) ss += xr[c] * xr[c];
  }
  const float total = block_sum_noinline(ss, scratch);
  const float inv = __frsqrt_rn(total / (float)cols + eps);
  if (vec) {
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(xr);
    const float4* __restrict__ w4 = reinterpret_cast<const float4*>(weight);
    float4* __restrict__ y4 = reinterpret_cast<float4*>(yr);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
      const float4 v = x4[c], g = w4[c];
      y4[c] = make_float4(__fmul_rn(v.x * inv, g.x), __fmul_rn(v.y * inv, g.y), __fmul_rn(v.z * inv, g.z),
                          __fmul_rn(v.w * inv, g.w));
    }
  } else {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = __fmul_rn(xr[c] * inv, weight[c]);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rms_norm_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, weight, y, (int)cols, eps);
}
