// Two kernels in sequence from one host function: per-row statistics (mean, rstd) into a cudaMalloc'd
// buffer (two floats a row) by warp shuffles, then the normalization by a 2-D grid; __fdividef, rsqrtf, fmaf.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void row_stats(const float* __restrict__ x, float* __restrict__ stats, int rows, int cols) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  float s = 0.f, sq = 0.f;
  for (int c = lane; c < cols; c += 32) {
    const float v = x[(size_t)warp * cols + c];
    s += v;
    sq = fmaf(v, v, sq);
  }
  for (int o = 16; o > 0; o >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, o);
    sq += __shfl_xor_sync(0xffffffffu, sq, o);
  }
  if (lane == 0) {
    const float mean = __fdividef(s, (float)cols);
    stats[2 * warp] = mean;
    stats[2 * warp + 1] = sq / cols - mean * mean;
  }
}

__global__ void normalize(const float* __restrict__ x, const float* __restrict__ stats, const float* __restrict__ gamma,
                          const float* __restrict__ beta, float* __restrict__ y, int rows, int cols, float eps) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c >= cols) return;
  const float2 st = make_float2(stats[2 * r], stats[2 * r + 1]);
  y[(size_t)r * cols + c] = fmaf((x[(size_t)r * cols + c] - st.x) * rsqrtf(st.y + eps), gamma[c], beta[c]);
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  float* stats = nullptr;
  cudaMalloc(&stats, 2 * rows * sizeof(float));
  row_stats<<<(rows * 32 + 127) / 128, 128, 0, stream>>>(x, stats, (int)rows, (int)cols);
  normalize<<<dim3((cols + 255) / 256, rows), 256, 0, stream>>>(x, stats, gamma, beta, y, (int)rows, (int)cols, eps);
  cudaFree(stats);
}
