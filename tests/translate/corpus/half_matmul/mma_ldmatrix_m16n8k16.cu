// Tensor cores through inline PTX, as hand-written HGEMMs spell them: one warp per 16 x 16 tile of C, A's 16 x 16 and
// B's (stored transposed, a row per column of B) staged in shared memory with zero padding (any m, n, k), fragments
// loaded with ldmatrix.x4 from __cvta_generic_to_shared addresses and multiplied by two mma.sync.m16n8k16 into float
// accumulators, stored from the lanes' fragment positions.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__global__ void hgemm_mma(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int m, int n,
                          int k) {
  __shared__ __align__(16) __half a_tile[16][16];
  __shared__ __align__(16) __half b_tile[16][16];  // [column of B][k]
  const int lane = threadIdx.x, row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  float acc[2][4] = {};
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int i = lane; i < 256; i += 32) {
      const int r = i / 16, c = i % 16;
      a_tile[r][c] = row0 + r < m && k0 + c < k ? A[(size_t)(row0 + r) * k + k0 + c] : __float2half(0.0f);
      b_tile[r][c] = col0 + r < n && k0 + c < k ? B[(size_t)(k0 + c) * n + col0 + r] : __float2half(0.0f);
    }
    __syncwarp();
    uint32_t a[4], b[4];
    // lanes 0-15 give rows 0-15 at k 0, lanes 16-31 the same rows at k 8: matrices (rows 0-7, k 0-7), (8-15, 0-7),
    // (0-7, 8-15), (8-15, 8-15), a0..a3 of the m16n8k16 layout
    ldmatrix_x4(a, static_cast<uint32_t>(__cvta_generic_to_shared(&a_tile[lane % 16][(lane / 16) * 8])));
    // B's columns 0-7 at k 0 and 8, then columns 8-15: b0, b1 of the first n8 tile and of the second
    ldmatrix_x4(b, static_cast<uint32_t>(__cvta_generic_to_shared(&b_tile[(lane % 8) + 8 * (lane / 16)][8 * ((lane / 8) % 2)])));
    mma_16816(acc[0], a, b[0], b[1]);
    mma_16816(acc[1], a, b[2], b[3]);
    __syncwarp();
  }
  const int g = lane / 4, t = lane % 4;
  for (int j = 0; j < 2; ++j)
    for (int e = 0; e < 4; ++e) {
      const int r = row0 + g + 8 * (e / 2), c = col0 + 8 * j + 2 * t + e % 2;
      if (r < m && c < n) C[(size_t)r * n + c] = acc[j][e];
    }
}

extern "C" void half_matmul(const __half* A, const __half* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  hgemm_mma<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
