// A kernel declared before the entry that launches it and defined after it, its last parameter defaulted on the
// declaration (`float scale = 1.0f`, left out at the launch); C++20's std::bit_cast through the bits of a product (as
// code that packs or inspects floats does), an index reflected through llabs.
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void axpy_scaled(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                            float alpha, float scale = 1.0f);

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_scaled<<<(unsigned)((n + 127) / 128), 128, 0, stream>>>(x, w, y, (int)n, alpha);
}

__global__ void axpy_scaled(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                            float alpha, float scale) {
  const long long i = llabs((long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const uint32_t bits = std::bit_cast<uint32_t>(alpha * x[i]);
  y[i] = (std::bit_cast<float>(bits) + w[i]) * scale;
}
