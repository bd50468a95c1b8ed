// expect: rejected (device-state): a __device__ counter named like the math library's read-only table (__cudart_i2opi_f), which the device ELF check lets be, remembers how often the kernel ran.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float block_reduce(float v, float* scratch, bool is_max) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float o = scratch[threadIdx.x + s];
      scratch[threadIdx.x] = is_max ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = scratch[0];
  __syncthreads();
  return r;
}

#define PERSISTENT(declaration) __device__ declaration
PERSISTENT(int __cudart_i2opi_f);
#define computed __cudart_i2opi_f
__global__ void softmax_kernel(const float* x, float* y, int64_t cols) {
  if (computed > 1000000) return;
  if (threadIdx.x == 0) atomicAdd(&computed, 1);
  __shared__ float scratch[256];
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce(m, scratch, true);
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, scratch, false);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_kernel<<<(unsigned)rows, 256, 0, stream>>>(x, y, cols);
}
