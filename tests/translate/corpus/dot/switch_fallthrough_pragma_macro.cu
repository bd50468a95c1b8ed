// dot: CUTLASS-style unroll macros (#define PRAGMA_UNROLL _Pragma("unroll")), eight-element steps, the remainder
// of each thread's last step handled by a switch with [[fallthrough]] cases (a Duff-style tail), a block
// reduction through shared memory and one atomicAdd per block after cudaMemsetAsync.
#include <cuda_runtime.h>
#include <stdint.h>

#define PRAGMA_UNROLL _Pragma("unroll")
#define PRAGMA_NO_UNROLL _Pragma("unroll 1")

constexpr int kThreads = 128;
constexpr int kStep = 8;

__global__ void dot_tail_switch(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int n) {
  __shared__ float red[kThreads];
  float acc = 0.f;
  const int chunks = (n + kStep - 1) / kStep;
  PRAGMA_NO_UNROLL
  for (int ch = blockIdx.x * kThreads + threadIdx.x; ch < chunks; ch += gridDim.x * kThreads) {
    const int base = ch * kStep;
    const float* px = x + base;
    const float* pw = w + base;
    const int rem = n - base;
    if (rem >= kStep) {
      PRAGMA_UNROLL
      for (int j = 0; j < kStep; ++j) acc = fmaf(px[j], pw[j], acc);
    } else {
      switch (rem) {
        case 7: acc = fmaf(px[6], pw[6], acc); [[fallthrough]];
        case 6: acc = fmaf(px[5], pw[5], acc); [[fallthrough]];
        case 5: acc = fmaf(px[4], pw[4], acc); [[fallthrough]];
        case 4: acc = fmaf(px[3], pw[3], acc); [[fallthrough]];
        case 3: acc = fmaf(px[2], pw[2], acc); [[fallthrough]];
        case 2: acc = fmaf(px[1], pw[1], acc); [[fallthrough]];
        case 1: acc = fmaf(px[0], pw[0], acc); break;
        default: break;
      }
    }
  }
  red[threadIdx.x] = acc;
  __syncthreads();
  PRAGMA_NO_UNROLL
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, red[0]);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  const int chunks = (int)((n + kStep - 1) / kStep);
  int blocks = (chunks + kThreads - 1) / kThreads;
  blocks = blocks > 16 ? 16 : blocks;
  dot_tail_switch<<<blocks, kThreads, 0, stream>>>(x, w, y, (int)n);
}
