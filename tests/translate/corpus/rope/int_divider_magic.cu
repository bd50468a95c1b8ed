// rope: PyTorch's IntDivider (magic-number division built by a host constructor, __umulhi in its device
// methods) passed by value to a flat kernel, divmod returning a struct unpacked with structured bindings.
#include <cuda_runtime.h>
#include <stdint.h>

struct DivMod {
  unsigned div, mod;
};

struct IntDivider {
  IntDivider() = default;
  IntDivider(unsigned d) : divisor(d) {
    for (shift = 0; shift < 32; shift++)
      if ((1U << shift) >= divisor) break;
    uint64_t one = 1;
    uint64_t magic = ((one << 32) * ((one << shift) - divisor)) / divisor + 1;
    m1 = (unsigned)magic;
  }
  __host__ __device__ inline unsigned div(unsigned n) const {
#ifdef __CUDA_ARCH__
    unsigned t = __umulhi(n, m1);
#else
    unsigned t = (unsigned)(((uint64_t)n * m1) >> 32);
#endif
    return (t + n) >> shift;
  }
  __host__ __device__ inline DivMod divmod(unsigned n) const {
    const unsigned q = div(n);
    return {q, n - q * divisor};
  }
  unsigned divisor;
  unsigned m1;
  unsigned shift;
};

__global__ void rope_divider(const float* __restrict__ x, const float* __restrict__ cos_t, const float* __restrict__ sin_t,
                             float* __restrict__ y, unsigned total, IntDivider rot_div, IntDivider head_div) {
  const unsigned rot = rot_div.divisor;
  for (unsigned p = blockIdx.x * blockDim.x + threadIdx.x; p < total; p += gridDim.x * blockDim.x) {
    const auto [th, i] = rot_div.divmod(p);   // (token * heads + head, pair)
    const unsigned token = head_div.div(th);
    const unsigned i0 = th * 2 * rot + i;
    const unsigned i1 = i0 + rot;
    const float c = cos_t[token * rot + i];
    const float s = sin_t[token * rot + i];
    const float a = x[i0], b = x[i1];
    y[i0] = a * c - b * s;
    y[i1] = b * c + a * s;
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t rot,
                     cudaStream_t stream) {
  const unsigned total = (unsigned)(t * h * rot);
  const IntDivider rot_div((unsigned)rot);
  const IntDivider head_div((unsigned)h);
  const int threads = 128;
  const int blocks = (int)((total + threads - 1) / threads);
  rope_divider<<<blocks, threads, 0, stream>>>(x, cos, sin, y, total, rot_div, head_div);
}
