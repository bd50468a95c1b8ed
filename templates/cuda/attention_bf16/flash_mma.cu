// attention_bf16, built-in cuda template family flash_mma: flash attention on mma.sync tiles; split-KV cluster decode.
// Knobs: ksearch replaces each #define below with the value it tries (flash_mma.toml lists them).
#define WARPS 4
#define BKV 64
#define DEC_TK 64
#define DEC_STAGES 3
#define DEC_CLUSTER 8

#include "async_copy.cuh"

constexpr int D = 128, BQ = 16 * WARPS, LDS = D + 8;  // rows padded by 16 bytes: conflict-free ldmatrix

__device__ __forceinline__ void ldsm_x2(uint32_t& r0, uint32_t& r1, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x2_trans(uint32_t& r0, uint32_t& r1, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(smem_u32(p)));
}
__device__ __forceinline__ uint32_t ld32(const bf16* p) { return *reinterpret_cast<const uint32_t*>(p); }

// One block: BQ query rows of one (batch, head); each warp 16 rows; K/V tiles of BKV keys in shared memory.
__global__ void __launch_bounds__(WARPS * 32) flash_prefill(const bf16* __restrict__ q, const bf16* __restrict__ k,
                                                            const bf16* __restrict__ v, bf16* __restrict__ o, int64_t hq,
                                                            int64_t hkv, int64_t lq, int64_t lk, int causal, float scale_log2) {
  __shared__ __align__(16) bf16 Ks[BKV][LDS];
  __shared__ __align__(16) bf16 Vs[BKV][LDS];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t tile = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // heavy causal tiles first
  const int64_t h = blockIdx.y, bi = blockIdx.z, kh = h / (hq / hkv);
  const int64_t row0 = tile * BQ + warp * 16 + g, row1 = row0 + 8;
  const bf16* Q = q + (bi * hq + h) * lq * D;
  const bf16* K = k + (bi * hkv + kh) * lk * D;
  const bf16* V = v + (bi * hkv + kh) * lk * D;
  uint32_t qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c = kk * 16 + 2 * t;
    qa[kk][0] = row0 < lq ? ld32(Q + row0 * D + c) : 0u;
    qa[kk][1] = row1 < lq ? ld32(Q + row1 * D + c) : 0u;
    qa[kk][2] = row0 < lq ? ld32(Q + row0 * D + c + 8) : 0u;
    qa[kk][3] = row1 < lq ? ld32(Q + row1 * D + c + 8) : 0u;
  }
  float acc[D / 8][4];
#pragma unroll
  for (int nb = 0; nb < D / 8; ++nb) acc[nb][0] = acc[nb][1] = acc[nb][2] = acc[nb][3] = 0.0f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.0f, l1 = 0.0f;
  const int64_t shift = lk - lq;  // causal: row i sees keys j <= i + shift
  const int64_t last_row = min(lq - 1, tile * BQ + BQ - 1);
  const int64_t kv_end = causal ? min(lk, last_row + shift + 1) : lk;
  for (int64_t j0 = 0; j0 < kv_end; j0 += BKV) {
    __syncthreads();  // the previous tile is consumed
    for (int c = threadIdx.x; c < BKV * (D / 8); c += WARPS * 32) {
      const int r = c / (D / 8), col = (c % (D / 8)) * 8;
      const bool key = j0 + r < lk;  // keys past lk are zero-filled
      cp_async16_zfill(&Ks[r][col], key ? K + (j0 + r) * D + col : K, key);
      cp_async16_zfill(&Vs[r][col], key ? V + (j0 + r) * D + col : V, key);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    float s[BKV / 8][4];
#pragma unroll
    for (int nb = 0; nb < BKV / 8; ++nb) {
      s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        uint32_t b0, b1;
        ldsm_x2(b0, b1, &Ks[nb * 8 + (lane % 8)][kk * 16 + ((lane / 8) % 2) * 8]);
        mma16816(s[nb], qa[kk], b0, b1);
      }
    }
    const bool edge = j0 + BKV > lk || (causal && j0 + BKV - 1 > tile * BQ + shift);
    float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
    for (int nb = 0; nb < BKV / 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[nb][e] * scale_log2;
        if (edge) {
          const int64_t j = j0 + nb * 8 + 2 * t + (e & 1), row = e < 2 ? row0 : row1;
          if (j >= lk || (causal && j > row + shift)) x = -INFINITY;
        }
        s[nb][e] = x;
        if (e < 2) mx0 = fmaxf(mx0, x); else mx1 = fmaxf(mx1, x);
      }
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
      mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, off));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, off));
    }
    const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
    const float base0 = n0 == -INFINITY ? 0.0f : n0, base1 = n1 == -INFINITY ? 0.0f : n1;
    const float c0 = exp2f(m0 - base0), c1 = exp2f(m1 - base1);
    m0 = n0;
    m1 = n1;
    l0 *= c0;
    l1 *= c1;
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
      acc[nb][0] *= c0; acc[nb][1] *= c0; acc[nb][2] *= c1; acc[nb][3] *= c1;
    }
#pragma unroll
    for (int nb = 0; nb < BKV / 8; ++nb) {
      s[nb][0] = exp2f(s[nb][0] - base0); s[nb][1] = exp2f(s[nb][1] - base0);
      s[nb][2] = exp2f(s[nb][2] - base1); s[nb][3] = exp2f(s[nb][3] - base1);
      l0 += s[nb][0] + s[nb][1];
      l1 += s[nb][2] + s[nb][3];
    }
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk) {
      const uint32_t a[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]), pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                             pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int nb = 0; nb < D / 8; ++nb) {
        uint32_t b0, b1;
        ldsm_x2_trans(b0, b1, &Vs[kk * 16 + (lane % 16)][nb * 8]);
        mma16816(acc[nb], a, b0, b1);
      }
    }
  }
#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {
    l0 += __shfl_xor_sync(0xffffffffu, l0, off);
    l1 += __shfl_xor_sync(0xffffffffu, l1, off);
  }
  const float inv0 = 1.0f / l0, inv1 = 1.0f / l1;
  bf16* O = o + (bi * hq + h) * lq * D;
#pragma unroll
  for (int nb = 0; nb < D / 8; ++nb) {
    const int c = nb * 8 + 2 * t;
    if (row0 < lq) *reinterpret_cast<uint32_t*>(O + row0 * D + c) = pack_bf16(acc[nb][0] * inv0, acc[nb][1] * inv0);
    if (row1 < lq) *reinterpret_cast<uint32_t*>(O + row1 * D + c) = pack_bf16(acc[nb][2] * inv1, acc[nb][3] * inv1);
  }
}

#include "decode_split.cuh"
#include "rows_fallback.cuh"

extern "C" void attention(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (b * hq * lq == 0 || launch_rows_fallback(q, k, v, o, b, hq, hkv, lq, lk, d, causal, stream)) return;
  const float scale_log2 = 1.4426950408889634f / sqrtf(float(d));
  // A single query sees every key, causal or not.
  if (lq == 1 && lk > 0 && launch_decode_split(q, k, v, o, b, hq, hkv, lk, scale_log2, stream)) return;
  const dim3 grid(unsigned((lq + BQ - 1) / BQ), unsigned(hq), unsigned(b));
  flash_prefill<<<grid, WARPS * 32, 0, stream>>>(q, k, v, o, hq, hkv, lq, lk, causal, scale_log2);
}
