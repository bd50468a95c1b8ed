// `template <auto kVec>` (C++17 auto non-type template parameter), a std::array register tile
// (constexpr operator[] with --expt-relaxed-constexpr), std::size over it.
#include <cuda_runtime.h>
#include <stdint.h>
#include <array>

template <auto kVec>
__global__ void axpy_vec(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int64_t n,
                         float alpha) {
  static_assert(kVec > 0, "vector width");
  std::array<float, kVec> r{};
  const int64_t base = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * kVec;
  for (size_t j = 0; j < r.size(); ++j) r[j] = base + (int64_t)j < n ? x[base + j] : 0.f;
  for (size_t j = 0; j < r.size(); ++j)
    if (base + (int64_t)j < n) y[base + j] = alpha * r[j] + w[base + j];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  constexpr int kVec = 2;
  const int threads = 64;
  axpy_vec<kVec><<<(unsigned)((n + threads * kVec - 1) / (threads * kVec)), threads, 0, stream>>>(x, w, y, n, alpha);
}
