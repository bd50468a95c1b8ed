// A vectorized zeroing kernel (float4 stores of make_float4(0, 0, 0, 0) through a reinterpret_cast, a scalar tail of
// 0.0f) before a kernel that adds each row's 4-column chunks into the output with atomicAdd: the fill becomes the
// adding kernel's init_value.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void zero_fill(float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int vectors = n / 4;
  if (i < vectors) reinterpret_cast<float4*>(out)[i] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (i < n % 4) out[vectors * 4 + i] = 0.0f;
}

__global__ void add_chunks(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int row = blockIdx.y;
  const int c0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (c0 >= cols) return;
  float part = 0.f;
  for (int c = c0; c < min(c0 + 4, cols); ++c) part += x[(int64_t)row * cols + c];
  atomicAdd(y + row, part);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  zero_fill<<<(unsigned)((rows / 4 + 255) / 256 + 1), 256, 0, stream>>>(y, (int)rows);
  const unsigned chunks = (unsigned)((cols + 3) / 4);
  add_chunks<<<dim3((chunks + 63) / 64, (unsigned)rows), 64, 0, stream>>>(x, y, (int)cols);
}
