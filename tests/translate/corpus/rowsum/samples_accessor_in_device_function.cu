// The CUDA samples' SharedMemory<T> converted in a __device__ function (its int array viewed as float): the kernel
// declares the dynamic threadgroup array and passes it down (formerly untranslatable).
#include <cuda_runtime.h>
#include <stdint.h>

template <class T>
struct SharedMemory {
  __device__ inline operator T*() {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
};

__device__ float block_sum(float v) {
  // the block's partial sums
  float* s = SharedMemory<float>();
  s[threadIdx.x] = v;
  __syncthreads();
  float t = 0.f;
  for (unsigned i = 0; i < blockDim.x; ++i) t += s[i];
  return t;
}

__global__ void k(const float* x, float* y, int cols) {
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += x[(size_t)blockIdx.x * cols + c];
  float t = block_sum(acc);
  if (threadIdx.x == 0) y[blockIdx.x] = t;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k<<<rows, 64, 64 * sizeof(float), stream>>>(x, y, (int)cols);
}
