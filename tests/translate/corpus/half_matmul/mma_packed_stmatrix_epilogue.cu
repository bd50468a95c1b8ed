// Fragments packed and unpacked by PTX moves and stored by stmatrix, as hand-written f16 epilogues do: A's fragment
// registers packed from two 16-bit halves with `mov.b32 %0, {%1, %2};`, B's loaded with ldmatrix.x2.trans from a
// row-major tile, one mma.sync.m16n8k16 per k step and n8 tile, then each accumulator pair rounded to half2 with
// cvt.rn.f16x2.f32 and written to shared memory with stmatrix (.x2 for the first n8 tile, .x2.trans into a transposed
// tile for the second), except rows g + 8 of the first tile, unpacked with `mov.b32 {%0, %1}, %2;` and widened with
// cvt.f32.f16. One warp per 16 x 16 tile of C.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t pack_halves(__half lo, __half hi) {
  uint32_t r;
  asm("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(__half_as_ushort(lo)), "h"(__half_as_ushort(hi)));
  return r;
}

__device__ __forceinline__ uint32_t round_pair(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__global__ void hgemm_epilogue(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int m,
                               int n, int k) {
  __shared__ __align__(16) __half a_tile[16][16];
  __shared__ __align__(16) __half b_tile[16][16];  // [k][column]
  __shared__ __align__(16) __half c_tile[16][8];   // the first n8 tile, rows g only
  __shared__ __align__(16) __half ct_tile[8][16];  // the second, transposed: [column][row]
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4, row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  float acc[2][4] = {};
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int i = lane; i < 256; i += 32) {
      const int r = i / 16, c = i % 16;
      a_tile[r][c] = row0 + r < m && k0 + c < k ? A[(size_t)(row0 + r) * k + k0 + c] : __float2half(0.0f);
      b_tile[r][c] = k0 + r < k && col0 + c < n ? B[(size_t)(k0 + r) * n + col0 + c] : __float2half(0.0f);
    }
    __syncwarp();
    uint32_t a[4];
    for (int h = 0; h < 4; ++h) {
      const int r = g + 8 * (h % 2), c = 2 * t + 8 * (h / 2);
      a[h] = pack_halves(a_tile[r][c], a_tile[r][c + 1]);
    }
    for (int j = 0; j < 2; ++j) {
      uint32_t b0, b1;
      const uint32_t address = __cvta_generic_to_shared(&b_tile[lane % 16][8 * j]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(address));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    __syncwarp();
  }
  // first tile: rows g through stmatrix.x1 (lanes 0-7 address rows 0-7), rows g + 8 unpacked in registers
  const uint32_t top = round_pair(acc[0][0], acc[0][1]), bottom = round_pair(acc[0][2], acc[0][3]);
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"((uint32_t)__cvta_generic_to_shared(&c_tile[lane % 8][0])),
               "r"(top));
  unsigned short lo, hi;
  asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(bottom));
  float low, high;
  asm("cvt.f32.f16 %0, %1;" : "=f"(low) : "h"(lo));
  asm("cvt.f32.f16 %0, %1;" : "=f"(high) : "h"(hi));
  // second tile: both row halves through stmatrix.x2.trans (matrix i holds rows 8i .. 8i + 7)
  const uint32_t second[2] = {round_pair(acc[1][0], acc[1][1]), round_pair(acc[1][2], acc[1][3])};
  const uint32_t column_row = __cvta_generic_to_shared(&ct_tile[lane % 8][8 * ((lane / 8) % 2)]);
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(column_row), "r"(second[0]), "r"(second[1]));
  __syncwarp();
  for (int i = lane; i < 256; i += 32) {
    const int r = i / 16, c = i % 16;
    if (row0 + r >= m || col0 + c >= n) continue;
    if (c >= 8) C[(size_t)(row0 + r) * n + col0 + c] = __half2float(ct_tile[c - 8][r]);
    else if (r < 8) C[(size_t)(row0 + r) * n + col0 + c] = __half2float(c_tile[r][c]);
  }
  for (int e = 0; e < 2; ++e) {
    const int r = row0 + g + 8, c = col0 + 2 * t + e;
    if (r < m && c < n) C[(size_t)r * n + c] = e == 0 ? low : high;
  }
}

extern "C" void half_matmul(const __half* A, const __half* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  hgemm_epilogue<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
