// conv1d: a kernel template over the filter width (0: read at run time) with if constexpr choosing an unrolled
// loop, a host launcher template called from a switch over kw (cases 3 and 5, a default).
#include <cuda_runtime.h>
#include <stdint.h>

template <int KW>
__global__ void conv1d_direct(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int cin,
                              int len, int kw_runtime) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  const int o = blockIdx.y;
  if (l >= len) return;
  float acc = 0.f;
  for (int c = 0; c < cin; ++c) {
    const float* __restrict__ xr = x + (size_t)c * len;
    if constexpr (KW > 0) {
      const float* __restrict__ wr = w + ((size_t)o * cin + c) * KW;
#pragma unroll
      for (int k = 0; k < KW; ++k) {
        const int p = l + k - KW / 2;
        if (p >= 0 && p < len) acc = fmaf(wr[k], xr[p], acc);
      }
    } else {
      const float* __restrict__ wr = w + ((size_t)o * cin + c) * kw_runtime;
      for (int k = 0; k < kw_runtime; ++k) {
        const int p = l + k - kw_runtime / 2;
        if (p >= 0 && p < len) acc = fmaf(wr[k], xr[p], acc);
      }
    }
  }
  y[(size_t)o * len + l] = acc;
}

template <int KW>
static void launch_conv(const float* x, const float* w, float* y, int cin, int cout, int len, int kw, cudaStream_t s) {
  constexpr int kThreads = 128;
  const dim3 grid((len + kThreads - 1) / kThreads, cout);
  conv1d_direct<KW><<<grid, kThreads, 0, s>>>(x, w, y, cin, len, kw);
}

extern "C" void conv1d(const float* x, const float* w, float* y, int64_t cin, int64_t cout, int64_t len, int64_t kw,
                       cudaStream_t stream) {
  switch (kw) {
    case 3:
      launch_conv<3>(x, w, y, (int)cin, (int)cout, (int)len, 3, stream);
      break;
    case 5:
      launch_conv<5>(x, w, y, (int)cin, (int)cout, (int)len, 5, stream);
      break;
    default:
      launch_conv<0>(x, w, y, (int)cin, (int)cout, (int)len, (int)kw, stream);
      break;
  }
}
