// selective_scan, built-in cuda template family lanes_single_pass: one pass over time (one exp per update), states over lanes, y reduce-scattered.
// Knobs: ksearch replaces each #define below with the value it tries (lanes_single_pass.toml lists them).
#define LPC 8
#define OWN 2
#define SUB 4
#define WARPS 4
#define OCC 12
#define EXPP 0
#define RED 0
#define BCS 3
#define MINW 8
#define TCHUNKS 4
#define PIPE 2
#define PF 2
#define CMIN 512
#define TMA 1

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

// 2^x on the MUFU pipe, 16 per clock per SM: one per state update, the ceiling of this kernel.
__device__ __forceinline__ float ex2_mufu(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// log2 x and 1 / x on the MUFU pipe, flushing denormals like ex2_mufu: the softplus and the gate never
// need them (1 + e^v >= 1), and without the flush each call costs three more instructions.
__device__ __forceinline__ float lg2_mufu(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float rcp_mufu(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// 2^x on the FMA pipe (about 11 instructions for one MUFU slot), for EXPP of every 8 steps: x = j + f
// with |f| <= 1/2, 2^f by a degree-5 fit (relative error 2.3e-7, like the MUFU's), j added to the
// exponent bits. The clamp keeps the exponent field in range (2^-126 is as good as 0 as a decay).
__device__ __forceinline__ float ex2_poly(float x) {
  x = fminf(fmaxf(x, -126.0f), 126.0f);
  const float t = __fadd_rn(x, 12582912.0f);  // 1.5 * 2^23: round(x) lands in the low mantissa bits
  const float f = __fsub_rn(x, __fsub_rn(t, 12582912.0f));
  float p = fmaf(1.32763747e-3f, f, 9.67551488e-3f);
  p = fmaf(p, f, 5.55071346e-2f);
  p = fmaf(p, f, 2.40221202e-1f);
  p = fmaf(p, f, 6.93146944e-1f);
  p = fmaf(p, f, 1.00000012f);
  return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}

// dt = softplus(v) where v <= limit, else v: limit is 20 with softplus and NaN without it (no v is <= NaN).
// MUFU ex2/lg2 instead of log1pf: rounding 1 + e^v costs at most 2^-24 absolute in dt. Computed always
// and selected: a branch per step would cut the tile's code into blocks the scheduler cannot interleave.
__device__ __forceinline__ float dt_below(float v, float limit) {
  const float soft = lg2_mufu(1.0f + ex2_mufu(v * 1.4426950408889634f)) * 0.6931471805599453f;
  return v <= limit ? soft : v;
}

__device__ __forceinline__ float softplus_limit(int softplus) {
  return softplus ? 20.0f : __int_as_float(0x7fc00000);
}

__device__ __forceinline__ float step_dt(float v, int softplus) { return dt_below(v, softplus_limit(softplus)); }

// z * sigmoid(z) (SiLU): e^-z by ex2, the division by rcp (1 + e^-z = inf gives 0, like __fdividef).
__device__ __forceinline__ float silu(float z) {
  return z * rcp_mufu(1.0f + ex2_mufu(-z * 1.4426950408889634f));
}

// A compile-time flag for generic lambdas: whole tiles (aligned, inside l) run without bounds checks.
template <bool F>
struct Flag {
  static constexpr bool value = F;
};

// Steps t..t+W-1 of a row (W = 2 or 4): one 8- or 16-byte load for a whole tile, else element-wise
// with zeros past l.
template <int W, bool FULL>
__device__ __forceinline__ void load_steps(float (&v)[W], const float* __restrict__ row, int t, int l) {
  if (FULL && W == 4) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(row + t));
    v[0] = q.x, v[1] = q.y, v[W > 2 ? 2 : 0] = q.z, v[W > 3 ? 3 : 0] = q.w;
  } else if (FULL) {
    const float2 q = __ldg(reinterpret_cast<const float2*>(row + t));
    v[0] = q.x, v[1] = q.y;
  } else {
#pragma unroll
    for (int x = 0; x < W; ++x) v[x] = t + x < l ? __ldg(row + t + x) : 0.0f;
  }
}

template <int W, bool FULL>
__device__ __forceinline__ void store_steps(float* row, const float (&v)[W], int t, int l) {
  if (FULL && W == 4) {
    *reinterpret_cast<float4*>(row + t) = make_float4(v[0], v[1], v[W > 2 ? 2 : 0], v[W > 3 ? 3 : 0]);
  } else if (FULL) {
    *reinterpret_cast<float2*>(row + t) = make_float2(v[0], v[1]);
  } else {
#pragma unroll
    for (int x = 0; x < W; ++x)
      if (t + x < l) row[t + x] = v[x];
  }
}

template <int W>
__device__ __forceinline__ void load_shared(float (&v)[W], const float* p) {
  if (W == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[W > 2 ? 2 : 0] = q.z, v[W > 3 ? 3 : 0] = q.w;
  } else {
    const float2 q = *reinterpret_cast<const float2*>(p);
    v[0] = q.x, v[1] = q.y;
  }
}

// 16 bytes global -> shared without registers, from L2 (each B/C line is copied once per block: through L1
// as well it would cost the L1 data pipe a read of it, the pipe that bounds this kernel).
// dst is a shared-memory address.
__device__ __forceinline__ void cp_async16(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most P of this thread's cp.async groups are pending.
template <int P>
__device__ __forceinline__ void cp_async_wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(P));
}

// A hint that brings the 128-byte line of p into L2 (no register, no wait).
__device__ __forceinline__ void prefetch_l2(const float* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// The lane bit that holds bit lv of a lane's state index j (scan_lanes interleaves channel and state bits).
template <int LCW>
__device__ __forceinline__ int lane_of_state_bit(int lv) {
  return lv == 0 ? 2 : 1 << (LCW + lv);
}

// BCS >= 1: the B/C sub-block in use and the BCS after it in flight.
constexpr int BC_BUFFERS = BCS + 1;

// BCS: floats per block for the B and C sub-blocks of its (batch, group): [BC_BUFFERS][B, C][N][G + 4].
template <int N, int L>
__host__ __device__ constexpr int bc_block_floats() {
  return BC_BUFFERS * 2 * N * (OWN * L + 4);
}

// RED = 1: floats per channel in the reduction buffer, L rows of G + 4 partials (the pad spreads the
// lanes' float4 stores over the banks) plus a skew that puts the next channel's reads OWN * L banks on.
template <int L>
__host__ __device__ constexpr int red_channel_floats() {
  return L * (OWN * L + 4) + ((OWN * L - L * (OWN * L + 4)) % 32 + 32) % 32;
}

// The per-warp dt/du rows are padded to this many floats past the tile: the CW channels' rows then lie L banks
// apart, so that the lanes' own-step writes (a half warp: every channel, 16 / CW lanes x 8 bytes each) and the
// float4 broadcasts that read them are free of bank conflicts (padded by 4, the writes took 4 wavefronts
// instead of 2 on the H200 at 8 lanes per channel).
template <int L>
__host__ __device__ constexpr int row_pad() {
  return L < 4 ? 4 : L;
}

// log2 L: the levels of the reduction over a channel's lanes.
template <int L>
__host__ __device__ constexpr int log2_lanes() {
  return L >= 16 ? 4 : L >= 8 ? 3 : L >= 4 ? 2 : L / 2;
}

// The lane's channel c and state index j (states j, j + L, ...): lane bit 0 is a channel bit and lane bit 1 a
// state bit, so that shared memory, which returns a float4 to a warp at twice the rate when lanes n and n ^ 1 or
// n and n ^ 2 read the same address, pairs the reads of both the B/C rows (lanes n, n ^ 1: one state, two
// channels) and the dt/du rows (n, n ^ 2: one channel). With c = lane / L neither B/C load was paired: the L1
// data pipe ran at 91% with the MUFU at 46%.
template <int L>
__device__ __forceinline__ void lane_roles(int lane, int& c, int& j) {
  constexpr int CW = 32 / L, LCW = 5 - log2_lanes<L>();
  c = (lane & 1) | ((lane >> 2) & (CW / 2 - 1)) << 1;
  j = ((lane >> 1) & 1) | (lane >> (LCW + 1)) << 1;
}

// One step of the lane's S states: h = 2^(dt a2) h + du B (the exp on the FMA pipe where `poly`); returns the
// lane's part of C.h (0 where C is not needed).
template <int S, bool WITH_C>
__device__ __forceinline__ float step_states(float (&h)[S], const float (&a2)[S], float dt, float du, const float (&Bv)[S],
                                             const float (&Cv)[S], bool poly) {
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const float e = dt * a2[k];
    const float da = poly ? ex2_poly(e) : ex2_mufu(e);
    h[k] = fmaf(da, h[k], du * Bv[k]);
    if (WITH_C) sum = fmaf(h[k], Cv[k], sum);
  }
  return sum;
}

// Four steps of the lane's states from the channel's dt and dt*u rows at `dt`, `du` (float4 broadcasts) and the
// lane's B/C values of those steps (Bq, Cq: [state][step]); the partials into part[0..4). m0: the first step's
// index in its sub-block (EXPP's polynomial steps are m % 8 < EXPP).
template <int S, bool WITH_C>
__device__ __forceinline__ void step_group(float (&h)[S], const float (&a2)[S], const float* dt, const float* du,
                                           const float (&Bq)[S][4], const float (&Cq)[S][4], float* part, int m0) {
  float dts[4], dus[4];
  load_shared<4>(dts, dt);
  load_shared<4>(dus, du);
#pragma unroll
  for (int x = 0; x < 4; ++x) {
    float Bv[S], Cv[S];
#pragma unroll
    for (int k = 0; k < S; ++k) Bv[k] = Bq[k][x], Cv[k] = Cq[k][x];
    part[x] = step_states<S, WITH_C>(h, a2, dts[x], dus[x], Bv, Cv, (m0 + x) % 8 < EXPP);
  }
}

// A sub-block's partials a[0..G) (one per step: the lane's part of C.h) summed over the channel's L lanes: after
// it a[x] is the full C.h of step OWN j + x. RED = 0: a transposed butterfly: at distance o the lane keeps the half
// of its (2 OWN o)-vector that bit o of j selects and sends the other half (G - OWN shuffles per G steps instead of
// G log2 L). RED = 1: through the channel's rows `cb` in shared memory: each lane stores its G partials, then sums
// the L partials of its own OWN steps (G / 4 + L accesses and (L - 1) OWN adds, against about 4 G instructions for
// the butterfly, but twice its shared-memory traffic).
template <int L, int G>
__device__ __forceinline__ void reduce_partials(float (&a)[G], int j, float* cb) {
  constexpr int LG = log2_lanes<L>(), LCW = 5 - LG;
  if (RED) {
    constexpr int RS = G + 4;
#pragma unroll
    for (int q = 0; q < G / 4; ++q)
      *reinterpret_cast<float4*>(cb + j * RS + 4 * q) = make_float4(a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
    __syncwarp();
#pragma unroll
    for (int x = 0; x < OWN; ++x) a[x] = 0.0f;
#pragma unroll
    for (int jp = 0; jp < L; ++jp) {
      float p[OWN];
      load_shared<OWN>(p, cb + jp * RS + OWN * j);
#pragma unroll
      for (int x = 0; x < OWN; ++x) a[x] += p[x];
    }
    __syncwarp();  // the next sub-block rewrites the rows
  } else {
#pragma unroll
    for (int lv = LG - 1; lv >= 0; --lv) {  // counted, so it unrolls and a stays in registers
      const int o = 1 << lv;
      const bool upper = j & o;
#pragma unroll
      for (int x = 0; x < G / 2; ++x) {  // a constant bound unrolls; x < OWN o folds per level
        if (x >= OWN * o) break;
        const float lo = a[x], hi = a[x + OWN * o];  // selects on values, not on addresses
        a[x] = (upper ? hi : lo) + __shfl_xor_sync(0xffffffffu, upper ? lo : hi, lane_of_state_bit<LCW>(lv));
      }
    }
  }
}

// PIPE's deferred epilogue keeps two sub-blocks' partials (2 OWN N per lane's states): at OWN = 4 that spills under
// the register cap of OCC >= 12 resident warps (ptxas), so there it waits for OCC = 8.
template <int N>
__host__ __device__ constexpr bool pipe_fits_registers() {
  return OWN * N <= 32 || OCC <= 8;
}

// SiLU(z) of the lane's own OWN steps (1 where there is no z: a select, not a branch, so the unrolled sub-blocks
// stay one block of code). Independent of the scan: computed before the reduction, whose shuffles start a new
// block of code (the compiler's divergence check), so that its exps overlap the scan's instead of waiting after
// the shuffles.
__device__ __forceinline__ void silu_gates(float (&gate)[OWN], const float (&zz)[OWN], bool has_z) {
#pragma unroll
  for (int x = 0; x < OWN; ++x) gate[x] = has_z ? silu(zz[x]) : 1.0f;
}

// y of the lane's own OWN steps from their C.h sums a[0..OWN): D u added, times the gates.
template <int G>
__device__ __forceinline__ void gate_steps(float (&out)[OWN], const float (&a)[G], float Dv, const float (&uu)[OWN],
                                           const float (&gate)[OWN]) {
#pragma unroll
  for (int x = 0; x < OWN; ++x) out[x] = fmaf(Dv, uu[x], a[x]) * gate[x];
}

// One pass over time, no rescan: L lanes per channel, lane j holds states j, j + L, ... (S = N / L) in
// registers. Time goes in tiles of SUB sub-blocks of G = OWN * L steps; in a sub-block lane j owns
// steps OWN j .. OWN j + OWN - 1: it loads their u, delta, z (coalesced 8/16-byte loads, one tile ahead),
// computes dt and dt*u once per (channel, step) into the warp's shared rows (read back as float4
// broadcasts), and after the scan receives their y. The scan leaves one partial C.h per step and lane;
// a transposed butterfly over the L lanes (G - OWN shuffles per G steps instead of G log2 L) gives lane j
// the full sums of its own steps, so D, the gate and the y store happen once per step, coalesced.
// Steps past the end get dt = 0 and u = 0: the identity step, so h ends as the last state.
// PASS 0 scans the whole time axis. Thin grids split it into nc chunks of clen steps (a multiple of the
// tile, so chunk tiles stay aligned), blockIdx.z = batch * chunks + chunk: PASS 1 leaves in ws each of
// chunks 0..nc-2 its end state from zero and its dt sum (its decay is 2^(a2 sum)), with no y; PASS 2
// starts each chunk from the state those combine to and rescans it exactly, y and all.
template <int N, int L, bool FIXED, int PASS>
__global__ void __launch_bounds__(WARPS * 32, OCC / WARPS > 0 ? OCC / WARPS : 1) scan_lanes(
    const float* __restrict__ u, const float* __restrict__ delta, const float* __restrict__ A,
    const float* __restrict__ B, const float* __restrict__ C, const float* __restrict__ D,
    const float* __restrict__ z, const float* __restrict__ delta_bias, float* __restrict__ y,
    float* __restrict__ last_state, int64_t d, int l, int64_t g, int softplus, bool vec, int clen,
    float* __restrict__ ws) {
  constexpr int S = N / L, CW = 32 / L, G = OWN * L, T = SUB * G;
  constexpr int RU = PASS == 1 ? 1 : SUB;  // PASS 1 unrolled over sub-blocks hoists their loads and spills
  constexpr int LG = log2_lanes<L>(), LCW = 5 - LG;  // log2 L, log2 CW
  static_assert(G % 4 == 0, "sub-blocks are read in float4 groups of steps");
  // Rows padded (row_pad): the CW channels' own-step writes and float4 broadcasts fall in different banks.
  __shared__ __align__(16) float sdt[WARPS][CW][T + row_pad<L>()], sdu[WARPS][CW][T + row_pad<L>()];
  // Dynamic: RED's WARPS * CW * red_channel_floats<L>() floats, then BCS's bc_block_floats<N, L>().
  extern __shared__ __align__(16) float dyn[];
  float* sred = dyn;
  // A block holds channels of one (batch, group), so a warp's channels share their B/C rows.
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int c, j;
  lane_roles<L>(lane, c, j);
  const int nc = PASS ? (l + clen - 1) / clen : 1, zc = PASS == 1 ? nc - 1 : nc;  // chunks, chunks here
  const int chunk = PASS ? int(blockIdx.z % zc) : 0, tb = PASS ? chunk * clen : 0;
  const int te = PASS ? min(l, tb + clen) : l;  // this block's steps: tb .. te - 1
  const int64_t dg = d / g, group = blockIdx.y, bi = blockIdx.z / zc;
  const int64_t local = (int64_t(blockIdx.x) * WARPS + warp) * CW + c;
  const bool active = local < dg;
  const int64_t i = group * dg + (active ? local : dg - 1);  // idle lanes shadow a real channel, store nothing
  const int64_t chan = bi * d + i;
  float a2[S], h[S], Bf[S], Cf[S];
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int s = j + L * k;
    a2[k] = A[i * N + s] * 1.4426950408889634f;
    h[k] = 0.0f;
    Bf[k] = FIXED ? B[i * N + s] : 0.0f;
    Cf[k] = FIXED ? C[i * N + s] : 0.0f;
  }
  const float bias = delta_bias ? delta_bias[i] : 0.0f, Dv = D ? D[i] : 0.0f;
  // Passed through an asm the compiler cannot see into: a limit it knows to follow from softplus would let
  // it duplicate the tile's end for both cases, a branch between the last epilogue and the next rows.
  float dt_limit;
  asm("mov.b32 %0, %1;" : "=f"(dt_limit) : "f"(softplus_limit(softplus)));
  const float *ur = u + chan * l, *dr = delta + chan * l, *zr = z && PASS != 1 ? z + chan * l : nullptr;
  float* yr = y + chan * l;
  // Row of state j; state j + L k lies k * rs further.
  const int64_t rs = int64_t(L) * l, row = FIXED ? 0 : ((bi * g + group) * N + j) * int64_t(l);
  const float *Bj = B + row, *Cj = C + row;
  float* wdt = sdt[warp][c];
  float* wdu = sdu[warp][c];
  // BCS: the block's staged B/C sub-blocks, [B, C][N rows][G / 4 float4s] each, copied by all its threads
  // (the copies of each B/C line per block, not per warp, take a quarter of the shared-memory writes).
  constexpr int RSB = G + 4, BCH = 2 * N * RSB;  // rows padded: reads spread over the banks
  float* sbc = dyn + (RED ? WARPS * CW * red_channel_floats<L>() : 0);
  const float* Bg = B + (FIXED ? 0 : (bi * g + group) * N * int64_t(l));
  const float* Cg = C + (FIXED ? 0 : (bi * g + group) * N * int64_t(l));
  // Slot it of a thread copies row lrow + it * RPI (B rows, then C rows; none past 2 N), float4 column
  // lcol: the source rows are fixed per thread, so their addresses are taken once and a sub-block only
  // adds its step.
  constexpr int QG = G / 4, RPI = WARPS * 32 / QG, ITS = (2 * N + RPI - 1) / RPI;
  const int lrow = int(threadIdx.x) / QG, lcol = 4 * (int(threadIdx.x) % QG);
  const float* bc_src[ITS];
  // The thread's first destination, as a shared-memory address passed through an asm: the compiler kept
  // recomputing it from threadIdx in every sub-block's copies instead of holding it, and waited for that
  // read of the thread index each time (2.5% of the stall samples on the H200).
  unsigned bc_dst;
  asm("mov.b32 %0, %1;" : "=r"(bc_dst) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(sbc + lrow * RSB + lcol))));
#pragma unroll
  for (int it = 0; it < ITS; ++it) {
    const int rw = min(lrow + it * RPI, 2 * N - 1);
    bc_src[it] = (rw < N ? Bg + rw * int64_t(l) : Cg + (rw - N) * int64_t(l)) + lcol;
  }
  // The sub-block from step ts into buffer (ts / G) % BC_BUFFERS, as one cp.async group, or an empty
  // group past te (so that "all but the newest BC_BUFFERS - 1" always means the sub-block in use). whole
  // (aligned, inside te) is a constant in the unrolled whole tiles, so their copies carry no branch.
  auto stage = [&](int ts, bool whole) {
    if (!whole && ts >= te) {
      cp_async_commit();
      return;
    }
    const int buffer = ((ts / G) % BC_BUFFERS) * BCH;
    float* dst = sbc + buffer + lrow * RSB + lcol;
#pragma unroll
    for (int it = 0; it < ITS; ++it) {
      if ((2 * N) % RPI != 0 && lrow + it * RPI >= 2 * N) break;  // (a constant test where RPI divides 2 N)
      if (whole) {
        cp_async16(bc_dst + sizeof(float) * (buffer + it * RPI * RSB), bc_src[it] + ts);
      } else {
#pragma unroll
        for (int x = 0; x < 4; ++x)
          dst[it * RPI * RSB + x] = ts + lcol + x < te ? __ldg(bc_src[it] + ts + x) : 0.0f;
      }
    }
    cp_async_commit();
  };
  float nu[SUB][OWN], nd[SUB][OWN], nz[SUB][OWN];
  auto fetch = [&](int t0, auto full) {
    constexpr bool FULL = decltype(full)::value;
#pragma unroll
    for (int r = 0; r < SUB; ++r) {
      const int t = t0 + r * G + OWN * j;
      load_steps<OWN, FULL>(nu[r], ur, t, te);
      load_steps<OWN, FULL>(nd[r], dr, t, te);
      if (zr) load_steps<OWN, FULL>(nz[r], zr, t, te);
    }
  };
  // The tile from t0: dt (softplus) and dt*u of the lane's own steps into the warp's rows, their u and z
  // kept for the epilogue (zero dt past te: the identity step).
  float dsum = 0.0f;  // PASS 1: the dt sum of the lane's own steps
  float cu[SUB][OWN], cz[SUB][OWN];
  auto prepare_rows = [&](int t0) {
#pragma unroll
    for (int r = 0; r < SUB; ++r) {
      float dtv[OWN], duv[OWN];
#pragma unroll
      for (int x = 0; x < OWN; ++x) {
        // Masked, not selected: a select here is compiled as a branch around the softplus, which would
        // cut this from the tile's last epilogue.
        const int inside = -int(t0 + r * G + OWN * j + x < te);
        dtv[x] = __int_as_float(__float_as_int(dt_below(nd[r][x] + bias, dt_limit)) & inside);
        duv[x] = dtv[x] * nu[r][x];
        if (PASS == 1) dsum += dtv[x];
        cu[r][x] = nu[r][x];
        cz[r][x] = zr ? nz[r][x] : 0.0f;
      }
      store_steps<OWN, true>(wdt, dtv, r * G + OWN * j, 0);
      store_steps<OWN, true>(wdu, duv, r * G + OWN * j, 0);
    }
  };
  // At the start of tile t0: the loads of the tile after it, which prepare_rows reads at the end of this
  // tile (issued and consumed in one pass of the tile loop: registers loaded at the end of one pass are
  // moved at the head of the next, and that move waited for the loads, 9% of the stall samples on the H200),
  // and PF's L2 prefetch of the rows PF tiles ahead of it (a line per lane j < PFL), so that those loads
  // wait for L2, not DRAM.
  auto fetch_ahead = [&](int t0) {
    if (t0 + T < te) {
      if (vec && t0 + 2 * T <= te) fetch(t0 + T, Flag<true>());
      else fetch(t0 + T, Flag<false>());
    }
    constexpr int PFL = (T + 31) / 32;  // 128-byte lines of a row per tile
    if (PF && j < PFL && t0 + PF * T + 32 * j < te) {
      const int tp = t0 + PF * T + 32 * j;
      prefetch_l2(ur + tp);
      prefetch_l2(dr + tp);
      if (zr) prefetch_l2(zr + tp);
    }
  };
  // One tile from t0, prepared: FULL tiles are aligned and inside te, so no bounds checks and vector
  // accesses. It ends by preparing the next tile (past te: harmless zero rows).
  auto tile = [&](int t0, auto full) {
    constexpr bool FULL = decltype(full)::value;
    fetch_ahead(t0);
    __syncwarp();  // the prepared rows are visible to the warp
    // The y of sub-block r from the lanes' partials a: reduced over the L lanes, D and the gate applied
    // (its own steps' u and z: uu, zz), stored.
    auto finish = [&](int r, float(&a)[G], const float(&uu)[OWN], const float(&zz)[OWN]) {
      float gate[OWN], out[OWN];
      silu_gates(gate, zz, zr != nullptr);
      reduce_partials<L>(a, j, sred + (warp * CW + c) * red_channel_floats<L>());
      gate_steps(out, a, Dv, uu, gate);
      if (active) store_steps<OWN, FULL>(yr, out, t0 + r * G + OWN * j, te);
    };
    // PIPE (1 and 2 alike here): in whole tiles sub-block r's reduction and epilogue follow sub-block r + 1's scan,
    // so the shuffle chain of the one overlaps the exps of the other (they are independent).
    constexpr bool DEFER = PIPE && FULL && PASS != 1 && pipe_fits_registers<N>();
    float acc[DEFER ? 2 : 1][G];
#pragma unroll RU
    for (int r = 0; r < SUB; ++r) {
      const int ts = t0 + r * G;
      if (!FULL && ts >= te) break;  // nothing left (and BCS stages nothing there): h is already final
      const float* bcur = sbc + ((ts / G) % BC_BUFFERS) * BCH;
      if (BCS && !FIXED) {
        // This sub-block's copies (the oldest of AHEAD pending groups) have landed; after the block
        // barrier so have every thread's, and every warp has finished reading the previous sub-block, whose
        // buffer then receives the copies of the sub-block AHEAD on, in flight during this one's scan.
        // (Every thread of the block runs the same sub-blocks: te and vec are the block's.)
        constexpr int AHEAD = BC_BUFFERS - 1;
        cp_async_wait_pending<AHEAD - 1>();
        __syncthreads();
        const bool ahead_whole = FULL && r + AHEAD < SUB;  // then whole and inside te
        const int tn = ts + AHEAD * G;
        stage(tn, ahead_whole || (vec && tn + G <= te));
      }
      float(&part)[G] = acc[DEFER ? r & 1 : 0];
#pragma unroll
      for (int q = 0; q < G / 4; ++q) {
        const int o = r * G + 4 * q;
        float Bq[S][4], Cq[S][4];
        if (!FIXED)
#pragma unroll
          for (int k = 0; k < S; ++k) {
            if (BCS) {
              load_shared<4>(Bq[k], bcur + (j + L * k) * RSB + 4 * q);
              if (PASS != 1) load_shared<4>(Cq[k], bcur + (N + j + L * k) * RSB + 4 * q);
            } else {
              load_steps<4, FULL>(Bq[k], Bj + k * rs, t0 + o, te);
              if (PASS != 1) load_steps<4, FULL>(Cq[k], Cj + k * rs, t0 + o, te);
            }
          }
        else
#pragma unroll
          for (int k = 0; k < S; ++k)
#pragma unroll
            for (int x = 0; x < 4; ++x) Bq[k][x] = Bf[k], Cq[k][x] = Cf[k];
        step_group<S, PASS != 1>(h, a2, wdt + o, wdu + o, Bq, Cq, part + 4 * q, 4 * q);
      }
      __syncwarp();  // the tile rows are read: prepare_rows rewrites them at the tile's end
      if (PASS == 1) continue;  // a summary has no y
      if (!DEFER) finish(r, part, cu[r], cz[r]);
      else if (r > 0) finish(r - 1, acc[(r - 1) & 1], cu[r - 1], cz[r - 1]);
    }
    if (DEFER) {
      // The next tile's rows first, then the last epilogue from copies of its u and z (prepare_rows
      // replaces them): one stretch of code without a branch, so the two overlap.
      float lu[OWN], lz[OWN];
#pragma unroll
      for (int x = 0; x < OWN; ++x) lu[x] = cu[SUB - 1][x], lz[x] = cz[SUB - 1][x];
      prepare_rows(t0 + T);
      finish(SUB - 1, acc[(SUB - 1) & 1], lu, lz);
    } else {
      prepare_rows(t0 + T);
    }
  };
  // PASS 2: the chunk's start state, S_c = 2^(a2 sum_{c-1}) S_{c-1} + E_{c-1} from S_0 = 0; ws holds
  // per (channel, chunk) the end state from zero (N floats), then the dt sum.
  if (PASS == 2)
    for (int q = 0; q < chunk; ++q) {
      const float* wq = ws + (chan * (nc - 1) + q) * (N + 1);
#pragma unroll
      for (int k = 0; k < S; ++k) h[k] = fmaf(ex2_mufu(wq[N] * a2[k]), h[k], wq[j + L * k]);
    }
  if (vec && tb + T <= te) fetch(tb, Flag<true>());
  else fetch(tb, Flag<false>());
  prepare_rows(tb);
  if (BCS && !FIXED && tb < te)
    for (int p = 0; p + 1 < BC_BUFFERS; ++p) stage(tb + p * G, vec && tb + (p + 1) * G <= te);
  for (int t0 = tb; t0 < te; t0 += T) {
    if (vec && t0 + T <= te) tile(t0, Flag<true>());
    else tile(t0, Flag<false>());
  }
  if (PASS == 1)
#pragma unroll
    for (int lv = LG - 1; lv >= 0; --lv) dsum += __shfl_xor_sync(0xffffffffu, dsum, lane_of_state_bit<LCW>(lv));  // the chunk's
  if (PASS == 1 && active) {
    float* wc = ws + (chan * (nc - 1) + chunk) * (N + 1);
#pragma unroll
    for (int k = 0; k < S; ++k) wc[j + L * k] = h[k];
    if (j == 0) wc[N] = dsum;
  }
  if (PASS != 1 && last_state && active && chunk == nc - 1)
#pragma unroll
    for (int k = 0; k < S; ++k) last_state[chan * N + j + L * k] = h[k];
}

#include "lanes_tma.cuh"
#include "scan_generic.cuh"

template <int N, int L>
void launch_lanes(const float* u, const float* delta, const float* A, const float* B, const float* C,
                  const float* D, const float* z, const float* delta_bias, float* y, float* last_state, int64_t b,
                  int64_t d, int64_t l, int64_t g, int bc_layout, int softplus, int sms, cudaStream_t stream) {
  constexpr int CW = 32 / L, T = SUB * OWN * L;
  const dim3 blocks(unsigned((d / g + WARPS * CW - 1) / (WARPS * CW)), unsigned(g), unsigned(b));
  auto aligned = [](const void* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const bool vec = l % 4 == 0 && aligned(u) && aligned(delta) && aligned(z) && aligned(y) &&
                   (bc_layout == 0 || (aligned(B) && aligned(C)));
  // The RED and BCS buffers may pass the 48 KiB a block gets by default (only then the extra call).
  const int bytes = int(sizeof(float)) * ((RED ? WARPS * CW * red_channel_floats<L>() : 0) +
                                          (BCS && bc_layout ? bc_block_floats<N, L>() : 0));
  const bool big = bytes + 2 * WARPS * CW * (T + row_pad<L>()) * int(sizeof(float)) > 48 * 1024;
  // Thin grids (a quarter of the OCC warps per SM or fewer) leave the GPU idle while each warp runs its
  // serial chain of l steps: min(TCHUNKS, OCC sms / warps, l / CMIN) chunks of whole tiles fill it (two
  // passes, twice the exps, a chain of about 2 l / nc steps). Fewer than 4 chunks do not shorten the chain
  // enough to pay for the second pass, and chunks under 512 steps not for its launch (measured on the
  // H200 before PIPE: 2 chunks of 1024 steps and 4 of 128 were slower than one pass, 4 of 512 faster;
  // CMIN = 256 with TCHUNKS = 8 tries 8 chunks of 256 on the l2048 sequences). A failed workspace
  // allocation falls back to the single pass.
  int nc = 1, clen = int(l);
  const int64_t warps = int64_t(blocks.x) * g * b * WARPS, fill = int64_t(OCC) * sms / warps;
  int64_t k = fill < TCHUNKS ? fill : TCHUNKS;
  if (l / CMIN < k) k = l / CMIN;
  if (k >= 4 && l > T) {
    clen = int((l + k - 1) / k + T - 1) / T * T;
    nc = int((l + clen - 1) / clen);
  }
  auto passes = [&](auto fixed) {
    constexpr bool F = decltype(fixed)::value;
    auto go = [&](auto kernel, int64_t zs, float* ws) {
      if (big) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      const dim3 grid(blocks.x, blocks.y, unsigned(zs));
      kernel<<<grid, WARPS * 32, bytes, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state, d, int(l), g,
                                                  softplus, vec, clen, ws);
    };
    float* ws = nullptr;
    if constexpr (TCHUNKS > 1) {  // (TCHUNKS = 1 instantiates the single pass only)
      if (nc > 1 && cudaMallocAsync(reinterpret_cast<void**>(&ws), sizeof(float) * b * d * (nc - 1) * (N + 1),
                                    stream) == cudaSuccess) {
        go(scan_lanes<N, L, F, 1>, b * (nc - 1), ws);
        go(scan_lanes<N, L, F, 2>, b * nc, ws);
        cudaFreeAsync(ws, stream);
        return;
      }
    }
    if constexpr (TMA && !F && L <= 8)
      if (vec && launch_lanes_tma<N, L>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, softplus, blocks,
                                        stream))
        return;
    go(scan_lanes<N, L, F, 0>, b, ws);
  };
  if (bc_layout) passes(Flag<false>());
  else passes(Flag<true>());
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus, cudaStream_t stream) {
  if (b * d == 0) return;
  if (n == 16) {
    // Thin grids (few channels) take 16 lanes per channel: twice the warps of 8, more latency hidden.
    int dev = 0, sms = 132;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (LPC < 16 && b * d * LPC < int64_t(MINW) * sms * 32)
      launch_lanes<16, 16>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus,
                           sms, stream);
    else
      launch_lanes<16, LPC>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus,
                            sms, stream);
  } else if (n <= 256) {
    scan_generic<<<unsigned((b * d + 127) / 128), 128, 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state,
                                                                    b, d, l, n, g, bc_layout, delta_softplus);
  }
}
