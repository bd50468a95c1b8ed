// task: rmsnorm
// Written as under PyTorch's or CUTLASS's build flags: std::max, std::min and std::numeric_limits in device code
// (constexpr host functions, --expt-relaxed-constexpr), and the per-element epilogue as a __device__ lambda
// handed to a templated kernel (--extended-lambda).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <limits>

constexpr int kThreads = 256;

template <typename Epilogue>
__global__ void __launch_bounds__(kThreads)
normalize_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols, float eps, Epilogue epilogue) {
  __shared__ float warp_sums[kThreads / 32];
  const float* row = x + int64_t(blockIdx.x) * cols;
  float ss = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) ss += row[c] * row[c];
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = ss;
  __syncthreads();
  float total = 0.f;
  for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
  // Guard the mean square against underflow to zero with eps = 0 (never taken with the task's eps).
  const float mean = std::max(total / float(cols) + eps, std::numeric_limits<float>::min());
  const float inv = rsqrtf(mean);
  const int64_t chunk = std::min<int64_t>(cols, kThreads);
  for (int64_t c0 = 0; c0 < cols; c0 += chunk)
    for (int64_t c = c0 + threadIdx.x; c < std::min(cols, c0 + chunk); c += kThreads)
      y[int64_t(blockIdx.x) * cols + c] = epilogue(row[c] * inv, c);
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const auto scale = [weight] __device__(float v, int64_t c) { return v * weight[c]; };
  normalize_rows<<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols, eps, scale);
}
