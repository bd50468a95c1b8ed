// A 2-D block of 32 x 4 threads: threadIdx.y picks the row, a warp per row; Welford mean and
// variance merged across the warp with __shfl_xor_sync; dim3 launch sizes.
#include <cuda_runtime.h>
#include <stdint.h>

struct Welford {
  float mean, m2, count;
};

__device__ Welford merge(Welford a, Welford b) {
  const float count = a.count + b.count;
  if (count == 0.f) return a;
  const float delta = b.mean - a.mean;
  Welford r;
  r.count = count;
  r.mean = a.mean + delta * b.count / count;
  r.m2 = a.m2 + b.m2 + delta * delta * a.count * b.count / count;
  return r;
}

__global__ void layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                               float* __restrict__ y, int rows, int cols, float eps) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const float* in = x + (int64_t)row * cols;
  Welford w = {0.f, 0.f, 0.f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = in[c];
    w.count += 1.f;
    const float d = v - w.mean;
    w.mean += d / w.count;
    w.m2 += d * (v - w.mean);
  }
  for (int o = 16; o > 0; o >>= 1) {
    Welford other;
    other.mean = __shfl_xor_sync(0xffffffffu, w.mean, o);
    other.m2 = __shfl_xor_sync(0xffffffffu, w.m2, o);
    other.count = __shfl_xor_sync(0xffffffffu, w.count, o);
    w = merge(w, other);
  }
  const float inv = rsqrtf(w.m2 / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(int64_t)row * cols + c] = (in[c] - w.mean) * inv * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  dim3 block(32, 4);
  dim3 grid((rows + block.y - 1) / block.y);
  layernorm_rows<<<grid, block, 0, stream>>>(x, gamma, beta, y, (int)rows, (int)cols, eps);
}
