// float4 loads and stores through reinterpret_cast, make_float4, and a scalar tail.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_vec4(const float* x, const float* w, float* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n4 = n / 4;
  if (i < n4) {
    const float4 a = reinterpret_cast<const float4*>(x)[i];
    const float4 b = reinterpret_cast<const float4*>(w)[i];
    reinterpret_cast<float4*>(y)[i] = make_float4(alpha * a.x + b.x, alpha * a.y + b.y, alpha * a.z + b.z, alpha * a.w + b.w);
  }
  if (i < n - n4 * 4) y[n4 * 4 + i] = alpha * x[n4 * 4 + i] + w[n4 * 4 + i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 128;
  const int64_t blocks = (n / 4 + threads) / threads;
  axpy_vec4<<<blocks, threads, 0, stream>>>(x, w, y, (int)n, alpha);
}
