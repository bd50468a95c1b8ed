// CUDA samples' scan (scan_kernel.cuh): scan1Inclusive over a `volatile float*` shared buffer of
// twice the block with a zero-padded lower half (pos = 2 * tid - (tid & (size - 1))), cg::sync(cta)
// around each Hillis-Steele step, scan1Exclusive from it, scan4Inclusive doing a level-0 scan of a
// float4 in registers then the level-1 exclusive scan of the thread totals; the cg::thread_block
// passed by reference to each helper; 4 items x 256 threads per chunk, a row's chunks carried.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

#define THREADBLOCK_SIZE 256
#define ITEMS 4

inline __device__ float scan1Inclusive(float idata, volatile float* s_Data, unsigned size, cg::thread_block& cta) {
  unsigned pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  s_Data[pos] = 0;
  pos += size;
  s_Data[pos] = idata;

  for (unsigned offset = 1; offset < size; offset <<= 1) {
    cg::sync(cta);
    float t = s_Data[pos] + s_Data[pos - offset];
    cg::sync(cta);
    s_Data[pos] = t;
  }
  return s_Data[pos];
}

inline __device__ float scan1Exclusive(float idata, volatile float* s_Data, unsigned size, cg::thread_block& cta) {
  return scan1Inclusive(idata, s_Data, size, cta) - idata;
}

inline __device__ float4 scan4Inclusive(float4 idata4, volatile float* s_Data, unsigned size, cg::thread_block& cta) {
  // Level-0 inclusive scan
  idata4.y += idata4.x;
  idata4.z += idata4.y;
  idata4.w += idata4.z;

  // Level-1 exclusive scan
  float oval = scan1Exclusive(idata4.w, s_Data, size / 4, cta);

  idata4.x += oval;
  idata4.y += oval;
  idata4.z += oval;
  idata4.w += oval;
  return idata4;
}

__global__ void scanInclusiveShared(float* __restrict__ d_Dst, const float* __restrict__ d_Src, int cols) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float s_Data[2 * THREADBLOCK_SIZE];
  __shared__ float s_carry;

  const float* src = d_Src + (int64_t)blockIdx.x * cols;
  float* dst = d_Dst + (int64_t)blockIdx.x * cols;
  if (threadIdx.x == 0) s_carry = 0.0f;

  for (int base = 0; base < cols; base += ITEMS * THREADBLOCK_SIZE) {
    const int i0 = base + ITEMS * threadIdx.x;
    float4 idata4;
    idata4.x = i0 + 0 < cols ? src[i0 + 0] : 0.0f;
    idata4.y = i0 + 1 < cols ? src[i0 + 1] : 0.0f;
    idata4.z = i0 + 2 < cols ? src[i0 + 2] : 0.0f;
    idata4.w = i0 + 3 < cols ? src[i0 + 3] : 0.0f;

    float4 odata4 = scan4Inclusive(idata4, s_Data, ITEMS * THREADBLOCK_SIZE, cta);
    cg::sync(cta);  // s_carry was written by thread 0 before (the previous chunk or the start)
    const float carry = s_carry;
    if (i0 + 0 < cols) dst[i0 + 0] = odata4.x + carry;
    if (i0 + 1 < cols) dst[i0 + 1] = odata4.y + carry;
    if (i0 + 2 < cols) dst[i0 + 2] = odata4.z + carry;
    if (i0 + 3 < cols) dst[i0 + 3] = odata4.w + carry;
    cg::sync(cta);  // everyone read s_carry
    if (threadIdx.x == THREADBLOCK_SIZE - 1) s_carry = carry + odata4.w;
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scanInclusiveShared<<<(unsigned)rows, THREADBLOCK_SIZE, 0, stream>>>(y, x, (int)cols);
}
