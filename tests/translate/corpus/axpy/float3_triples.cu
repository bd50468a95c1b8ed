// axpy over xyz triples (as point-cloud / particle code vectorizes): the buffers viewed as float3 through
// reinterpret_cast (12-byte elements in CUDA), make_float3, the n % 3 tail element-wise.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_xyz(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                         float alpha) {
  const int n3 = n / 3;
  const float3* x3 = reinterpret_cast<const float3*>(x);
  const float3* w3 = reinterpret_cast<const float3*>(w);
  float3* y3 = reinterpret_cast<float3*>(y);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n3) {
    const float3 a = x3[i], b = w3[i];
    y3[i] = make_float3(fmaf(alpha, a.x, b.x), fmaf(alpha, a.y, b.y), fmaf(alpha, a.z, b.z));
  }
  if (i < n - 3 * n3) {
    const int t = 3 * n3 + i;
    y[t] = fmaf(alpha, x[t], w[t]);
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 128;
  const int64_t work = n / 3 + 3;
  axpy_xyz<<<(unsigned)((work + threads - 1) / threads), threads, 0, stream>>>(x, w, y, (int)n, alpha);
}
