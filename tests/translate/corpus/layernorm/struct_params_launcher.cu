// A parameter struct declared and brace-initialized as a local of a host launcher, then assigned one
// more field; a warp per row (threadIdx.y rows), Welford-free two-pass statistics with shuffles.
#include <cuda_runtime.h>
#include <stdint.h>

namespace {
struct LayerNormParams {
  const float* x;
  const float* gamma;
  const float* beta;
  float* y;
  int64_t rows;
  int64_t cols;
  float eps;
};
}  // namespace

__inline__ __device__ float warp_all_sum(float v) {
  for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(0xffffffff, v, mask, 32);
  return v;
}

__global__ void layernorm_warp_rows(LayerNormParams p) {
  const int64_t row = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= p.rows) return;
  const float* xr = p.x + row * p.cols;
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < p.cols; c += 32) sum += xr[c];
  const float mean = warp_all_sum(sum) / p.cols;
  float sq = 0.f;
  for (int64_t c = threadIdx.x; c < p.cols; c += 32) sq += (xr[c] - mean) * (xr[c] - mean);
  const float inv = rsqrtf(warp_all_sum(sq) / p.cols + p.eps);
  for (int64_t c = threadIdx.x; c < p.cols; c += 32) p.y[row * p.cols + c] = (xr[c] - mean) * inv * p.gamma[c] + p.beta[c];
}

static void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                             float eps, cudaStream_t stream) {
  LayerNormParams p = {x, gamma, beta, y, rows, cols};
  p.eps = eps;
  const dim3 block(32, 4);
  const dim3 grid((unsigned)((rows + block.y - 1) / block.y));
  layernorm_warp_rows<<<grid, block, 0, stream>>>(p);
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  launch_layernorm(x, gamma, beta, y, rows, cols, eps, stream);
}
