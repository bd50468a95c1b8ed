// The classic reduction (reduce6): template block size, unrolled tree with blockSize guards, and a
// warp-synchronous tail on volatile shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

template <unsigned int blockSize>
__device__ void warpReduce(volatile float* sdata, unsigned int tid) {
  if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
  if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
  if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
  if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
  if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
  if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned int blockSize>
__global__ void reduce6(const float* g_idata, float* g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  const float* row = g_idata + (size_t)blockIdx.x * n;
  float sum = 0;
  for (unsigned int i = tid; i < n; i += blockSize) sum += row[i];
  sdata[tid] = sum;
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
  if (tid < 32) warpReduce<blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  reduce6<threads><<<rows, threads, threads * sizeof(float), stream>>>(x, y, (unsigned)cols);
}
