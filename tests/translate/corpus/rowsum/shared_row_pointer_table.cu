// rowsum: __shared__ arrays of pointers (`__shared__ const float* row_ptr[4]`, `__shared__ float* out_ptr[4]`) that
// threads 0..3 fill for the block's four warps, read by every warp after the barrier: each array lives in threadgroup
// memory and holds pointers into the task's buffers (`const device float* threadgroup`, not a thread's own array of
// pointers into threadgroup memory).
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int ROWS_PER_BLOCK = 4;

__global__ void rowsum_ptr_table(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ const float* row_ptr[ROWS_PER_BLOCK];
  __shared__ float* out_ptr[ROWS_PER_BLOCK];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (threadIdx.x < ROWS_PER_BLOCK) {
    const int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x;
    row_ptr[threadIdx.x] = r < rows ? x + (int64_t)r * cols : nullptr;
    out_ptr[threadIdx.x] = r < rows ? y + r : nullptr;
  }
  __syncthreads();
  const float* p = row_ptr[warp];
  if (p == nullptr) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += p[c];
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) *out_ptr[warp] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_ptr_table<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, 32 * ROWS_PER_BLOCK, 0, stream>>>(x, y, (int)rows,
                                                                                                    (int)cols);
}
