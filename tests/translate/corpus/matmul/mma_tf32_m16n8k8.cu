// tf32 tensor cores through inline PTX: each float rounded with cvt.rna.tf32.f32 (a helper returning the bits),
// fragments read from shared tiles by the lanes' m16n8k8 positions (A rows g and g + 8 at k t and t + 4, B column g),
// mma.sync.m16n8k8.tf32 into float accumulators whose registers are named one by one; one warp per 16 x 8 tile.
// (The port multiplies the floats unrounded: Metal has no tf32. On an H100 this kernel misses the task's 1e-4
// tolerance by tf32's rounding, max_abs 2e-3, as a port that rounded would.)
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__global__ void tf32_mma(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n, int k) {
  __shared__ float a_tile[16][8];
  __shared__ float b_tile[8][8];  // [k][column]
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4, row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
  float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 8) {
    for (int i = lane; i < 128; i += 32) {
      a_tile[i / 8][i % 8] = row0 + i / 8 < m && k0 + i % 8 < k ? A[(size_t)(row0 + i / 8) * k + k0 + i % 8] : 0.0f;
      if (i < 64) b_tile[i / 8][i % 8] = k0 + i / 8 < k && col0 + i % 8 < n ? B[(size_t)(k0 + i / 8) * n + col0 + i % 8] : 0.0f;
    }
    __syncwarp();
    const uint32_t a0 = to_tf32(a_tile[g][t]), a1 = to_tf32(a_tile[g + 8][t]), a2 = to_tf32(a_tile[g][t + 4]),
                   a3 = to_tf32(a_tile[g + 8][t + 4]);
    const uint32_t b0 = to_tf32(b_tile[t][g]), b1 = to_tf32(b_tile[t + 4][g]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    __syncwarp();
  }
  const float d[4] = {c0, c1, c2, c3};
  for (int e = 0; e < 4; ++e) {
    const int r = row0 + g + 8 * (e / 2), c = col0 + 2 * t + e % 2;
    if (r < m && c < n) C[(size_t)r * n + c] = d[e];
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 7) / 8), (unsigned)((m + 15) / 16));
  tf32_mma<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
