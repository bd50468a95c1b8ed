// Double-buffered 16 x 16 tiles staged by cp.async in inline PTX, as hand-written GEMMs spell it: macros around
// `asm volatile`, the shared address made by __cvta_generic_to_shared into a variable (A's tile) or in the operand
// (B's tile), edges zero-filled through the source-size operand (A) or skipped by a predicate after a zeroing store
// (B), then commit_group and wait_group 1.
#include <cuda_runtime.h>
#include <stdint.h>

#define CP_ASYNC_CA_ZFILL(dst, src, bytes, src_bytes) \
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(bytes), "r"(src_bytes))
#define CP_ASYNC_CA_IF(pred, dst, src)                                                             \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n @p cp.async.ca.shared.global [%1], [%2], 4;\n}\n" ::"r"( \
                   (int)(pred)),                                                                   \
               "r"(dst), "l"(src))
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT_GROUP(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

constexpr int TILE = 16;

__global__ void matmul_ptx_cp_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m,
                                    int n, int k) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int tiles = (k + TILE - 1) / TILE;
  float acc = 0.f;
  for (int t = -1; t < tiles; ++t) {  // t = -1 only stages tile 0
    const int next = t + 1;
    if (next < tiles) {
      const int kk = next * TILE;
      const bool a_in = row < m && kk + tx < k, b_in = kk + ty < k && col < n;
      uint32_t a_smem = static_cast<uint32_t>(__cvta_generic_to_shared(&As[next & 1][ty][tx]));
      CP_ASYNC_CA_ZFILL(a_smem, A + (a_in ? (int64_t)row * k + kk + tx : 0), 4, a_in ? 4 : 0);
      Bs[next & 1][ty][tx] = 0.f;  // stays where the predicated copy is skipped
      CP_ASYNC_CA_IF(b_in, (uint32_t)__cvta_generic_to_shared(&Bs[next & 1][ty][tx]), B + (b_in ? (int64_t)(kk + ty) * n + col : 0));
    }
    CP_ASYNC_COMMIT_GROUP();
    if (t < 0) continue;
    CP_ASYNC_WAIT_GROUP(1);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc += As[t & 1][ty][i] * Bs[t & 1][i][tx];
    __syncthreads();  // the next iteration refills this buffer
  }
  if (row < m && col < n) C[(int64_t)row * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul_ptx_cp_async<<<grid, block, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
