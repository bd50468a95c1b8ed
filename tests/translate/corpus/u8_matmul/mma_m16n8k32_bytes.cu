// Integer tensor cores through inline PTX: mma.sync.m16n8k32 of unsigned bytes into s32 accumulators, each lane
// packing four neighbouring bytes of its fragment (A rows g and g + 8 at k 4t and 16 + 4t, B column g) from shared
// tiles with one 32-bit load; B is staged transposed. One warp per 16 x 8 tile of C, k in steps of 32, zero padded.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void u8_mma(const uint8_t* __restrict__ A, const uint8_t* __restrict__ B, int32_t* __restrict__ C, int m, int n,
                       int k) {
  __shared__ __align__(16) uint8_t a_tile[16][32];
  __shared__ __align__(16) uint8_t b_tile[8][32];  // [column of B][k]
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
  int d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < k; k0 += 32) {
    for (int i = lane; i < 16 * 32; i += 32) {
      const int r = i / 32, c = i % 32;
      a_tile[r][c] = row0 + r < m && k0 + c < k ? A[(size_t)(row0 + r) * k + k0 + c] : 0;
      if (r < 8) b_tile[r][c] = col0 + r < n && k0 + c < k ? B[(size_t)(k0 + c) * n + col0 + r] : 0;
    }
    __syncwarp();
    const uint32_t* a_rows = reinterpret_cast<const uint32_t*>(&a_tile[0][0]);
    const uint32_t* b_rows = reinterpret_cast<const uint32_t*>(&b_tile[0][0]);
    const uint32_t a0 = a_rows[g * 8 + t], a1 = a_rows[(g + 8) * 8 + t], a2 = a_rows[g * 8 + 4 + t], a3 = a_rows[(g + 8) * 8 + 4 + t];
    const uint32_t b0 = b_rows[g * 8 + t], b1 = b_rows[g * 8 + 4 + t];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    __syncwarp();
  }
  for (int e = 0; e < 4; ++e) {
    const int r = row0 + g + 8 * (e / 2), c = col0 + 2 * t + e % 2;
    if (r < m && c < n) C[(size_t)r * n + c] = d[e];
  }
}

extern "C" void u8_matmul(const uint8_t* A, const uint8_t* B, int32_t* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 7) / 8), (unsigned)((m + 15) / 16));
  u8_mma<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
