// The row's scalars in __constant__ memory, filled by the launcher element by element from host values: eps (a
// parameter) at byte 0, 1/cols (computed on the host) at byte 4; the third element is never written and reads as
// zero, as constant memory starts. One block per row, a warp-shuffle then shared-memory reduction.
#include <cuda_runtime.h>
#include <stdint.h>

__constant__ float c_row_params[3];  // eps, 1 / cols, a bias that stays zero
__constant__ int c_cols;

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void layernorm_constant(const float* __restrict__ x, const float* __restrict__ gamma,
                                   const float* __restrict__ beta, float* __restrict__ y) {
  __shared__ float partial[32];
  const float* in = x + (size_t)blockIdx.x * c_cols;
  float* out = y + (size_t)blockIdx.x * c_cols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float s = 0.f;
  for (int c = threadIdx.x; c < c_cols; c += blockDim.x) s += in[c];
  s = warp_sum(s);
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  s = warp_sum(lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.f);
  const float mean = s * c_row_params[1];
  __syncthreads();
  float sq = 0.f;
  for (int c = threadIdx.x; c < c_cols; c += blockDim.x) {
    const float d = in[c] - mean;
    sq += d * d;
  }
  sq = warp_sum(sq);
  if (lane == 0) partial[warp] = sq;
  __syncthreads();
  sq = warp_sum(lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.f);
  const float rstd = rsqrtf(sq * c_row_params[1] + c_row_params[0]);
  for (int c = threadIdx.x; c < c_cols; c += blockDim.x)
    out[c] = (in[c] - mean) * rstd * gamma[c] + beta[c] + c_row_params[2];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const float inv_cols = 1.0f / (float)cols;
  const int cols32 = (int)cols;
  cudaMemcpyToSymbolAsync(c_row_params, &eps, sizeof(float), 0, cudaMemcpyHostToDevice, stream);
  cudaMemcpyToSymbolAsync(c_row_params, &inv_cols, sizeof(float), sizeof(float), cudaMemcpyHostToDevice, stream);
  cudaMemcpyToSymbol(c_cols, &cols32, sizeof(int));
  layernorm_constant<<<rows, 256, 0, stream>>>(x, gamma, beta, y);
}
