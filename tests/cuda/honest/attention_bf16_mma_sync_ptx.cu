// task: attention_bf16
// FA2-style attention with inline PTX: mma.sync m16n8k16 (bf16 in, fp32 accumulate) for S = Q K^T and O += P V,
// P taken from S's accumulators as A fragments, the online softmax in registers; K/V tiles of 16 keys loaded
// through ld.global.nc into shared memory for the block's 4 warps (16 query rows each). The head size is a
// template parameter chosen by a host switch.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

namespace fa {

constexpr int kWarps = 4, kRowsPerWarp = 16, kKeys = 16;

__device__ __forceinline__ uint4 ld_nc_v4(const void* p) {
  uint4 r;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

__device__ __forceinline__ uint32_t pack_raw(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return uint32_t(__bfloat16_as_ushort(lo)) | (uint32_t(__bfloat16_as_ushort(hi)) << 16);
}

// D (16x8, fp32) += A (16x16, bf16, row) * B (16x8, bf16, col)
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <int D>
__global__ void __launch_bounds__(kWarps * 32)
flash_mma(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k, const __nv_bfloat16* __restrict__ v,
          __nv_bfloat16* __restrict__ o, int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int causal, float scale_log2) {
  static_assert(D % 16 == 0 && D <= 256, "head size: a multiple of 16");
  __shared__ __align__(16) __nv_bfloat16 Ks[kKeys][D + 8];
  __shared__ __align__(16) __nv_bfloat16 Vs[kKeys][D + 8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t bh = blockIdx.y, batch = bh / hq, head = bh % hq, kvh = head / (hq / hkv);
  const int64_t r0 = int64_t(blockIdx.x) * kWarps * kRowsPerWarp + warp * kRowsPerWarp;
  const __nv_bfloat16* qb = q + bh * lq * D;
  const __nv_bfloat16* kb = k + (batch * hkv + kvh) * lk * D;
  const __nv_bfloat16* vb = v + (batch * hkv + kvh) * lk * D;
  const __nv_bfloat16 zero = __float2bfloat16(0.f);
  // Q's A fragments for every 16-wide slice of the head: rows g and g + 8, columns 2t, 2t+1 and 2t+8, 2t+9.
  uint32_t qa[D / 16][4];
  const int64_t rg = r0 + g, rg8 = r0 + g + 8;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c = kk * 16 + 2 * t;
    auto at = [&](int64_t r, int col) { return r < lq ? qb[r * D + col] : zero; };
    qa[kk][0] = pack_raw(at(rg, c), at(rg, c + 1));
    qa[kk][1] = pack_raw(at(rg8, c), at(rg8, c + 1));
    qa[kk][2] = pack_raw(at(rg, c + 8), at(rg, c + 9));
    qa[kk][3] = pack_raw(at(rg8, c + 8), at(rg8, c + 9));
  }
  float acc[D / 8][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
  const int64_t shift = lk - lq;
  const int64_t block_last_row = int64_t(blockIdx.x + 1) * kWarps * kRowsPerWarp - 1;
  const int64_t kend = causal ? min(lk, block_last_row + shift + 1) : lk;
  for (int64_t j0 = 0; j0 < kend; j0 += kKeys) {
    __syncthreads();
    for (int i = threadIdx.x; i < kKeys * D / 8; i += kWarps * 32) {
      const int key = i / (D / 8), c = (i % (D / 8)) * 8;
      const bool in = j0 + key < lk;
      const uint4 kv = in ? ld_nc_v4(kb + (j0 + key) * D + c) : make_uint4(0, 0, 0, 0);
      const uint4 vv = in ? ld_nc_v4(vb + (j0 + key) * D + c) : make_uint4(0, 0, 0, 0);
      *reinterpret_cast<uint4*>(&Ks[key][c]) = kv;
      *reinterpret_cast<uint4*>(&Vs[key][c]) = vv;
    }
    __syncthreads();
    // S: two n-tiles of 8 keys.
    float s[2][4] = {};
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const __nv_bfloat16* krow = &Ks[nt * 8 + g][kk * 16 + 2 * t];
        mma_bf16(s[nt], qa[kk], *reinterpret_cast<const uint32_t*>(krow), *reinterpret_cast<const uint32_t*>(krow + 8));
      }
    // Mask and scale (log2 domain), row maxima over the 4 lanes of a row group.
    float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t r = e < 2 ? rg : rg8, j = j0 + nt * 8 + 2 * t + (e & 1);
        const bool visible = r < lq && j < lk && (!causal || j <= r + shift);
        s[nt][e] = visible ? s[nt][e] * scale_log2 : -INFINITY;
        tile_max[e / 2] = fmaxf(tile_max[e / 2], s[nt][e]);
      }
    float alpha[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 1));
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 2));
      const float m_new = fmaxf(m[h], tile_max[h]);
      alpha[h] = m_new == -INFINITY ? 1.f : exp2f(m[h] - m_new);
      m[h] = m_new;
    }
    float rowsum[2] = {0.f, 0.f};
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int h = e / 2;
        s[nt][e] = m[h] == -INFINITY ? 0.f : exp2f(s[nt][e] - m[h]);
        rowsum[h] += s[nt][e];
      }
#pragma unroll
    for (int h = 0; h < 2; ++h) l[h] = l[h] * alpha[h] + rowsum[h];  // lane-partial sums, reduced at the end
#pragma unroll
    for (int nd = 0; nd < D / 8; ++nd) {
      acc[nd][0] *= alpha[0];
      acc[nd][1] *= alpha[0];
      acc[nd][2] *= alpha[1];
      acc[nd][3] *= alpha[1];
    }
    const uint32_t pa[4] = {pack_bf16(s[0][0], s[0][1]), pack_bf16(s[0][2], s[0][3]), pack_bf16(s[1][0], s[1][1]),
                            pack_bf16(s[1][2], s[1][3])};
#pragma unroll
    for (int nd = 0; nd < D / 8; ++nd) {
      const int col = nd * 8 + g;
      const uint32_t b0 = pack_raw(Vs[2 * t][col], Vs[2 * t + 1][col]);
      const uint32_t b1 = pack_raw(Vs[2 * t + 8][col], Vs[2 * t + 9][col]);
      mma_bf16(acc[nd], pa, b0, b1);
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
#pragma unroll
  for (int nd = 0; nd < D / 8; ++nd)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int h = e / 2;
      const int64_t r = h ? rg8 : rg;
      if (r < lq) o[(bh * lq + r) * D + nd * 8 + 2 * t + (e & 1)] = __float2bfloat16(l[h] > 0.f ? acc[nd][e] / l[h] : 0.f);
    }
}

template <int D>
void launch(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq,
            int64_t hkv, int64_t lq, int64_t lk, int32_t causal, cudaStream_t stream) {
  const int rows_per_block = kWarps * kRowsPerWarp;
  const dim3 grid(unsigned((lq + rows_per_block - 1) / rows_per_block), unsigned(b * hq));
  const float scale_log2 = 1.4426950408889634f / sqrtf(float(D));
  flash_mma<D><<<grid, kWarps * 32, 0, stream>>>(q, k, v, o, hq, hkv, lq, lk, causal, scale_log2);
}

}  // namespace fa

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  switch (d) {
    case 64: return fa::launch<64>(q, k, v, o, b, hq, hkv, lq, lk, causal, stream);
    case 96: return fa::launch<96>(q, k, v, o, b, hq, hkv, lq, lk, causal, stream);
    case 128: return fa::launch<128>(q, k, v, o, b, hq, hkv, lq, lk, causal, stream);
    default: fprintf(stderr, "attention: unsupported head size %lld\n", (long long)d);
  }
}
