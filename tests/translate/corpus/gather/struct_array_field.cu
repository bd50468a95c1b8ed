// A parameter struct passed by value whose field is an array (strides), given as a nested brace list
// in the entry, and read through a __device__ helper taking the struct by const reference.
#include <cuda_runtime.h>
#include <stdint.h>

struct GatherParams {
  int64_t x_stride[2];
  int m, d;
};

__device__ __forceinline__ int64_t offset_of(const GatherParams& p, int64_t r, int64_t c) {
  return r * p.x_stride[0] + c * p.x_stride[1];
}

__global__ void gather_struct(const float* __restrict__ x, const int* __restrict__ idx, float* __restrict__ y, GatherParams p) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (int64_t)p.m * p.d; i += (int64_t)blockDim.x * gridDim.x) {
    const int64_t r = i / p.d, c = i % p.d;
    y[i] = x[offset_of(p, idx[r], c)];
  }
}

extern "C" void gather(const float* x, const int* idx, float* y, int64_t n, int64_t m, int64_t d, cudaStream_t stream) {
  const GatherParams p{{d, 1}, (int)m, (int)d};
  gather_struct<<<16, 128, 0, stream>>>(x, idx, y, p);
}
