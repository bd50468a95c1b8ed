// Rotary embedding as complex multiplication: a Complex struct with constructors, a member operator*,
// a static factory, conj(); grid-stride over t*h*rot with 64-bit indices and __ldg.
#include <cuda_runtime.h>
#include <stdint.h>

struct Complex {
  float re, im;
  __device__ __forceinline__ Complex() = default;
  __device__ __forceinline__ constexpr Complex(float r, float i) : re(r), im(i) {}
  __device__ __forceinline__ static Complex polar_from_table(float c, float s) { return Complex(c, s); }
  __device__ __forceinline__ Complex operator*(const Complex& o) const {
    return Complex(re * o.re - im * o.im, re * o.im + im * o.re);
  }
  __device__ __forceinline__ Complex conj() const { return Complex(re, -im); }
};

__global__ void rope_complex(const float* __restrict__ x, const float* __restrict__ cos_t,
                             const float* __restrict__ sin_t, float* __restrict__ y, int64_t t, int64_t h, int64_t rot) {
  const int64_t total = t * h * rot;
  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = idx % rot;
    const int64_t th = idx / rot;      // t * h + head
    const int64_t tok = th / h;
    const int64_t base = th * 2 * rot;
    const Complex v(__ldg(x + base + i), __ldg(x + base + rot + i));
    // conj of conj: the table's angle as written
    const Complex r = Complex::polar_from_table(__ldg(cos_t + tok * rot + i), -__ldg(sin_t + tok * rot + i)).conj();
    const Complex out = v * r;
    y[base + i] = out.re;
    y[base + rot + i] = out.im;
  }
}

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h, int64_t rot,
                     cudaStream_t stream) {
  const int threads = 128;
  int64_t blocks = (t * h * rot + threads - 1) / threads;
  if (blocks > 1024) blocks = 1024;
  rope_complex<<<(unsigned)blocks, threads, 0, stream>>>(x, cos, sin, y, t, h, rot);
}
