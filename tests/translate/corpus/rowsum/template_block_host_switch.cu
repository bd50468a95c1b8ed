// The CUDA samples' reduction: templated block sizes chosen by a host switch over a power of two,
// a shared tree with an unrolled last warp on volatile memory (warp-synchronous, as the old samples),
// here with __syncwarp between the steps as Volta requires.
#include <cuda_runtime.h>
#include <stdint.h>

template <unsigned int blockSize>
__device__ void warpReduce(volatile float* sdata, unsigned int tid) {
  if (blockSize >= 64) { sdata[tid] += sdata[tid + 32]; __syncwarp(); }
  if (blockSize >= 32) { sdata[tid] += sdata[tid + 16]; __syncwarp(); }
  if (blockSize >= 16) { sdata[tid] += sdata[tid + 8]; __syncwarp(); }
  if (blockSize >= 8) { sdata[tid] += sdata[tid + 4]; __syncwarp(); }
  if (blockSize >= 4) { sdata[tid] += sdata[tid + 2]; __syncwarp(); }
  if (blockSize >= 2) { sdata[tid] += sdata[tid + 1]; __syncwarp(); }
}

template <unsigned int blockSize>
__global__ void reduce_rows(const float* g_idata, float* g_odata, unsigned int cols) {
  __shared__ float sdata[blockSize];
  const unsigned int tid = threadIdx.x;
  const float* row = g_idata + (size_t)blockIdx.x * cols;
  float sum = 0;
  for (unsigned int i = tid; i < cols; i += blockSize) sum += row[i];
  sdata[tid] = sum;
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  if (tid < 32) warpReduce<blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

static unsigned int next_pow2(unsigned int x) {
  --x;
  x |= x >> 1;
  x |= x >> 2;
  x |= x >> 4;
  x |= x >> 8;
  x |= x >> 16;
  return ++x;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  unsigned int threads = next_pow2((unsigned int)cols);
  if (threads > 512) threads = 512;
  if (threads < 64) threads = 64;
  const dim3 grid((unsigned)rows), block(threads);
  switch (threads) {
    case 512: reduce_rows<512><<<grid, block, 0, stream>>>(x, y, (unsigned)cols); break;
    case 256: reduce_rows<256><<<grid, block, 0, stream>>>(x, y, (unsigned)cols); break;
    case 128: reduce_rows<128><<<grid, block, 0, stream>>>(x, y, (unsigned)cols); break;
    case 64: reduce_rows<64><<<grid, block, 0, stream>>>(x, y, (unsigned)cols); break;
  }
}
