// A 1-D convolution with the input tile and its halo in dynamic shared memory sized at launch from
// blockDim.x and the kernel width; blockIdx.y is the output channel; the weights of that channel
// staged in static shared memory; #pragma unroll 4 over the taps.
#include <cuda_runtime.h>
#include <stdint.h>

#define MAX_WEIGHTS 256

__global__ void conv1d_tile(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int cin, int len,
                            int kw) {
  extern __shared__ float tile[];  // blockDim.x + kw - 1 floats
  __shared__ float wsh[MAX_WEIGHTS];
  const int o = blockIdx.y;
  const int pad = kw / 2;
  const int start = blockIdx.x * blockDim.x;
  const int l = start + threadIdx.x;
  const int width = blockDim.x + kw - 1;
  for (int i = threadIdx.x; i < cin * kw; i += blockDim.x) wsh[i] = w[(size_t)o * cin * kw + i];
  float acc = 0.f;
  for (int c = 0; c < cin; ++c) {
    __syncthreads();  // the previous channel's tile is consumed
    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      const int p = start - pad + i;
      tile[i] = (p >= 0 && p < len) ? x[(size_t)c * len + p] : 0.f;
    }
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < kw; ++k) acc += wsh[c * kw + k] * tile[threadIdx.x + k];
  }
  if (l < len) y[(size_t)o * len + l] = acc;
}

extern "C" void conv1d(const float* x, const float* w, float* y, int64_t cin, int64_t cout, int64_t len, int64_t kw,
                       cudaStream_t stream) {
  dim3 block(64);
  dim3 grid((len + block.x - 1) / block.x, cout);
  const size_t shmem = (block.x + kw - 1) * sizeof(float);
  conv1d_tile<<<grid, block, shmem, stream>>>(x, w, y, (int)cin, (int)len, (int)kw);
}
