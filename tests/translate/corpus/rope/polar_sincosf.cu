// Rotary embedding that rebuilds each rotation from its polar form, as kernels that compute the
// angle in place do: the angle by atan2f and the scale by hypotf of the tables' entries, then
// sincosf(angle, &s, &c) into locals; a 2-D block of (pair, head) threads per token.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rope_polar(const float* __restrict__ x, const float* __restrict__ cos_t, const float* __restrict__ sin_t,
                           float* __restrict__ y, int heads, int half) {
  const int token = blockIdx.x;
  const int head = threadIdx.y;
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float c0 = cos_t[token * half + i], s0 = sin_t[token * half + i];
    const float angle = atan2f(s0, c0), scale = hypotf(c0, s0);
    float s, c;
    sincosf(angle, &s, &c);
    const size_t base = ((size_t)token * heads + head) * 2 * half;
    const float a = x[base + i], b = x[base + half + i];
    y[base + i] = scale * (a * c - b * s);
    y[base + half + i] = scale * (b * c + a * s);
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t half,
                     cudaStream_t stream) {
  const dim3 block(16, h);
  rope_polar<<<t, block, 0, stream>>>(x, cos, sin, y, (int)h, (int)half);
}
