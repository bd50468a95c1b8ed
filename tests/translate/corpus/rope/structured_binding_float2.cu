// rope: (cos, sin) packed into a float2 by make_float2 and unpacked with a structured binding (auto [c, s]),
// the pair (x0, x1) likewise; a grid-stride loop in y over (token, head) capped at 65535 blocks, threads over
// the pairs; dim3 built with brace initializers.
#include <algorithm>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float2 rotate(float2 v, float2 cs) {
  const auto [a, b] = v;
  const auto [c, s] = cs;
  return make_float2(a * c - b * s, b * c + a * s);
}

__global__ void rope_pairs(const float* __restrict__ x, const float* __restrict__ cos_t, const float* __restrict__ sin_t,
                           float* __restrict__ y, int tokens, int heads, int rot) {
  for (int th = blockIdx.y; th < tokens * heads; th += gridDim.y) {
    const int token = th / heads;
    const float* xin = x + (size_t)th * 2 * rot;
    float* yout = y + (size_t)th * 2 * rot;
    for (int i = threadIdx.x; i < rot; i += blockDim.x) {
      const float2 cs = make_float2(cos_t[(size_t)token * rot + i], sin_t[(size_t)token * rot + i]);
      const float2 r = rotate(make_float2(xin[i], xin[rot + i]), cs);
      yout[i] = r.x;
      yout[rot + i] = r.y;
    }
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t rot,
                     cudaStream_t stream) {
  const dim3 block{32};
  const dim3 grid{1, (unsigned)std::min<int64_t>(t * h, 65535)};
  rope_pairs<<<grid, block, 0, stream>>>(x, cos, sin, y, (int)t, (int)h, (int)rot);
}
