// Rotary embedding over float2 pairs: each thread rotates two neighbouring elements of each half,
// loading them as float2 through reinterpret_cast (half is even in practice; an odd tail falls
// back to scalars), sincos tables read with __ldg, a 3-D grid (token, head, chunk).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rope_pairs(const float* __restrict__ x, const float* __restrict__ cosv, const float* __restrict__ sinv,
                           float* __restrict__ y, int heads, int half) {
  const int token = blockIdx.x, head = blockIdx.y;
  const int j = 2 * (blockIdx.z * blockDim.x + threadIdx.x);
  if (j >= half) return;
  const size_t base = ((size_t)token * heads + head) * 2 * half;
  const float* lo = x + base;
  const float* hi = lo + half;
  if (j + 1 < half && (half & 1) == 0) {
    const float2 a = *reinterpret_cast<const float2*>(lo + j);
    const float2 b = *reinterpret_cast<const float2*>(hi + j);
    const float2 c = __ldg(reinterpret_cast<const float2*>(cosv + (size_t)token * half + j));
    const float2 s = __ldg(reinterpret_cast<const float2*>(sinv + (size_t)token * half + j));
    *reinterpret_cast<float2*>(y + base + j) = make_float2(a.x * c.x - b.x * s.x, a.y * c.y - b.y * s.y);
    *reinterpret_cast<float2*>(y + base + half + j) = make_float2(b.x * c.x + a.x * s.x, b.y * c.y + a.y * s.y);
  } else {
    for (int k = j; k < min(j + 2, half); ++k) {
      const float c = cosv[(size_t)token * half + k], s = sinv[(size_t)token * half + k];
      y[base + k] = lo[k] * c - hi[k] * s;
      y[base + half + k] = hi[k] * c + lo[k] * s;
    }
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t half,
                     cudaStream_t stream) {
  const int threads = 16;
  const int pairs = (int)(half + 1) / 2;
  dim3 grid(t, h, (pairs + threads - 1) / threads);
  rope_pairs<<<grid, threads, 0, stream>>>(x, cos, sin, y, (int)h, (int)half);
}
