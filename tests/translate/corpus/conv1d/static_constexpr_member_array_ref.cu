// conv1d: a register window passed to a __device__ function template deducing its length from a
// `const float (&)[N]` parameter, a traits struct with a static constexpr member array (C++17 inline) of tile
// sizes, each thread producing kOut consecutive outputs.
#include <cuda_runtime.h>
#include <stdint.h>

struct ConvTraits {
  static constexpr int kSizes[2] = {128, 4};  // threads, outputs per thread
};

template <int N>
__device__ __forceinline__ float dot_window(const float (&win)[N], const float* __restrict__ w, int kw, int start) {
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (k < kw) acc = fmaf(w[k], win[start + k < N ? start + k : N - 1], acc);
  return acc;
}

template <int kMaxWin>
__global__ void conv1d_window(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int cin,
                              int len, int kw) {
  constexpr int kOut = ConvTraits::kSizes[1];
  const int o = blockIdx.y;
  const int l0 = (blockIdx.x * blockDim.x + threadIdx.x) * kOut;
  if (l0 >= len) return;
  const int pad = kw / 2;
  float acc[kOut] = {0.f, 0.f, 0.f, 0.f};
  for (int c = 0; c < cin; ++c) {
    float win[kMaxWin];
#pragma unroll
    for (int j = 0; j < kMaxWin; ++j) {
      const int p = l0 - pad + j;
      win[j] = (j < kOut + kw - 1 && p >= 0 && p < len) ? x[(size_t)c * len + p] : 0.f;
    }
    const float* wr = w + ((size_t)o * cin + c) * kw;
#pragma unroll
    for (int q = 0; q < kOut; ++q) acc[q] += dot_window(win, wr, kw, q);
  }
#pragma unroll
  for (int q = 0; q < kOut; ++q)
    if (l0 + q < len) y[(size_t)o * len + l0 + q] = acc[q];
}

extern "C" void conv1d(const float* x, const float* w, float* y, int64_t cin, int64_t cout, int64_t len, int64_t kw,
                       cudaStream_t stream) {
  constexpr int kThreads = ConvTraits::kSizes[0];
  constexpr int kOut = ConvTraits::kSizes[1];
  const int per_block = kThreads * kOut;
  const dim3 grid((unsigned)((len + per_block - 1) / per_block), (unsigned)cout);
  // windows up to kOut + 15 - 1 values: filters up to 15 wide
  conv1d_window<kOut + 14><<<grid, kThreads, 0, stream>>>(x, w, y, (int)cin, (int)len, (int)kw);
}
