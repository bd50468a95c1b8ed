// rowsum: vLLM-style platform branches: `#ifndef USE_ROCM` picks the shuffle macro, `#ifdef USE_ROCM` in the kernel
// holds HIP's unsynchronized shuffle and GCN assembly. The port blanks the branches the preprocessor skips (Metal's
// compile would skip them too, but the candidate's text rules read them).
#include <cuda_runtime.h>
#include <stdint.h>

#ifndef USE_ROCM
#define SHFL_XOR_SYNC(var, lane_mask) __shfl_xor_sync(uint32_t(-1), var, lane_mask)
#else
#define SHFL_XOR_SYNC(var, lane_mask) __shfl_xor(var, lane_mask)
#endif

__global__ void rowsum_platform(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* row = x + int64_t(blockIdx.x) * cols;
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += 32) s += row[c];
#ifdef USE_ROCM
  asm volatile("s_nop 0");
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor(s, o);
#else
  for (int o = 16; o > 0; o >>= 1) s += SHFL_XOR_SYNC(s, o);
#endif
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_platform<<<rows, 32, 0, stream>>>(x, y, cols);
}
