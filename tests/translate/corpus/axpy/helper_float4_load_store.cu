// float4 loads and stores through __device__ helpers taking float* (`load4(x + i)`, `store4(y + i, v)`), the inputs given
// to kernel parameters without const through C casts: the helper every call of which gives an input reads through
// ks_ro_cast, the other writes through a device float4*.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ __forceinline__ float4 load4(float* p) { return *reinterpret_cast<float4*>(p); }
__device__ __forceinline__ void store4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }
__global__ void axpy4(float* x, float* w, float* y, float alpha, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 3 < n) {
    float4 a = load4(x + i), b = load4(w + i);
    store4(y + i, make_float4(alpha * a.x + b.x, alpha * a.y + b.y, alpha * a.z + b.z, alpha * a.w + b.w));
  } else {
    for (int j = i; j < n; ++j) y[j] = alpha * x[j] + w[j];
  }
}
extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy4<<<(int)((n + 511) / 512), 128, 0, stream>>>((float*)x, (float*)w, y, alpha, (int)n);
}
