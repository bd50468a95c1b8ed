// The row cached in dynamic shared memory as float4 where cols % 4 == 0 (a template flag), sum of squares
// with __shfl_xor_sync, normalization written back as float4 through reinterpret_cast of the output.
#include <cuda_runtime.h>
#include <stdint.h>

template <bool kVec>
__global__ void rmsnorm_cached(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int cols,
                               float eps) {
  extern __shared__ float4 cache4[];
  float* cache = reinterpret_cast<float*>(cache4);
  __shared__ float warp_ss[32];
  __shared__ float inv_rms;
  const size_t base = (size_t)blockIdx.x * cols;
  float ss = 0.f;
  if (kVec) {
    const float4* x4 = reinterpret_cast<const float4*>(x + base);
    for (int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
      const float4 v = __ldg(x4 + i);
      cache4[i] = v;
      ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
      const float v = x[base + i];
      cache[i] = v;
      ss += v * v;
    }
  }
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, m);
  if ((threadIdx.x & 31) == 0) warp_ss[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int i = 0; i < (blockDim.x + 31) / 32; ++i) t += warp_ss[i];
    inv_rms = rsqrtf(t / cols + eps);
  }
  __syncthreads();
  const float r = inv_rms;
  if (kVec) {
    float4* y4 = reinterpret_cast<float4*>(y + base);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    for (int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
      const float4 v = cache4[i], g = w4[i];
      y4[i] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) y[base + i] = cache[i] * r * w[i];
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  const size_t smem = ((cols + 3) / 4) * sizeof(float4);
  if (cols % 4 == 0)
    rmsnorm_cached<true><<<rows, 128, smem, stream>>>(x, weight, y, (int)cols, eps);
  else
    rmsnorm_cached<false><<<rows, 128, smem, stream>>>(x, weight, y, (int)cols, eps);
}
