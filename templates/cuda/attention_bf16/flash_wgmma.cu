// attention_bf16, built-in cuda template family flash_wgmma: Hopper flash attention on warpgroup MMAs (wgmma) from 128-byte-swizzled shared memory.
// Knobs: ksearch replaces each #define below with the value it tries (flash_wgmma.toml lists them).
#define WGS 2
#define BKV 128

#include "async_copy.cuh"
#include "wgmma_bf16.cuh"

constexpr int D = 128;          // the tensor-core path's head size
constexpr int NT = 128 * WGS;   // threads per block: WGS warpgroups
constexpr int BQ = 64 * WGS;    // query rows per block, 64 per warpgroup
constexpr uint32_t Q_BYTES = BQ * D * 2, KV_BYTES = BKV * D * 2;
// Q, then two buffers of K and three of V, each 1024-aligned; 1024 bytes of slack align the dynamic base.
constexpr size_t PREFILL_SMEM = 1024 + size_t(Q_BYTES) + 5 * size_t(KV_BYTES);
static_assert(BKV == 64 || BKV == 128, "BKV is 64 or 128");
static_assert(WGS == 2 || WGS == 3, "WGS is 2 or 3");
static_assert(PREFILL_SMEM <= 227 * 1024, "shared memory per block: 227 KB at most");

// Rows r0 .. r0+ROWS-1 of a [rows][D] bf16 matrix into a swizzled tile at shared address `tile`: two halves of 64
// columns, half h at tile + h * ROWS * 128, row r's 16-byte unit u at r * 128 + ((u ^ (r % 8)) * 16). Rows past
// `limit` are zero-filled. Consecutive threads copy consecutive 16-byte pieces of a row: coalesced reads.
template <int ROWS>
__device__ __forceinline__ void load_tile_sw128(uint32_t tile, const bf16* src, int r0, int limit) {
#pragma unroll
  for (int i = int(threadIdx.x); i < ROWS * (D / 8); i += NT) {
    const int r = i / (D / 8), u = i % (D / 8), half = u / 8, unit = u % 8;
    const bool ok = r0 + r < limit;
    cp_async16_zfill(tile + half * ROWS * 128 + r * 128 + ((unit ^ (r & 7)) << 4), ok ? src + int64_t(r0 + r) * D + u * 8 : src, ok);
  }
}

// S (64 x BKV) = Q_wg K^T over the 8 16-dim steps: step ks is 32 bytes into half ks / 4 of both tiles.
__device__ __forceinline__ void issue_qk(float (&s)[BKV / 2], uint32_t q_tile, uint32_t k_tile) {
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    const uint64_t dq = sw128_desc(q_tile + (ks / 4) * BQ * 128 + (ks % 4) * 32, 16, 1024);
    const uint64_t dk = sw128_desc(k_tile + (ks / 4) * BKV * 128 + (ks % 4) * 32, 16, 1024);
    wgmma_ss(s, dq, dk, ks > 0);
  }
}

// O (64 x 128) += P V: P from registers (the S accumulator layout is the A layout of P), V read transposed from its
// swizzled tile (keys along rows: 16 keys are 2048 bytes; the two 64-dim halves are BKV * 128 bytes apart).
__device__ __forceinline__ void issue_pv(float (&acc)[D / 2], const uint32_t (&p)[BKV / 16][4], uint32_t v_tile) {
#pragma unroll
  for (int kk = 0; kk < BKV / 16; ++kk)
    wgmma_rs_tb(acc, p[kk], sw128_desc(v_tile + kk * 16 * 128, BKV * 128, 1024), 1);
}

// Prefill: one block per (query tile of BQ rows, head, batch); warpgroup wg owns rows wg*64 .. wg*64+63. All threads
// stream K and V tiles by cp.async (K double-, V triple-buffered: tile j+1 loads while tile j computes); each
// warpgroup issues S = Q K^T and O += P V as wgmma from shared memory, its softmax in registers (a thread holds rows
// g and g+8 of its warp's 16). FA3's intra-warpgroup pipelining: per tile j, S_j and then P_j-1 V_j-1 are issued
// together, and the softmax of S_j runs while the tensor cores still do P_j-1 V_j-1. Every warpgroup runs every tile
// of the block (causal: a warpgroup above the diagonal computes at most one fully masked tile), so that no wgmma
// sits under a branch that differs between warpgroups (ptxas would serialize them).
__device__ __forceinline__ uint32_t k_buffer(uint32_t Ks, int jt) { return Ks + (jt & 1) * KV_BYTES; }
__device__ __forceinline__ uint32_t v_buffer(uint32_t Vs, int jt) { return Vs + (jt % 3) * KV_BYTES; }

__global__ void __launch_bounds__(NT, 1) flash_wgmma_prefill(const bf16* __restrict__ q, const bf16* __restrict__ k,
                                                             const bf16* __restrict__ v, bf16* __restrict__ o,
                                                             int64_t hq, int64_t hkv, int lq, int lk, int causal,
                                                             float scale_log2) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw), Qs = (raw + 1023) & ~1023u, Ks = Qs + Q_BYTES, Vs = Ks + 2 * KV_BYTES;
  // The warpgroup index through a shuffle: ptxas then knows it is uniform, and wgmma under branches on it is not
  // serialized.
  const int wg = __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0), warp = (int(threadIdx.x) % 128) / 32, lane = int(threadIdx.x) % 32;
  const int g = lane / 4, t = lane % 4;
  const int tile = causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);  // heavy causal tiles first
  const int64_t h = blockIdx.y, bi = blockIdx.z, kh = h / (hq / hkv);
  const bf16* Q = q + (bi * hq + h) * lq * D;
  const bf16* K = k + (bi * hkv + kh) * lk * D;
  const bf16* V = v + (bi * hkv + kh) * lk * D;
  bf16* O = o + (bi * hq + h) * lq * D;
  const int q0 = tile * BQ, wq0 = q0 + wg * 64, shift = lk - lq;  // causal: row i sees keys j <= i + shift
  const int kv_end = causal ? min(lk, min(lq - 1, q0 + BQ - 1) + shift + 1) : lk;  // keys any row of the block sees
  const int n_tiles = kv_end > 0 ? (kv_end + BKV - 1) / BKV : 0;
  const int wg_last = min(wq0 + 63, lq - 1);  // the warpgroup's last query row (< wq0: no rows)
  const uint32_t q_tile = Qs + wg * 64 * 128;

  load_tile_sw128<BQ>(Qs, Q, q0, lq);
  if (n_tiles > 0) {
    load_tile_sw128<BKV>(Ks, K, 0, lk);
    load_tile_sw128<BKV>(Vs, V, 0, lk);
  }
  cp_async_commit();

  const int row_a = wq0 + warp * 16 + g, row_b = row_a + 8;  // this thread's two rows
  const int lim_a = causal ? min(lk - 1, row_a + shift) : lk - 1, lim_b = causal ? min(lk - 1, row_b + shift) : lk - 1;
  float acc[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) acc[i] = 0.0f;
  float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.0f, l_b = 0.0f;
  uint32_t p[BKV / 16][4];  // P_j-1 as bf16 A fragments, read by its wgmma until the wait

  for (int jt = 0; jt < n_tiles; ++jt) {
    const int j0 = jt * BKV;
    cp_async_wait<0>();   // this thread's pieces of tile jt have landed
    fence_proxy_async();  // and are visible to wgmma
    __syncthreads();      // everyone's have; every warpgroup is done with S_jt-1 and P_jt-2 V_jt-2
    if (jt + 1 < n_tiles) {
      load_tile_sw128<BKV>(k_buffer(Ks, jt + 1), K, j0 + BKV, lk);
      load_tile_sw128<BKV>(v_buffer(Vs, jt + 1), V, j0 + BKV, lk);
    }
    cp_async_commit();
    float s[BKV / 2];
    wgmma_fence();
    issue_qk(s, q_tile, k_buffer(Ks, jt));
    wgmma_commit();
    if (jt > 0) {
      wgmma_fence();
      issue_pv(acc, p, v_buffer(Vs, jt - 1));
    }
    wgmma_commit();   // (empty for tile 0) the waits below are unconditional: ptxas serializes wgmma otherwise
    wgmma_wait<1>();  // S_jt has landed; P_jt-1 V_jt-1 may still run
    pin_registers(s);

    if (j0 + BKV > lk || (causal && j0 + BKV - 1 > wq0 + shift)) {  // an edge tile: mask keys past lim
#pragma unroll
      for (int nb = 0; nb < BKV / 8; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int j = j0 + nb * 8 + 2 * t + (e & 1);
          if (j > (e < 2 ? lim_a : lim_b)) s[4 * nb + e] = -INFINITY;
        }
    }
    float mx_a = -INFINITY, mx_b = -INFINITY;
#pragma unroll
    for (int nb = 0; nb < BKV / 8; ++nb) {
      mx_a = fmaxf(mx_a, fmaxf(s[4 * nb], s[4 * nb + 1]));
      mx_b = fmaxf(mx_b, fmaxf(s[4 * nb + 2], s[4 * nb + 3]));
    }
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {  // a row's keys are spread over the 4 lanes of a quad
      mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, off));
      mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, off));
    }
    // One FFMA and one EX2 per element; a row with no visible key yet keeps base 0 (p = 0, not NaN).
    const float n_a = fmaxf(m_a, mx_a), n_b = fmaxf(m_b, mx_b);
    const float base_a = n_a == -INFINITY ? 0.0f : n_a * scale_log2, base_b = n_b == -INFINITY ? 0.0f : n_b * scale_log2;
    const float c_a = fast_exp2(m_a * scale_log2 - base_a), c_b = fast_exp2(m_b * scale_log2 - base_b);
    m_a = n_a;
    m_b = n_b;
    l_a *= c_a;
    l_b *= c_b;
#pragma unroll
    for (int nb = 0; nb < BKV / 8; ++nb) {
      s[4 * nb] = fast_exp2(fmaf(s[4 * nb], scale_log2, -base_a));
      s[4 * nb + 1] = fast_exp2(fmaf(s[4 * nb + 1], scale_log2, -base_a));
      s[4 * nb + 2] = fast_exp2(fmaf(s[4 * nb + 2], scale_log2, -base_b));
      s[4 * nb + 3] = fast_exp2(fmaf(s[4 * nb + 3], scale_log2, -base_b));
      l_a += s[4 * nb] + s[4 * nb + 1];
      l_b += s[4 * nb + 2] + s[4 * nb + 3];
    }
    wgmma_wait<0>();  // O and P belong to the running wgmma until it completes
    pin_registers(acc);
    pin_registers(p);
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
      acc[4 * nb] *= c_a;
      acc[4 * nb + 1] *= c_a;
      acc[4 * nb + 2] *= c_b;
      acc[4 * nb + 3] *= c_b;
    }
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk) {
      p[kk][0] = pack_bf16(s[8 * kk], s[8 * kk + 1]);
      p[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);
      p[kk][2] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);
      p[kk][3] = pack_bf16(s[8 * kk + 6], s[8 * kk + 7]);
    }
  }
  if (n_tiles > 0) {  // the last P V
    wgmma_fence();
    issue_pv(acc, p, v_buffer(Vs, n_tiles - 1));
    wgmma_commit();
    wgmma_wait<0>();
    pin_registers(acc);
  }
  if (wq0 > wg_last) return;
#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {
    l_a += __shfl_xor_sync(0xffffffffu, l_a, off);
    l_b += __shfl_xor_sync(0xffffffffu, l_b, off);
  }
  const float inv_a = l_a > 0.0f ? 1.0f / l_a : 0.0f, inv_b = l_b > 0.0f ? 1.0f / l_b : 0.0f;
  // Stage the output in the warpgroup's own Q rows (same swizzle: the quads' 4-byte writes hit 32 distinct banks),
  // then 16-byte coalesced stores. Only this warpgroup's wgmmas read those rows, and they have completed.
  unsigned char* q_rows = smem_raw + (q_tile - raw);
  const int ra = warp * 16 + g;
#pragma unroll
  for (int nb = 0; nb < D / 8; ++nb) {
    const int half = nb / 8, unit = nb % 8;
    unsigned char* pa = q_rows + half * BQ * 128 + ra * 128 + ((unit ^ (ra & 7)) << 4) + 4 * t;
    *reinterpret_cast<uint32_t*>(pa) = pack_bf16(acc[4 * nb] * inv_a, acc[4 * nb + 1] * inv_a);
    *reinterpret_cast<uint32_t*>(pa + 8 * 128) = pack_bf16(acc[4 * nb + 2] * inv_b, acc[4 * nb + 3] * inv_b);
  }
  asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory");  // the warpgroup's 4 warps only
#pragma unroll
  for (int i = int(threadIdx.x) % 128; i < 64 * (D / 8); i += 128) {
    const int r = i / (D / 8), u = i % (D / 8), half = u / 8, unit = u % 8;
    if (wq0 + r < lq)
      *reinterpret_cast<uint4*>(O + int64_t(wq0 + r) * D + u * 8) =
          *reinterpret_cast<const uint4*>(q_rows + half * BQ * 128 + r * 128 + ((unit ^ (r & 7)) << 4));
  }
#endif
}

#include "rows_fallback.cuh"

// The wgmma path needs sm_90a (H100, H200) and head size 128; everything else, and decode, takes the rows loop.
extern "C" void attention(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (b * hq * lq == 0 || launch_rows_fallback(q, k, v, o, b, hq, hkv, lq, lk, d, causal, stream)) return;
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (lq == 1 || major != 9 || minor != 0) {
    attention_rows<<<unsigned((b * hq * lq + 3) / 4), dim3(32, 4), 0, stream>>>(q, k, v, o, b, hq, hkv, lq, lk, d, causal);
    return;
  }
  const float scale_log2 = 1.4426950408889634f / sqrtf(float(d));
  cudaFuncSetAttribute(flash_wgmma_prefill, cudaFuncAttributeMaxDynamicSharedMemorySize, int(PREFILL_SMEM));
  flash_wgmma_prefill<<<dim3(unsigned((lq + BQ - 1) / BQ), unsigned(hq), unsigned(b)), NT, PREFILL_SMEM, stream>>>(
      q, k, v, o, hq, hkv, int(lq), int(lk), causal, scale_log2);
}
