// Typed views of the dynamic shared memory through accessor functions: a templated proxy, and an explicit
// specialization of a SharedMemory struct called outside any template; a kernel's own reserved-name buffer.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__device__ T* shared_memory_proxy() {
  extern __shared__ unsigned char memory[];
  return reinterpret_cast<T*>(memory);
}

template <class T>
struct SharedMemory;
template <>
struct SharedMemory<float> {
  __device__ float* getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};

template <typename T, typename index_t>
__global__ void partial_sums(const T* __restrict__ x, T* __restrict__ y, index_t cols) {
  T* partial = shared_memory_proxy<T>();
  const T* row = x + static_cast<index_t>(blockIdx.x) * cols;
  T acc = T(0);
  for (index_t c = threadIdx.x; c < cols; c += blockDim.x) acc += row[c];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

__global__ void finish_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  SharedMemory<float> smem;
  float* part = smem.getPointer();
  extern __shared__ float __scratch[];
  const float* row = x + (size_t)blockIdx.x * cols;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += row[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (unsigned i = 0; i < blockDim.x; ++i) total += __scratch[i];
    y[blockIdx.x] = total;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols % 2 == 0)
    partial_sums<float, int64_t><<<rows, 128, 128 * sizeof(float), stream>>>(x, y, cols);
  else
    finish_rows<<<rows, 64, 64 * sizeof(float), stream>>>(x, y, (int)cols);
}
