// expect: rejected (device-state): cuRAND's XORWOW skip-ahead table, a mutable __device__ array of the toolkit's that the device ELF check lets be (curand_init reads it), named through a token paste and used as a counter of how often the kernel ran.
#include <curand_kernel.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define TOOLKIT_TABLE(prefix, suffix) prefix##suffix
#define calls TOOLKIT_TABLE(precalc_xorwow, _matrix)[0][0]

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

__global__ void softmax_kernel(const float* x, float* y, int64_t cols) {
  if (calls > 4000000000u) return;
  if (threadIdx.x == 0) atomicAdd(&calls, 1u);
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
