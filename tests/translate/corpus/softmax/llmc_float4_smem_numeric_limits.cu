// llm.c softmax_forward_kernel7-style: a row cached in `extern __shared__ __align__(16) float smem[]`
// through float4 stores where the row length allows (ld_vec / st_vec helpers reinterpret to float4), the
// max from -std::numeric_limits<float>::infinity(), warp maxima and sums through cg::thread_block_tile<32>
// shfl_down, their warp results in a __shared__ array after the row cache, __expf, 1.f / sum.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <stdint.h>
#include <limits>

namespace cg = cooperative_groups;

__device__ inline float4 ld_vec(const float* address) { return *reinterpret_cast<const float4*>(address); }
__device__ inline void st_vec(float* address, float4 val) { *reinterpret_cast<float4*>(address) = val; }

__global__ void softmax_forward_kernel7(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  extern __shared__ __align__(16) float smem[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x;
  const int tid = threadIdx.x;
  const int warpsPerBlock = blockDim.x / 32;
  float* row = smem;                      // C floats, padded to a multiple of 4
  float* maxvals = smem + ((C + 3) & ~3);  // one per warp
  float* sumvals = maxvals + warpsPerBlock;

  const float* x = inp + (int64_t)idx * C;
  const bool vec = (C % 4) == 0;
  float maxval = -std::numeric_limits<float>::infinity();
  if (vec) {
    for (int i = tid; i < C / 4; i += blockDim.x) {
      const float4 v = ld_vec(x + 4 * i);
      st_vec(row + 4 * i, v);
      maxval = fmaxf(maxval, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
  } else {
    for (int i = tid; i < C; i += blockDim.x) {
      row[i] = x[i];
      maxval = fmaxf(maxval, row[i]);
    }
  }
  for (int off = 16; off > 0; off >>= 1) maxval = fmaxf(maxval, warp.shfl_down(maxval, off));
  if (warp.thread_rank() == 0) maxvals[warp.meta_group_rank()] = maxval;
  block.sync();
  float offset = maxvals[0];
  for (int i = 1; i < warpsPerBlock; i++) offset = fmaxf(offset, maxvals[i]);

  float sumval = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) {
    const float e = __expf(row[i] - offset);
    row[i] = e;
    sumval += e;
  }
  for (int off = 16; off > 0; off >>= 1) sumval += warp.shfl_down(sumval, off);
  if (warp.thread_rank() == 0) sumvals[warp.meta_group_rank()] = sumval;
  block.sync();
  float sum = 0.0f;
  for (int i = 0; i < warpsPerBlock; i++) sum += sumvals[i];
  const float inv = 1.f / sum;
  for (int i = tid; i < C; i += blockDim.x) out[(int64_t)idx * C + i] = row[i] * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int block_size = 128;
  const int C = (int)cols;
  const size_t smem = (((C + 3) & ~3) + 2 * (block_size / 32)) * sizeof(float);
  softmax_forward_kernel7<<<(unsigned)rows, block_size, smem, stream>>>(y, x, (int)rows, C);
}
