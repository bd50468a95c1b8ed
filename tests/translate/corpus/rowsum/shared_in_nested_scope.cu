// __shared__ arrays declared inside a loop body and inside a branch of a __device__ helper (CUDA gives each
// one block-wide array, whatever scope declares it), a min of an int and an unsigned (CUDA's overload).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float reduce_in_branch(float v, bool wide) {
  if (wide) {
    __shared__ float parts[8];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) parts[threadIdx.x / 32] = v;
    __syncthreads();
    float t = 0.f;
    for (int w = 0; w < (int)(blockDim.x / 32); ++w) t += parts[w];
    __syncthreads();
    return t;
  }
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void rowsum_scoped(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    __shared__ float staged[256];
    const unsigned limit = min(cols, 256u);  // min(int, unsigned): CUDA's unsigned overload
    float acc = 0.f;
    for (int base = 0; base < cols; base += 256) {
      const int c = base + threadIdx.x;
      if (threadIdx.x < limit) staged[threadIdx.x] = c < cols ? x[(size_t)r * cols + c] : 0.f;
      __syncthreads();
      if (threadIdx.x < limit) acc += staged[threadIdx.x];
      __syncthreads();
    }
    const float total = reduce_in_branch(acc, blockDim.x > 32);
    if (threadIdx.x == 0) y[r] = total;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_scoped<<<8, 256, 0, stream>>>(x, y, (int)rows, (int)cols);
}
