// LeetCUDA's HGEMM style: PTX behind macros (`LDMATRIX_X4(R0, R1, R2, R3, addr)` with the qualifiers in its order,
// `.x4.m8n8`; `LDMATRIX_X2_T`; `HMMA16816` with f16 accumulators in and out; `CP_ASYNC_CG` with commit and wait
// macros), shared addresses made by `__cvta_generic_to_shared` into `uint32_t` variables, a 32 x 16 block tile over
// four warps (2 x 2 of m16n8), 16-byte cp.async for whole in-bounds chunks and scalar zero-padded loads at the edges,
// a kernel template whose shared tiles' types depend on its parameters.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define LDMATRIX_X4(R0, R1, R2, R3, addr) \
  asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n" : "=r"(R0), "=r"(R1), "=r"(R2), "=r"(R3) : "r"(addr))
#define LDMATRIX_X2_T(R0, R1, addr) \
  asm volatile("ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];\n" : "=r"(R0), "=r"(R1) : "r"(addr))
#define HMMA16816(RD0, RD1, RA0, RA1, RA2, RA3, RB0, RB1, RC0, RC1)                                                     \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n" \
               : "=r"(RD0), "=r"(RD1)                                                                                   \
               : "r"(RA0), "r"(RA1), "r"(RA2), "r"(RA3), "r"(RB0), "r"(RB1), "r"(RC0), "r"(RC1))
// defined beside the others and used by no kernel here: left out of the port (its PTX would not compile as Metal)
#define LDMATRIX_X1(R, addr) asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];\n" : "=r"(R) : "r"(addr))
#define CP_ASYNC_CG(dst, src, bytes) \
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(bytes))
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT_GROUP(n) asm volatile("cp.async.wait_group %0;\n" ::"n"(n))

template <const int BM = 32, const int BN = 16, const int BK = 16>
__global__ void hgemm_mma_m16n8k16_macros(const half* a, const half* b, float* c, int M, int N, int K) {
  __shared__ __align__(16) half s_a[BM][BK];
  __shared__ __align__(16) half s_b[BK][BN];
  const int tid = threadIdx.x, warp_id = tid / 32, lane_id = tid % 32;
  const int warp_m = warp_id % 2, warp_n = warp_id / 2;  // the warp's m16n8 tile
  const int bx = blockIdx.x, by = blockIdx.y;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // A: 32 rows x 2 chunks of 8 halves (threads 0-63); B: 16 rows x 2 chunks (threads 64-95)
    if (tid < 96) {
      const bool is_a = tid < 64;
      const int chunk = is_a ? tid : tid - 64, row = chunk / 2, col = (chunk % 2) * 8;
      const int g_row = is_a ? by * BM + row : k0 + row, g_col = is_a ? k0 + col : bx * BN + col;
      const int rows = is_a ? M : K, cols = is_a ? K : N;
      const half* src = is_a ? a + (size_t)g_row * K + g_col : b + (size_t)g_row * N + g_col;
      half* dst = is_a ? &s_a[row][col] : &s_b[row][col];
      const bool whole = g_row < rows && g_col + 8 <= cols && (((size_t)g_row * cols + g_col) % 8 == 0);
      if (whole) {
        uint32_t smem = __cvta_generic_to_shared(dst);
        CP_ASYNC_CG(smem, src, 16);
      } else {
        for (int e = 0; e < 8; ++e) dst[e] = g_row < rows && g_col + e < cols ? src[e] : __float2half(0.0f);
      }
    }
    CP_ASYNC_COMMIT_GROUP();
    CP_ASYNC_WAIT_GROUP(0);
    __syncthreads();
    uint32_t RA[4], RB[2], RD[2], RC[2] = {0u, 0u};
    uint32_t load_smem_a = __cvta_generic_to_shared(&s_a[warp_m * 16 + lane_id % 16][(lane_id / 16) * 8]);
    LDMATRIX_X4(RA[0], RA[1], RA[2], RA[3], load_smem_a);
    uint32_t load_smem_b = __cvta_generic_to_shared(&s_b[lane_id % 16][warp_n * 8]);
    LDMATRIX_X2_T(RB[0], RB[1], load_smem_b);
    HMMA16816(RD[0], RD[1], RA[0], RA[1], RA[2], RA[3], RB[0], RB[1], RC[0], RC[1]);
    const half2 low = *reinterpret_cast<half2*>(&RD[0]), high = *reinterpret_cast<half2*>(&RD[1]);
    acc[0] += __low2float(low), acc[1] += __high2float(low), acc[2] += __low2float(high), acc[3] += __high2float(high);
    __syncthreads();
  }
  const int g = lane_id / 4, t = lane_id % 4;
  for (int e = 0; e < 4; ++e) {
    const int r = by * BM + warp_m * 16 + g + 8 * (e / 2), col = bx * BN + warp_n * 8 + 2 * t + e % 2;
    if (r < M && col < N) c[(size_t)r * N + col] = acc[e];
  }
}

extern "C" void half_matmul(const half* A, const half* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 31) / 32));
  hgemm_mma_m16n8k16_macros<32, 16, 16><<<grid, 128, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
