// A default member initializer reading a built-in variable: it has no parameters to be given it through.
#include <cuda_runtime.h>
#include <stdint.h>

struct WarpInfo {
  unsigned lane = threadIdx.x % 32;
  __device__ float sum(float v) const {
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
};

__global__ void rowsum_kernel(const float* x, float* y, int cols) {
  WarpInfo wi;
  float s = 0.f;
  for (int c = wi.lane; c < cols; c += 32) s += x[(int64_t)blockIdx.x * cols + c];
  s = wi.sum(s);
  if (wi.lane == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
