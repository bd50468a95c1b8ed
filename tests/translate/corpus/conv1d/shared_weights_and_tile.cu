// 1-D convolution: one dynamic shared buffer carved into the output channel's weights (cin * kw) and an
// input tile with its halo (blockDim.x + kw - 1), reloaded per input channel; grid (tiles, cout).
#include <cuda_runtime.h>
#include <stdint.h>

struct ConvDims {
  int cin, len, kw;
};

__global__ void conv1d_smem(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                            const ConvDims d) {
  extern __shared__ float smem[];
  float* s_w = smem;                 // d.cin * d.kw
  float* s_x = smem + d.cin * d.kw;  // blockDim.x + d.kw - 1
  const int o = blockIdx.y;
  const int l0 = blockIdx.x * blockDim.x;
  const int half = d.kw / 2;
  for (int i = threadIdx.x; i < d.cin * d.kw; i += blockDim.x) s_w[i] = w[(size_t)o * d.cin * d.kw + i];
  float acc = 0.f;
  for (int c = 0; c < d.cin; ++c) {
    __syncthreads();
    for (int i = threadIdx.x; i < blockDim.x + d.kw - 1; i += blockDim.x) {
      const int l = l0 + i - half;
      s_x[i] = (l >= 0 && l < d.len) ? x[(size_t)c * d.len + l] : 0.f;
    }
    __syncthreads();
    for (int k = 0; k < d.kw; ++k) acc = fmaf(s_w[c * d.kw + k], s_x[threadIdx.x + k], acc);
  }
  const int l = l0 + threadIdx.x;
  if (l < d.len) y[(size_t)o * d.len + l] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int64_t cin, int64_t cout, int64_t len, int64_t kw,
                       cudaStream_t stream) {
  const int threads = 64;
  const ConvDims d{(int)cin, (int)len, (int)kw};
  const size_t smem = (size_t)(cin * kw + threads + kw - 1) * sizeof(float);
  const dim3 grid((unsigned)((len + threads - 1) / threads), (unsigned)cout);
  conv1d_smem<<<grid, threads, smem, stream>>>(x, w, y, d);
}
