// attention_bf16, built-in cuda template family flash_pipelined: FA2-style pipelined flash attention (ldmatrix.x4, double-buffered K/V); split-KV cluster decode.
// Knobs: ksearch replaces each #define below with the value it tries (flash_pipelined.toml lists them).
#define WARPS 8
#define MT_MAX 2
#define BKV 64
#define STAGES 2
#define DEC_TK 64
#define DEC_STAGES 3
#define DEC_CLUSTER 8

#include "async_copy.cuh"

constexpr int D = 128;          // the tensor-core path's head size
constexpr int LDS = D + 8;      // shared row stride in bf16 (272 bytes): the 8 row addresses of an ldmatrix 8x8
                                // matrix, and 8 lanes' 16-byte accesses to 8 consecutive rows, hit distinct banks
constexpr int NT = 32 * WARPS;  // threads per block
// The prefill comes in MT = 1 and 2 m-tiles of 16 query rows per warp (the entry picks one per shape).
template <int MT>
constexpr int WROWS = 16 * MT;  // query rows per warp
template <int MT>
constexpr int BQ = WROWS<MT> * WARPS;  // query rows per block
template <int MT>
constexpr int QREGS = MT == 1 ? D / 16 : 1;  // Q A-fragments held in registers (MT 1 only)
// Q tile (reused to stage the output), then STAGES buffers of K and STAGES of V.
template <int MT>
constexpr size_t PREFILL_SMEM = size_t(BQ<MT> + 2 * STAGES * BKV) * LDS * sizeof(bf16);
static_assert(STAGES == 1 || STAGES == 2, "STAGES is 1 or 2");
static_assert(MT_MAX == 1 || MT_MAX == 2, "MT_MAX is 1 or 2");
static_assert(PREFILL_SMEM<MT_MAX> <= 227 * 1024, "shared memory per block: 227 KB at most; the largest here is 208 KB");
static_assert(BKV % 64 == 0 && (BKV * (D / 8)) % NT == 0 && (BQ<1> * (D / 8)) % NT == 0, "tile shapes");

// Rows r0 .. r0+ROWS-1 of a [rows][D] bf16 matrix into a [ROWS][LDS] shared tile, rows >= limit zero-filled.
// Consecutive threads copy consecutive 16-byte pieces of a row (16 per row): coalesced, conflict-free. Piece i of a
// thread is NT/16 rows below piece i-1, so one source pointer with constant offsets serves all (a pointer per piece
// held across the key loop costs registers that MT 2 lacks); rows past the limit read nothing (address: src).
template <int ROWS>
__device__ __forceinline__ void load_rows(bf16* dst, const bf16* src, int r0, int limit) {
  const int r = int(threadIdx.x) / (D / 8), col = (int(threadIdx.x) % (D / 8)) * 8;
  const bf16* p = src + int64_t(r0 + r) * D + col;
#pragma unroll
  for (int i = 0; i < ROWS * (D / 8) / NT; ++i) {
    const bool ok = r0 + r + i * (NT / 16) < limit;
    cp_async16_zfill(dst + (r + i * (NT / 16)) * LDS + col, ok ? p + i * (NT / 16) * D : src, ok);
  }
}

// One warp, its MT m-tiles of 16 query rows, NK keys of a shared tile: s = Q K^T (raw scores), masked when edge (key
// j of row r visible iff j <= lim[r]), then the online softmax: running max (raw units) m, partial sums l (this lane's
// columns only; the quad's are added at the end), O rescaled, s replaced by p = 2^(s*scale - max*scale). A lane's rows
// are r = 2*mt + h: row g + 8h of m-tile mt (c0,c1 of a fragment are h 0, c2,c3 h 1).
// Each K ldmatrix.x4 feeds every m-tile. Kt points at this lane's ldmatrix row (matrix lane >> 3):
//   MT 1: key (lane & 7) of an 8-key block, dims 8*(lane >> 3) .. +7 of a 32-dim slice: matrices 0,1 are b0,b1
//     (B[k][n] = K[n][k]: dims 0-7 / 8-15) of 16-dim chunk 2*ks, 2,3 of chunk 2*ks+1, whose Q A fragments stay in
//     registers (qa).
//   MT 2: key (lane & 7) + 8*(lane >> 4) of a 16-key block, dims 8*((lane >> 3) & 1) .. +7 of 16-dim chunk ks:
//     matrices 0,1 are b0,b1 of the block's first n-block, 2,3 of its second. The A fragments are read per chunk from
//     Qt (this lane's ldmatrix row of the warp's Q rows, as in the prefill): 2 x 16 x 128 of them beside O would spill.
template <int NK, int MT>
__device__ __forceinline__ void qk_softmax(float (&s)[MT][NK / 8][4], const uint32_t (&qa)[QREGS<MT>][4], const bf16* Qt,
                                           const bf16* Kt, int j0, bool edge, const int (&lim)[2 * MT], int t,
                                           float scale_log2, float (&m)[2 * MT], float (&l)[2 * MT],
                                           float (&acc)[MT][D / 8][4]) {
  constexpr int KD = 32 / MT;  // dims per K ldmatrix.x4 and step
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < NK / 8; ++nb) s[mt][nb][0] = s[mt][nb][1] = s[mt][nb][2] = s[mt][nb][3] = 0.0f;
#pragma unroll
  for (int ks = 0; ks < D / KD; ++ks) {
    uint32_t a[MT][2 / MT][4];  // the step's 16-dim chunks of each m-tile
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int c = 0; c < 2 / MT; ++c) {
        if constexpr (MT == 1) {
#pragma unroll
          for (int i = 0; i < 4; ++i) a[mt][c][i] = qa[2 * ks + c][i];
        } else {
          ldsm_x4(a[mt][c], Qt + mt * 16 * LDS + ks * 16);
        }
      }
#pragma unroll
    for (int nx = 0; nx < NK / (8 * MT); ++nx) {
      uint32_t b[4];
      ldsm_x4(b, Kt + nx * 8 * MT * LDS + ks * KD);
#pragma unroll
      for (int h = 0; h < 2; ++h)  // matrices 2h, 2h+1: (n-block, chunk) (nx, 2ks+h) for MT 1, (2nx+h, ks) for MT 2
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          mma16816(s[mt][nx * MT + (MT - 1) * h], a[mt][(2 - MT) * h], b[2 * h], b[2 * h + 1]);
    }
  }
  if (edge) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int nb = 0; nb < NK / 8; ++nb)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int j = j0 + nb * 8 + 2 * t + (e & 1);  // columns 2t, 2t+1
          if (j > lim[2 * mt + e / 2]) s[mt][nb][e] = -INFINITY;
        }
  }
  float mx[2 * MT];
#pragma unroll
  for (int r = 0; r < 2 * MT; ++r) mx[r] = -INFINITY;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < NK / 8; ++nb) {
      mx[2 * mt] = fmaxf(mx[2 * mt], fmaxf(s[mt][nb][0], s[mt][nb][1]));
      mx[2 * mt + 1] = fmaxf(mx[2 * mt + 1], fmaxf(s[mt][nb][2], s[mt][nb][3]));
    }
  // A row's keys are spread over the 4 lanes of a quad (t = 0..3).
#pragma unroll
  for (int off = 1; off < 4; off <<= 1)
#pragma unroll
    for (int r = 0; r < 2 * MT; ++r) mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], off));
  // One FFMA and one EX2 per element; a row with no visible key yet keeps base 0 (p = 0, not NaN).
  float base[2 * MT], c[2 * MT];
#pragma unroll
  for (int r = 0; r < 2 * MT; ++r) {
    const float n = fmaxf(m[r], mx[r]);
    base[r] = n == -INFINITY ? 0.0f : n * scale_log2;
    c[r] = fast_exp2(m[r] * scale_log2 - base[r]);  // 0 from -inf
    m[r] = n;
    l[r] *= c[r];
  }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
      acc[mt][nb][0] *= c[2 * mt];
      acc[mt][nb][1] *= c[2 * mt];
      acc[mt][nb][2] *= c[2 * mt + 1];
      acc[mt][nb][3] *= c[2 * mt + 1];
    }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < NK / 8; ++nb) {
      s[mt][nb][0] = fast_exp2(fmaf(s[mt][nb][0], scale_log2, -base[2 * mt]));
      s[mt][nb][1] = fast_exp2(fmaf(s[mt][nb][1], scale_log2, -base[2 * mt]));
      s[mt][nb][2] = fast_exp2(fmaf(s[mt][nb][2], scale_log2, -base[2 * mt + 1]));
      s[mt][nb][3] = fast_exp2(fmaf(s[mt][nb][3], scale_log2, -base[2 * mt + 1]));
      l[2 * mt] += s[mt][nb][0] + s[mt][nb][1];
      l[2 * mt + 1] += s[mt][nb][2] + s[mt][nb][3];
    }
}

// O += P V for NK keys. The S accumulator layout is the A layout of P: keys 16kk .. 16kk+15 are n-blocks 2kk (a0 =
// row g, a1 = row g+8) and 2kk+1 (a2, a3). Vt points at this lane's ldmatrix.trans row: key (lane & 15) of a 16-key
// chunk, dims 8*(lane >> 4) .. +7 of a 16-dim slice, so matrices 0,1 are b0,b1 (keys 0-7 / 8-15, B[k][n] = V[k][n])
// of n-block 2*n2 and matrices 2,3 of n-block 2*n2+1, each fed to every m-tile.
template <int NK, int MT>
__device__ __forceinline__ void pv(float (&acc)[MT][D / 8][4], const float (&s)[MT][NK / 8][4], const bf16* Vt) {
#pragma unroll
  for (int kk = 0; kk < NK / 16; ++kk) {
    uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      a[mt][0] = pack_bf16(s[mt][2 * kk][0], s[mt][2 * kk][1]);
      a[mt][1] = pack_bf16(s[mt][2 * kk][2], s[mt][2 * kk][3]);
      a[mt][2] = pack_bf16(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
      a[mt][3] = pack_bf16(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
    }
#pragma unroll
    for (int n2 = 0; n2 < D / 16; ++n2) {
      uint32_t b[4];
      ldsm_x4_trans(b, Vt + kk * 16 * LDS + n2 * 16);
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) mma16816(acc[mt][2 * n2 + h], a[mt], b[2 * h], b[2 * h + 1]);
    }
  }
}

// Prefill: one block per (query tile of BQ rows, head, batch); warp w owns rows w*WROWS .. +WROWS-1 of the tile (MT
// m-tiles of 16) and keeps its S/P and O accumulators in registers (FA2), with MT 1 its Q fragments too. MT 2 reads
// 3/8 less shared memory per flop (per 64 keys x 32 rows: 16 Q + 32 K + 32 V ldmatrix.x4 against 2 x (32 K + 32 V)).
// Per key tile jt:
//   STAGES 2 (K_jt and V_jt one cp.async group, double buffers): wait tile jt | barrier | prefetch tile jt+1 into the
//     other buffers | in sub-tiles of 64 keys (registers as for BKV 64): S = Q K^T, softmax, O += P V.
//   STAGES 1 (K_jt and V_jt separate groups, one buffer each): wait K_jt | barrier | load V_jt | S = Q K^T over all
//     BKV keys, softmax | wait V_jt | barrier | load K_jt+1 | O += P V. S holds all BKV keys: with MT 2, BKV 128
//     spills (S of 32 x 128 beside O).
// A warp whose rows see no key of a (sub-)tile (causal, above the diagonal) skips it; masks only on edge tiles.
template <int MT>
__global__ void __launch_bounds__(NT) flash_pipelined_prefill(const bf16* __restrict__ q, const bf16* __restrict__ k,
                                                              const bf16* __restrict__ v, bf16* __restrict__ o,
                                                              int64_t hq, int64_t hkv, int lq, int lk, int causal,
                                                              float scale_log2) {
  extern __shared__ __align__(16) unsigned char smem[];
  bf16* Qs = reinterpret_cast<bf16*>(smem);  // [BQ<MT>][LDS], later each warp's output rows
  bf16* Ks = Qs + BQ<MT> * LDS;                  // [STAGES][BKV][LDS]
  bf16* Vs = Ks + STAGES * BKV * LDS;        // [STAGES][BKV][LDS]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int tile = causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);  // heavy causal tiles first
  const int64_t h = blockIdx.y, bi = blockIdx.z, kh = h / (hq / hkv);
  const bf16* Q = q + (bi * hq + h) * lq * D;
  const bf16* K = k + (bi * hkv + kh) * lk * D;
  const bf16* V = v + (bi * hkv + kh) * lk * D;
  bf16* O = o + (bi * hq + h) * lq * D;
  const int q0 = tile * BQ<MT>, wq0 = q0 + warp * WROWS<MT>, shift = lk - lq;  // causal: row i sees keys j <= i + shift
  const int kv_end = causal ? min(lk, min(lq - 1, q0 + BQ<MT> - 1) + shift + 1) : lk;  // keys any row of the block sees
  const int n_tiles = kv_end > 0 ? (kv_end + BKV - 1) / BKV : 0;

  load_rows<BQ<MT>>(Qs, Q, q0, lq);
  cp_async_commit();
  if (n_tiles > 0) load_rows<BKV>(Ks, K, 0, lk);
  if (STAGES == 1) cp_async_commit();  // STAGES 1: K_0 alone; STAGES 2: K_0 and V_0 together
  if (STAGES == 2 && n_tiles > 0) load_rows<BKV>(Vs, V, 0, lk);
  if (STAGES == 2) cp_async_commit();
  cp_async_wait<1>();  // the Q group (the oldest) has landed; tile 0 may still be in flight
  __syncthreads();
  // A fragments of a 16 x 128 Q slice (m-tile), one ldmatrix.x4 per 16-column chunk kk: lanes 0-15 address rows
  // 0-15 at column kk*16, lanes 16-31 rows 0-15 at column kk*16+8, so matrices 0..3 are (rows 0-7, cols 0-7),
  // (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15): exactly a0..a3. MT 1 loads them once.
  const bf16* Qt = Qs + (warp * WROWS<MT> + (lane & 15)) * LDS + (lane >> 4) * 8;
  uint32_t qa[QREGS<MT>][4];
  if constexpr (MT == 1) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) ldsm_x4(qa[kk], Qt + kk * 16);
  }
  float acc[MT][D / 8][4];  // O: n-block nb of m-tile mt holds rows g, g+8 at columns nb*8 + 2t, +1
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) acc[mt][nb][0] = acc[mt][nb][1] = acc[mt][nb][2] = acc[mt][nb][3] = 0.0f;
  float m[2 * MT], l[2 * MT];  // row r = 2*mt + h is row row0 + 8r
#pragma unroll
  for (int r = 0; r < 2 * MT; ++r) m[r] = -INFINITY, l[r] = 0.0f;
  const int row0 = wq0 + g;
  int lim[2 * MT];  // the last key row r sees
#pragma unroll
  for (int r = 0; r < 2 * MT; ++r) lim[r] = causal ? min(lk - 1, row0 + 8 * r + shift) : lk - 1;
  const int k_off = ((lane & 7) + (MT - 1) * 8 * (lane >> 4)) * LDS + ((lane >> 3) & (4 / MT - 1)) * 8;  // qk_softmax
  const int v_off = (lane & 15) * LDS + (lane >> 4) * 8;  // see pv

  for (int jt = 0; jt < n_tiles; ++jt) {
    const int j0 = jt * BKV;
    if (STAGES == 2) {
      constexpr int SUB = 64;  // keys per softmax step
      const int buf = (jt & 1) * BKV * LDS;
      cp_async_wait<0>();  // this thread's pieces of tile jt have landed
      __syncthreads();     // everyone's have; and every warp is done with tile jt-1, whose buffers are refilled now
      if (jt + 1 < n_tiles) {
        load_rows<BKV>(Ks + (BKV * LDS - buf), K, j0 + BKV, lk);
        load_rows<BKV>(Vs + (BKV * LDS - buf), V, j0 + BKV, lk);
      }
      cp_async_commit();
#pragma unroll
      for (int sub = 0; sub < BKV / SUB; ++sub) {
        const int js = j0 + sub * SUB;
        // A key of the sub-tile is visible to a row of the warp:
        if (js < kv_end && (!causal || js <= wq0 + WROWS<MT> - 1 + shift)) {
          const bool edge = js + SUB > lk || (causal && js + SUB - 1 > wq0 + shift);
          float s[MT][SUB / 8][4];
          qk_softmax<SUB, MT>(s, qa, Qt, Ks + buf + sub * SUB * LDS + k_off, js, edge, lim, t, scale_log2, m, l, acc);
          pv<SUB, MT>(acc, s, Vs + buf + sub * SUB * LDS + v_off);
        }
      }
    } else {
      cp_async_wait<0>();  // this thread's pieces of K_jt have landed
      __syncthreads();     // everyone's have; and every warp is done with V_jt-1
      load_rows<BKV>(Vs, V, j0, lk);  // V_jt streams in while S_jt is computed
      cp_async_commit();
      const bool active = !causal || j0 <= wq0 + WROWS<MT> - 1 + shift;
      const bool edge = j0 + BKV > lk || (causal && j0 + BKV - 1 > wq0 + shift);
      float s[MT][BKV / 8][4];
      if (active) qk_softmax<BKV, MT>(s, qa, Qt, Ks + k_off, j0, edge, lim, t, scale_log2, m, l, acc);
      cp_async_wait<0>();  // V_jt has landed
      __syncthreads();     // everyone's has; and every warp is done with K_jt
      if (jt + 1 < n_tiles) load_rows<BKV>(Ks, K, j0 + BKV, lk);  // K_jt+1 streams in while O += P V runs
      cp_async_commit();
      if (active) pv<BKV, MT>(acc, s, Vs + v_off);
    }
  }
#pragma unroll
  for (int off = 1; off < 4; off <<= 1)
#pragma unroll
    for (int r = 0; r < 2 * MT; ++r) l[r] += __shfl_xor_sync(0xffffffffu, l[r], off);
  // Stage the warp's output rows in its own Q rows (no other warp reads them, and with MT 2 this warp's last reads
  // of them precede the __syncwarp), then 16-byte coalesced stores: the two half-warps write two whole 256-byte rows
  // per step.
  float inv[2 * MT];
#pragma unroll
  for (int r = 0; r < 2 * MT; ++r) inv[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
  bf16* St = Qs + warp * WROWS<MT> * LDS;
  __syncwarp();
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int nb = 0; nb < D / 8; ++nb) {
      bf16* p = St + (mt * 16 + g) * LDS + nb * 8 + 2 * t;
      const float i0 = inv[2 * mt], i1 = inv[2 * mt + 1];
      *reinterpret_cast<uint32_t*>(p) = pack_bf16(acc[mt][nb][0] * i0, acc[mt][nb][1] * i0);
      *reinterpret_cast<uint32_t*>(p + 8 * LDS) = pack_bf16(acc[mt][nb][2] * i1, acc[mt][nb][3] * i1);
    }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < WROWS<MT> * (D / 8) / 32; ++i) {
    const int c = i * 32 + lane, r = c / (D / 8), col = (c % (D / 8)) * 8;
    if (wq0 + r < lq)
      *reinterpret_cast<uint4*>(O + int64_t(wq0 + r) * D + col) = *reinterpret_cast<const uint4*>(St + r * LDS + col);
  }
}

// Two m-tiles per warp read 3/8 less shared memory per MMA but make blocks twice as tall: MT 2 (up to MT_MAX) runs
// where its grid still gives every SM a block; shorter grids keep MT 1's twice as many blocks. Returns whether it ran.
template <int MT>
bool launch_prefill(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                    int64_t lq, int64_t lk, int causal, float scale_log2, int sms, cudaStream_t stream) {
  if constexpr (MT > MT_MAX) {
    return false;
  } else {
    const int64_t tiles = (lq + BQ<MT> - 1) / BQ<MT>;
    if (MT > 1 && tiles * hq * b < sms) return false;
    cudaFuncSetAttribute(flash_pipelined_prefill<MT>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(PREFILL_SMEM<MT>));
    flash_pipelined_prefill<MT><<<dim3(unsigned(tiles), unsigned(hq), unsigned(b)), NT, PREFILL_SMEM<MT>, stream>>>(
        q, k, v, o, hq, hkv, int(lq), int(lk), causal, scale_log2);
    return true;
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
  int dev = 0, sms = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (!launch_prefill<2>(q, k, v, o, b, hq, hkv, lq, lk, causal, scale_log2, sms, stream))
    launch_prefill<1>(q, k, v, o, b, hq, hkv, lq, lk, causal, scale_log2, sms, stream);
}
