// rowsum with float4 vector loads into a __shared__ float4 tile and float2 partial registers.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_vec(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float4 tile[64];
  __shared__ float2 partial[64];
  const float* row = x + (int64_t)blockIdx.x * cols;
  float2 acc = make_float2(0.f, 0.f);
  const int c4 = cols / 4;
  const bool aligned = ((cols & 3) == 0);
  for (int base = 0; base < cols; base += 4 * blockDim.x) {
    const int c = base + 4 * threadIdx.x;
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (aligned && c / 4 < c4) v = reinterpret_cast<const float4*>(row)[c / 4];
    else {
      if (c < cols) v.x = row[c];
      if (c + 1 < cols) v.y = row[c + 1];
      if (c + 2 < cols) v.z = row[c + 2];
      if (c + 3 < cols) v.w = row[c + 3];
    }
    tile[threadIdx.x] = v;
    __syncthreads();
    float4 t = tile[threadIdx.x];
    acc.x += t.x + t.z;
    acc.y += t.y + t.w;
    __syncthreads();
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      partial[threadIdx.x].x += partial[threadIdx.x + s].x;
      partial[threadIdx.x].y += partial[threadIdx.x + s].y;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0].x + partial[0].y;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_vec<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
