// The same values through other spellings: the unsuffixed float overloads (lgamma, jn, erfcinv, remquo, ...) and
// std:: forms, remquo writing its quotient straight into the output buffer (device memory), normcdfinv's tail
// through erfcinv's identity, and rnormf inverted; the kernel a template over the input type with a grid-stride loop.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

template <typename T>
__global__ void gamma_bessel_kernel(const T* __restrict__ x, const T* __restrict__ p, T* __restrict__ lg,
                                    T* __restrict__ tg, T* __restrict__ bj, T* __restrict__ by, T* __restrict__ bi,
                                    T* __restrict__ inv, T* __restrict__ scaled, T* __restrict__ exact,
                                    int* __restrict__ k, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const T v = x[i], q = p[i], m = fabs(v);
    lg[i] = std::lgamma(v);
    tg[i] = std::tgamma(v);
    bj[i] = j0(v) + j1(v) + jn(3, v) + jn(7, v);
    by[i] = y0(m) + y1(m) + yn(2, m) + yn(5, m + T(4));
    bi[i] = cyl_bessel_i0(v) + cyl_bessel_i1(v);
    inv[i] = erfcinv(q) + normcdfinv(T(0.5) * q);
    scaled[i] = erfcx(v);
    const T lengths[3] = {v, T(1), T(2)};
    exact[i] = std::remainder(v, T(1.75)) + remquo(v * T(1024), T(0.3), &k[i]) + logb(v) + scalbln(v, 5l) +
               T(1) / rnormf(3, lengths);
    k[i] = k[i] % 8 + (isnan(nanf("")) ? 10 : 0);
  }
}

extern "C" void gamma_bessel(const float* x, const float* p, float* lg, float* tg, float* bj, float* by, float* bi,
                             float* inv, float* scaled, float* exact, int* k, int64_t n, cudaStream_t stream) {
  gamma_bessel_kernel<float><<<8, 64, 0, stream>>>(x, p, lg, tg, bj, by, bi, inv, scaled, exact, k, (int)n);
}
