// RMSNorm in a `template <int BLOCK>` kernel with generic lambdas (`auto` parameters): a warp reduction taking its
// operation as a lambda, a local constexpr the lambdas use (a constant of their struct), and `BLOCK` in a lambda.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
__global__ void rmsnorm_generic(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int cols,
                                float eps) {
  __shared__ float partial[BLOCK / 32];
  constexpr int kWarps = BLOCK / 32;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  auto plus = [](auto a, auto b) { return a + b; };
  auto warp_reduce = [](auto v, auto op) {
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
  };
  auto strided = [&](auto f) {
    for (int c = threadIdx.x; c < cols; c += BLOCK) f(c);
  };
  float ss = 0.f;
  strided([&](int c) { ss += xr[c] * xr[c]; });
  ss = warp_reduce(ss, plus);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
  __syncthreads();
  auto total = [&]() {
    float t = 0.f;
    for (int i = 0; i < kWarps; ++i) t += partial[i];
    return t;
  };
  const float scale = rsqrtf(total() / cols + eps);
  strided([&](int c) { yr[c] = xr[c] * scale * w[c]; });
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_generic<128><<<rows, 128, 0, stream>>>(x, weight, y, (int)cols, eps);
}
