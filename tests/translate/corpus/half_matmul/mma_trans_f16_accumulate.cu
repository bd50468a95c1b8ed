// B kept row-major in shared memory and read with ldmatrix.x2.trans (the transposed load the col operand needs),
// A with ldmatrix.x4 through an address held in a variable, two warps per block (one 16 x 8 tile of C each), and the
// f16-accumulating mma.sync (`.f16.f16.f16.f16`): each k step's product is accumulated from zero in half2 registers
// and added into float, so that rounding to half happens once per 16 products.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void hgemm_trans(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int m, int n,
                            int k) {
  __shared__ __align__(16) __half a_tile[16][16];
  __shared__ __align__(16) __half b_tile[16][16];  // [k][column]
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
      const int r = i / 16, c = i % 16;
      a_tile[r][c] = row0 + r < m && k0 + c < k ? A[(size_t)(row0 + r) * k + k0 + c] : __float2half(0.0f);
      b_tile[r][c] = k0 + r < k && col0 + c < n ? B[(size_t)(k0 + r) * n + col0 + c] : __float2half(0.0f);
    }
    __syncthreads();
    uint32_t a0, a1, a2, a3, b0, b1;
    const uint32_t a_address = __cvta_generic_to_shared(&a_tile[lane % 16][(lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(a_address));
    // lanes 0-7 give k rows 0-7 and lanes 8-15 rows 8-15 of this warp's 8 columns
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b0), "=r"(b1)
                 : "r"((uint32_t)__cvta_generic_to_shared(&b_tile[lane % 16][8 * warp])));
    uint32_t d0 = 0, d1 = 0;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                 : "+r"(d0), "+r"(d1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    const float2 low = __half22float2(*reinterpret_cast<const __half2*>(&d0));
    const float2 high = __half22float2(*reinterpret_cast<const __half2*>(&d1));
    acc[0] += low.x, acc[1] += low.y, acc[2] += high.x, acc[3] += high.y;
    __syncthreads();
  }
  const int g = lane / 4, t = lane % 4;
  for (int e = 0; e < 4; ++e) {
    const int r = row0 + g + 8 * (e / 2), c = col0 + 8 * warp + 2 * t + e % 2;
    if (r < m && c < n) C[(size_t)r * n + c] = acc[e];
  }
}

extern "C" void half_matmul(const __half* A, const __half* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
  hgemm_trans<<<grid, 64, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
