// axpy: two overloads of one __global__ name (a float4 body and a scalar body), the host choosing by n % 4,
// launch checks by cudaGetLastError()/cudaPeekAtLastError() in a macro, cudaStreamSynchronize after the launch.
#include <cstdio>
#include <cuda_runtime.h>
#include <stdint.h>

#define KERNEL_LAUNCH_CHECK()                                                   \
  do {                                                                          \
    cudaError_t err__ = cudaGetLastError();                                     \
    if (err__ != cudaSuccess) fprintf(stderr, "launch: %s\n", cudaGetErrorString(err__)); \
  } while (0)

__global__ void axpy_kernel(const float4* __restrict__ x, const float4* __restrict__ w, float4* __restrict__ y, int n4,
                            float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 a = x[i], b = w[i];
    y[i] = make_float4(fmaf(alpha, a.x, b.x), fmaf(alpha, a.y, b.y), fmaf(alpha, a.z, b.z), fmaf(alpha, a.w, b.w));
  }
}

__global__ void axpy_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                            float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(alpha, x[i], w[i]);
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  constexpr int kThreads = 256;
  if (n % 4 == 0) {
    const int n4 = (int)(n / 4);
    axpy_kernel<<<(n4 + kThreads - 1) / kThreads, kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(w), reinterpret_cast<float4*>(y), n4, alpha);
  } else {
    axpy_kernel<<<(unsigned)((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, w, y, (int)n, alpha);
  }
  KERNEL_LAUNCH_CHECK();
  if (cudaPeekAtLastError() != cudaSuccess) return;
  cudaStreamSynchronize(stream);
}
