// CUDA samples' reduction (reduce4): the SharedMemory<T> conversion-operator struct, cg::sync(cta), a tile's shfl_down,
// and the launcher's nIsPow2 test written with a bitwise and.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

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

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce4(const T* g_idata, T* g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T* sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  const T* row = g_idata + (size_t)blockIdx.x * n;
  T mySum = 0;
  for (unsigned int i = tid; i < n; i += blockSize) mySum += row[i];
  sdata[tid] = mySum;
  cg::sync(cta);
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) mySum += tile32.shfl_down(mySum, offset);
  }
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 256;
  bool pow2 = (cols & (cols - 1)) == 0;
  if (pow2)
    reduce4<float, threads, true><<<rows, threads, threads * sizeof(float), stream>>>(x, y, (unsigned)cols);
  else
    reduce4<float, threads, false><<<rows, threads, threads * sizeof(float), stream>>>(x, y, (unsigned)cols);
}
