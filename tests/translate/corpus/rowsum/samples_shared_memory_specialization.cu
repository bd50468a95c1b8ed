// The CUDA samples' SharedMemory<T> (with their specialization for double), whose conversion operator declares the
// extern __shared__ array (under a name Metal reserves) and which the template kernel converts implicitly.
#include <cuda_runtime.h>
#include <stdint.h>

template <class T>
struct SharedMemory {
  __device__ inline operator T*() {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
  __device__ inline operator const T*() const {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double*() {
    extern __shared__ double __smem_d[];
    return (double*)__smem_d;
  }
};

template <class T, unsigned int blockSize>
__global__ void reduce_rows(const T* g_idata, T* g_odata, unsigned int n) {
  T* sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  const T* row = g_idata + (size_t)blockIdx.x * n;
  T mySum = 0;
  for (unsigned int i = tid; i < n; i += blockSize) mySum += row[i];
  sdata[tid] = mySum;
  __syncthreads();
  if ((blockSize >= 512) && (tid < 256)) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if ((blockSize >= 256) && (tid < 128)) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if ((blockSize >= 128) && (tid < 64)) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(0xffffffff, mySum, offset);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  const int smem = threads * sizeof(float);
  reduce_rows<float, threads><<<rows, threads, smem, stream>>>(x, y, cols);
}
