#pragma once
// Split-KV decode (lq == 1) of the attention_bf16 families, one kernel: a thread-block cluster per (batch, kv
// head, chunk of up to 16 query heads of its group), its blocks splitting the keys; the blocks merge their
// partial (max, sum, o) through distributed shared memory, so there is no workspace, no second launch and no
// state between calls. The including family defines D (128) and the knobs:
//   DEC_TK       keys per pipeline stage (16 or 32 per warp)
//   DEC_STAGES   K/V stages in shared memory: DEC_STAGES - 1 of them in flight while one is computed
//   DEC_CLUSTER  most splits (blocks of a cluster; above 8 needs the non-portable cluster size)
// Decode is memory-bound: K and V are read once per group (every query head of a GQA group is a row of the
// m16n8k16 tiles, so the group's scores and P V run on tensor cores). Full bandwidth on an H200 (4.25 TB/s,
// ~700 ns under load) needs ~3 MB in flight, ~23 KB per SM; a block keeps (DEC_STAGES - 1) x DEC_TK x 512 bytes
// in flight (128 KB at the defaults), so even one block per SM on half the SMs streams at full rate. The stages
// arrive by TMA (one thread, four copies per stage, completing an mbarrier) in the 128-byte swizzle, which
// ldmatrix reads without bank conflicts: per-thread 16-byte cp.async made twice the L2 requests of cuDNN's kernel.
#include <cooperative_groups.h>

#include "async_copy.cuh"
#include "tma.cuh"

constexpr int DEC_WARPS = 4;
constexpr int DEC_THREADS = 32 * DEC_WARPS;
constexpr int DEC_HB = 16;                  // query heads per block: the 16 rows of an MMA tile
constexpr int DEC_KW = DEC_TK / DEC_WARPS;  // keys per warp and stage
constexpr int DEC_LDO = D + 8;              // fp32 row stride of the warps' partial o: float2 stores of a warp
                                            // (8 rows x 4 lanes) hit each bank at most twice (two wavefronts)
// A stage: K, then V, each two 64-column halves of DEC_TK 128-byte swizzled rows (tma.cuh's boxes).
constexpr uint32_t DEC_TILE_BYTES = DEC_TK * D * sizeof(bf16), DEC_STAGE_BYTES = 2 * DEC_TILE_BYTES;
// The stages (1024-aligned for the swizzle: the dynamic base is aligned up), then an mbarrier per stage.
constexpr size_t DEC_STAGES_BYTES = size_t(DEC_STAGES) * DEC_STAGE_BYTES;
constexpr size_t DEC_SMEM = 1024 + DEC_STAGES_BYTES + 8 * DEC_STAGES;
// After the key loop the stage buffers hold each warp's partial (m, l, o), then the block's merged one.
constexpr size_t DEC_MERGE_BYTES =
    (size_t(DEC_WARPS) * DEC_HB * (DEC_LDO + 2) + size_t(DEC_HB) * (D + 2)) * sizeof(float);
static_assert(D == DEC_THREADS, "the merges give thread d dimension d");
static_assert(DEC_KW % 16 == 0, "DEC_TK: 16 keys per warp at least (one k-step of P V)");
static_assert(DEC_STAGES >= 2 && DEC_STAGES <= 4, "DEC_STAGES is 2 to 4");
static_assert(DEC_CLUSTER >= 1 && DEC_CLUSTER <= 16, "DEC_CLUSTER: 16 blocks per cluster at most");
static_assert(DEC_SMEM <= 227 * 1024, "decode stages: 227 KB of shared memory per block at most");
static_assert(DEC_MERGE_BYTES <= DEC_STAGES_BYTES, "the merge reuses the stage buffers");
static_assert(DEC_TK <= 256, "a TMA box has at most 256 rows");

// Grid (splits, hkv * head chunks, b), cluster (splits, 1, 1): block `split` takes keys [kb, ke) of its kv head,
// in stages of DEC_TK keys, warp w the keys w*DEC_KW .. +DEC_KW-1 of each stage with its own online softmax over
// the 16 head rows (rows >= hb have zero queries: finite scores, never written). Then the warps' partials merge
// in the block, and the blocks' in the cluster: block c writes heads c, c + splits, ... K and V come through the
// tensor maps of [b * hkv][lk][D] (keys of a stage past ke are masked; past lk they arrive as zeros).
__global__ void __launch_bounds__(DEC_THREADS) decode_split_kv(const bf16* __restrict__ q,
                                                               const __grid_constant__ CUtensorMap k_map,
                                                               const __grid_constant__ CUtensorMap v_map,
                                                               bf16* __restrict__ o, int64_t hq, int64_t hkv,
                                                               int64_t lk, int head_chunks, float scale_log2) {
  namespace cg = cooperative_groups;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + (((smem_u32(smem_raw) + 1023) & ~1023u) - smem_u32(smem_raw));
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int splits = int(gridDim.x), split = int(blockIdx.x), hc = int(blockIdx.y) % head_chunks;
  const int64_t kh = blockIdx.y / head_chunks, bi = blockIdx.z, group = hq / hkv;
  const int64_t h_first = kh * group + hc * DEC_HB;
  const int hb = int(min(int64_t(DEC_HB), group - hc * DEC_HB));  // query heads h_first .. h_first + hb - 1
  const int64_t per = (lk + splits - 1) / splits, kb = min(lk, split * per), ke = min(lk, kb + per);
  const int n_tiles = int((ke - kb + DEC_TK - 1) / DEC_TK), plane = int(bi * hkv + kh);
  const uint32_t stages = smem_u32(smem), full = stages + uint32_t(DEC_STAGES_BYTES);  // full: mbarriers
  auto stage_k = [&](int s) { return stages + s * DEC_STAGE_BYTES; };
  // Tile `tile`'s keys into its stage, issued by thread 0.
  auto load_stage = [&](int tile) {
    const int st = tile % DEC_STAGES, j0 = int(kb) + tile * DEC_TK;
    mbar_arrive_expect_bytes(full + 8 * st, DEC_STAGE_BYTES);
    tma_load_rows<DEC_TK, D / 64>(stage_k(st), &k_map, j0, plane, full + 8 * st);
    tma_load_rows<DEC_TK, D / 64>(stage_k(st) + DEC_TILE_BYTES, &v_map, j0, plane, full + 8 * st);
  };
  if (tid == 0) {
    for (int s = 0; s < DEC_STAGES; ++s) mbar_init(full + 8 * s, 1);
    fence_mbarrier_init();
    for (int s = 0; s < DEC_STAGES - 1 && s < n_tiles; ++s) load_stage(s);
  }
  __syncthreads();  // the barriers are initialized
  // A fragments of the 16 x 128 query tile (rows: heads), straight from global memory while the stages load.
  const bf16* Q = q + (bi * hq + h_first) * D;
  auto q_pair = [&](int row, int col) {
    return row < hb ? *reinterpret_cast<const uint32_t*>(Q + row * D + col) : 0u;
  };
  uint32_t qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int c = kk * 16 + 2 * t;
    qa[kk][0] = q_pair(g, c);
    qa[kk][1] = q_pair(g + 8, c);
    qa[kk][2] = q_pair(g, c + 8);
    qa[kk][3] = q_pair(g + 8, c + 8);
  }
  float acc[D / 8][4];  // O rows g (c0, c1) and g + 8 (c2, c3), columns nb*8 + 2t, +1
#pragma unroll
  for (int nb = 0; nb < D / 8; ++nb) acc[nb][0] = acc[nb][1] = acc[nb][2] = acc[nb][3] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g, g + 8: max (log2 units), this lane's sum
  // ldmatrix rows of this lane, byte offsets in the swizzled tiles (16-byte unit u of key row r sits at unit
  // u ^ (r % 8), and r % 8 = lane % 8 in both): K as in the prefill (key lane & 7, dims 8*(lane >> 3) of a 32-dim
  // slice: b0, b1 of 16-dim chunks 2ks and 2ks+1; slice ks is unit 4 (ks % 2) + (lane >> 3) of half ks / 2), V
  // transposed (key lane & 15, dims 8*(lane >> 4) of a 16-dim slice n2: unit 2 (n2 % 4) + (lane >> 4) of half
  // n2 / 4). The units' XOR with a slice's constant bits is taken once per lane here.
  const int k_row = (warp * DEC_KW + (lane & 7)) * 128, v_row = (warp * DEC_KW + (lane & 15)) * 128;
  int k_unit[2], v_unit[4];
#pragma unroll
  for (int i = 0; i < 2; ++i) k_unit[i] = ((4 * i + (lane >> 3)) ^ (lane & 7)) * 16;
#pragma unroll
  for (int i = 0; i < 4; ++i) v_unit[i] = ((2 * i + (lane >> 4)) ^ (lane & 7)) * 16;

  for (int tile = 0; tile < n_tiles; ++tile) {
    mbar_wait(full + 8 * (tile % DEC_STAGES), (tile / DEC_STAGES) & 1);  // stage `tile` has landed
    __syncthreads();  // and every warp is done with the buffer refilled now (that of tile - 1)
    const int next = tile + DEC_STAGES - 1;
    if (tid == 0 && next < n_tiles) load_stage(next);
    const int64_t jw = kb + int64_t(tile) * DEC_TK + warp * DEC_KW;  // the warp's first key
    if (jw >= ke) continue;
    const unsigned char* Kt = smem + (tile % DEC_STAGES) * DEC_STAGE_BYTES;
    const unsigned char* Vt = Kt + DEC_TILE_BYTES;
    float s[DEC_KW / 8][4];
#pragma unroll
    for (int nb = 0; nb < DEC_KW / 8; ++nb) s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.0f;
#pragma unroll
    for (int ks = 0; ks < D / 32; ++ks)
#pragma unroll
      for (int nb = 0; nb < DEC_KW / 8; ++nb) {
        uint32_t b[4];
        ldsm_x4(b, Kt + (ks / 2) * DEC_TK * 128 + k_row + nb * 8 * 128 + k_unit[ks % 2]);
        mma16816(s[nb], qa[2 * ks], b[0], b[1]);
        mma16816(s[nb], qa[2 * ks + 1], b[2], b[3]);
      }
    if (jw + DEC_KW > ke) {
#pragma unroll
      for (int nb = 0; nb < DEC_KW / 8; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (jw + nb * 8 + 2 * t + (e & 1) >= ke) s[nb][e] = -INFINITY;
    }
    // Online softmax; the warp's first key is valid, so every row's max is finite.
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nb = 0; nb < DEC_KW / 8; ++nb) {
      mx[0] = fmaxf(mx[0], fmaxf(s[nb][0], s[nb][1]));
      mx[1] = fmaxf(mx[1], fmaxf(s[nb][2], s[nb][3]));
    }
    float base[2], c[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
      for (int off = 1; off < 4; off <<= 1) mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], off));
      const float n = fmaxf(m[r], mx[r] * scale_log2);
      c[r] = fast_exp2(m[r] - n);  // 0 from -inf
      base[r] = n;
      m[r] = n;
      l[r] *= c[r];
    }
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
      acc[nb][0] *= c[0];
      acc[nb][1] *= c[0];
      acc[nb][2] *= c[1];
      acc[nb][3] *= c[1];
    }
#pragma unroll
    for (int nb = 0; nb < DEC_KW / 8; ++nb)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[nb][e] = fast_exp2(fmaf(s[nb][e], scale_log2, -base[e / 2]));
        l[e / 2] += s[nb][e];
      }
    // O += P V: the S accumulators of keys 16kk .. 16kk+15 (n-blocks 2kk, 2kk+1) are P's A fragment.
#pragma unroll
    for (int kk = 0; kk < DEC_KW / 16; ++kk) {
      const uint32_t a[4] = {pack_bf16(s[2 * kk][0], s[2 * kk][1]), pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                             pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                             pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int n2 = 0; n2 < D / 16; ++n2) {
        uint32_t b[4];
        ldsm_x4_trans(b, Vt + (n2 / 4) * DEC_TK * 128 + v_row + kk * 16 * 128 + v_unit[n2 % 4]);
        mma16816(acc[2 * n2], a, b[0], b[1]);
        mma16816(acc[2 * n2 + 1], a, b[2], b[3]);
      }
    }
  }

  // Merge the warps: partials into the (now idle) stage buffers.
  float* wo = reinterpret_cast<float*>(smem);    // [DEC_WARPS][DEC_HB][DEC_LDO]
  float* wm = wo + DEC_WARPS * DEC_HB * DEC_LDO;  // [DEC_WARPS][DEC_HB]
  float* wl = wm + DEC_WARPS * DEC_HB;            // [DEC_WARPS][DEC_HB]
  float* bo = wl + DEC_WARPS * DEC_HB;            // [DEC_HB][D]: the block's partial, weights relative to bm
  float* bm = bo + DEC_HB * D;                    // [DEC_HB]
  float* bl = bm + DEC_HB;                        // [DEC_HB]
  __syncthreads();  // every warp is done with the stages (every stage loaded was waited for)
#pragma unroll
  for (int r = 0; r < 2; ++r) {
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) l[r] += __shfl_xor_sync(0xffffffffu, l[r], off);
    if (t == 0) {
      wm[warp * DEC_HB + g + 8 * r] = m[r];
      wl[warp * DEC_HB + g + 8 * r] = l[r];
    }
  }
#pragma unroll
  for (int nb = 0; nb < D / 8; ++nb) {
    float* p = wo + (warp * DEC_HB + g) * DEC_LDO + nb * 8 + 2 * t;
    *reinterpret_cast<float2*>(p) = make_float2(acc[nb][0], acc[nb][1]);
    *reinterpret_cast<float2*>(p + 8 * DEC_LDO) = make_float2(acc[nb][2], acc[nb][3]);
  }
  __syncthreads();
  // Weighted sum of partials with maxima ms[i] (-inf: empty, weight 0) and sums ls[i]; o_at(i) is o[d] of i.
  auto merge = [](int n, auto ms, auto ls, auto o_at, float& out_m, float& out_l) {
    float mm = -INFINITY;
    for (int i = 0; i < n; ++i) mm = fmaxf(mm, ms(i));
    float ll = 0.0f, oo = 0.0f;
    for (int i = 0; i < n; ++i)
      if (ms(i) != -INFINITY) {
        const float w = fast_exp2(ms(i) - mm);
        ll = fmaf(w, ls(i), ll);
        oo = fmaf(w, o_at(i), oo);
      }
    out_m = mm;
    out_l = ll;
    return oo;
  };
  for (int r = 0; r < hb; ++r) {
    float mm, ll;
    bo[r * D + tid] = merge(
        DEC_WARPS, [&](int w) { return wm[w * DEC_HB + r]; }, [&](int w) { return wl[w * DEC_HB + r]; },
        [&](int w) { return wo[(w * DEC_HB + r) * DEC_LDO + tid]; }, mm, ll);
    if (tid == 0) {
      bm[r] = mm;
      bl[r] = ll;
    }
  }
  // Merge the cluster's blocks through distributed shared memory (block 0 covers keys, so the max is finite and
  // the sum at least 1).
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  for (int r = split; r < hb; r += splits) {
    float mm, ll;
    const float oo = merge(
        splits, [&](int i) { return cluster.map_shared_rank(bm, i)[r]; },
        [&](int i) { return cluster.map_shared_rank(bl, i)[r]; },
        [&](int i) { return cluster.map_shared_rank(bo, i)[r * D + tid]; }, mm, ll);
    o[(bi * hq + h_first + r) * D + tid] = __float2bfloat16(oo / ll);
  }
  cluster.sync();  // no block leaves while another reads its shared memory
}

// Splits: as many blocks per head as one wave of resident blocks holds, at most DEC_CLUSTER and one stage of keys
// each. Launches on `stream`; false where the driver refuses a tensor map or the launch fails (the caller falls
// back).
inline bool launch_decode_split(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq,
                                int64_t hkv, int64_t lk, float scale_log2, cudaStream_t stream) {
  CUtensorMap k_map, v_map;
  constexpr auto once = CU_TENSOR_MAP_L2_PROMOTION_NONE;  // every key is read once
  if (!tensor_map_rows(&k_map, k, b * hkv, lk, D, DEC_TK, once) ||
      !tensor_map_rows(&v_map, v, b * hkv, lk, D, DEC_TK, once))
    return false;
  int dev = 0, sms = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t chunks = (hq / hkv + DEC_HB - 1) / DEC_HB, heads = b * hkv * chunks;
  constexpr int64_t per_sm = (228 * 1024) / int64_t(DEC_SMEM + 1024);  // shared memory bounds residency (1 KB reserved)
  static_assert(per_sm >= 1, "a decode block fits an SM");
  const int64_t wave = sms * per_sm / heads, stages = (lk + DEC_TK - 1) / DEC_TK;
  int64_t splits = wave < DEC_CLUSTER ? wave : DEC_CLUSTER;
  splits = splits > stages ? stages : splits < 1 ? 1 : splits;
  cudaFuncSetAttribute(decode_split_kv, cudaFuncAttributeMaxDynamicSharedMemorySize, int(DEC_SMEM));
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(DEC_THREADS);
  config.dynamicSmemBytes = DEC_SMEM;
  config.stream = stream;
  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  auto shape = [&](int64_t n) {
    config.gridDim = dim3(unsigned(n), unsigned(hkv * chunks), unsigned(b));
    cluster.val.clusterDim.x = unsigned(n);
  };
  shape(splits);
  // One split per head needs no cluster: every block is then a cluster of one (cluster.sync and map_shared_rank
  // still work), and a launch without the attribute starts its blocks sooner.
  if (splits == 1) config.numAttrs = 0;
  if (splits > 8) {  // a non-portable cluster: 8 blocks where the GPU cannot place one of this size
    cudaFuncSetAttribute(decode_split_kv, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    int fits = 0;
    if (cudaOccupancyMaxActiveClusters(&fits, decode_split_kv, &config) != cudaSuccess || fits == 0) shape(8);
  }
  if (cudaLaunchKernelEx(&config, decode_split_kv, q, k_map, v_map, o, hq, hkv, lk, int(chunks), scale_log2) ==
      cudaSuccess)
    return true;
  cudaGetLastError();  // the caller's fallback runs instead: the failed launch's error is not the call's
  return false;
}
