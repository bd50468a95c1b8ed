// CUDA's math library past what Metal's standard library has, by its float names: lgammaf and tgammaf across their
// poles, the Bessel functions j0f, j1f, jnf, y0f, y1f, ynf, cyl_bessel_i0f and cyl_bessel_i1f, erfcinvf and
// normcdfinvf deep in their tails, erfcxf, and the exact remainderf, remquof (the quotient's low bits), logbf,
// scalblnf, normf and nanf.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void gamma_bessel_kernel(const float* __restrict__ x, const float* __restrict__ p, float* __restrict__ lg,
                                    float* __restrict__ tg, float* __restrict__ bj, float* __restrict__ by,
                                    float* __restrict__ bi, float* __restrict__ inv, float* __restrict__ scaled,
                                    float* __restrict__ exact, int* __restrict__ k, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i], q = p[i], m = fabsf(v);
  lg[i] = lgammaf(v);
  tg[i] = tgammaf(v);
  bj[i] = j0f(v) + j1f(v) + jnf(3, v) + jnf(7, v);
  by[i] = y0f(m) + y1f(m) + ynf(2, m) + ynf(5, m + 4.0f);
  bi[i] = cyl_bessel_i0f(v) + cyl_bessel_i1f(v);
  inv[i] = erfcinvf(q) + normcdfinvf(0.5f * q);
  scaled[i] = erfcxf(v);
  int quotient;
  const float lengths[3] = {v, 1.0f, 2.0f};
  exact[i] = remainderf(v, 1.75f) + remquof(v * 1024.0f, 0.3f, &quotient) + logbf(v) + scalblnf(v, 5l) +
             normf(3, lengths);
  k[i] = quotient % 8 + (isnan(nanf("")) ? 10 : 0);
}

extern "C" void gamma_bessel(const float* x, const float* p, float* lg, float* tg, float* bj, float* by, float* bi,
                             float* inv, float* scaled, float* exact, int* k, int64_t n, cudaStream_t stream) {
  const int block = 128;
  gamma_bessel_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(x, p, lg, tg, bj, by, bi, inv, scaled,
                                                                                exact, k, (int)n);
}
