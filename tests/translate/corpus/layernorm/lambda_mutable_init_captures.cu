// LayerNorm with a mutable lambda keeping Welford statistics in its own copies (init captures `[n = 0, mean = 0.f]`),
// a `mutable` column generator, and an immediately invoked lambda for the reduction across the warp.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void layernorm_welford_lambda(const float* __restrict__ x, const float* __restrict__ gamma,
                                         const float* __restrict__ beta, float* __restrict__ y, int cols, float eps) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  auto next_column = [c = (int)threadIdx.x]() mutable {
    const int current = c;
    c += 32;
    return current;
  };
  float n = 0.f, mean = 0.f, m2 = 0.f;
  auto push = [&n, &mean, &m2](float v) {
    n += 1.f;
    const float delta = v - mean;
    mean += delta / n;
    m2 += delta * (v - mean);
  };
  for (int c = next_column(); c < cols; c = next_column()) push(row[c]);
  // Merge the lanes' statistics (Chan et al.).
  [&]() {
    for (int offset = 16; offset > 0; offset >>= 1) {
      const float n_b = __shfl_xor_sync(0xffffffffu, n, offset);
      const float mean_b = __shfl_xor_sync(0xffffffffu, mean, offset);
      const float m2_b = __shfl_xor_sync(0xffffffffu, m2, offset);
      const float total = n + n_b;
      if (total == 0.f) continue;
      const float delta = mean_b - mean;
      mean += delta * n_b / total;
      m2 += m2_b + delta * delta * n * n_b / total;
      n = total;
    }
  }();
  const float rstd = rsqrtf(m2 / n + eps);
  auto normalize = [=](int c) { return (row[c] - mean) * rstd * gamma[c] + beta[c]; };
  for (int c = threadIdx.x; c < cols; c += 32) out[c] = normalize(c);
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_welford_lambda<<<rows, 32, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
