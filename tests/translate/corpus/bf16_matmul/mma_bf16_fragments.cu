// bf16 tensor cores without ldmatrix: each lane packs its fragment's bf16 pairs from shared memory itself (a 32-bit
// load of two neighbours, the m16n8k8 layout: A rows g and g + 8 at k 2t, B column g at k 2t, from a transposed B
// tile) and runs mma.sync.m16n8k8.bf16 over k steps of 8; one warp per 16 x 8 tile of C.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void bf16_mma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, float* __restrict__ C,
                         int m, int n, int k) {
  __shared__ __align__(16) __nv_bfloat16 a_tile[16][8];
  __shared__ __align__(16) __nv_bfloat16 b_tile[8][8];  // [column of B][k]
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < k; k0 += 8) {
    for (int i = lane; i < 128; i += 32) {
      const int r = i / 8, c = i % 8;
      a_tile[r][c] = row0 + r < m && k0 + c < k ? A[(size_t)(row0 + r) * k + k0 + c] : __float2bfloat16(0.0f);
      if (i < 64) b_tile[r][c] = col0 + r < n && k0 + c < k ? B[(size_t)(k0 + c) * n + col0 + r] : __float2bfloat16(0.0f);
    }
    __syncwarp();
    const uint32_t a0 = *reinterpret_cast<const uint32_t*>(&a_tile[g][2 * t]);
    const uint32_t a1 = *reinterpret_cast<const uint32_t*>(&a_tile[g + 8][2 * t]);
    const uint32_t b0 = *reinterpret_cast<const uint32_t*>(&b_tile[g][2 * t]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0));
    __syncwarp();
  }
  for (int e = 0; e < 4; ++e) {
    const int r = row0 + g + 8 * (e / 2), c = col0 + 2 * t + e % 2;
    if (r < m && c < n) C[(size_t)r * n + c] = d[e];
  }
}

extern "C" void bf16_matmul(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int64_t m, int64_t n, int64_t k,
                            cudaStream_t stream) {
  dim3 grid((unsigned)((n + 7) / 8), (unsigned)((m + 15) / 16));
  bf16_mma<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
