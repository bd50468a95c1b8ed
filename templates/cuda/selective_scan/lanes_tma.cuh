#pragma once
// TMA = 1: scan_lanes' single pass for input-dependent B/C where every row starts 16-byte aligned (l % 4 == 0),
// with its tiles brought by the TMA unit instead of the threads: per tile, one thread of the block copies the
// B/C rows of its (batch, group) and one lane of each warp copies the u, delta and z rows of the warp's channels,
// each completing an mbarrier. In scan_lanes (H200, b4 d1536 l4096) the cp.async staging took 14% of the L1 data
// pipe's wavefronts (15 per instruction) plus a block barrier per sub-block, and integer, branch and move
// instructions (load addresses, register hand-offs, staging tests) about 1.4 per state update; here the pipe ran
// at 63% instead of 73%, 0.2123 ms instead of 0.2301. A tile is one stretch of code: the last tile runs whole too
// (the TMA fills steps past l with zeros, dt is masked to 0 there, the identity step, and y is stored for steps
// inside l only). Uses the including family's knobs and helpers.
#include "../common/tma_f32.cuh"

// B/C tiles: the one in use and three more, refilled two tiles ahead (3 stages, one tile ahead: 0.2189 ms against
// 0.2172 on the H200's b4 d1536 l4096).
constexpr int TMA_BC_STAGES = 4;
constexpr int TMA_U_STAGES = 2;   // a warp's u/delta/z tiles: the one in use and the next

// The shared-memory layout of one block, in floats: rows padded so that their reads spread over the banks.
template <int N, int L>
struct TmaLayout {
  // Tiles of at most 64 steps (SUB is cut to fit where the sub-blocks are longer): four B/C stages of 128 steps
  // would leave room for fewer blocks per SM than OCC asks.
  static constexpr int CW = 32 / L, G = OWN * L, SUBS = G >= 64 ? 1 : SUB * G <= 64 ? SUB : 64 / G;
  static constexpr int T = SUBS * G;
  // B/C rows, T + 4 steps (the box's width): the 8 state rows j of a float4 read fall 4 banks apart.
  static constexpr int RB = T + 4, BC_TILE = 2 * N * RB;
  // u/delta/z and dt/du rows, padded as scan_lanes pads its dt/du rows (row_pad): the lanes' own-step reads and
  // writes and the dt/du float4 broadcasts are conflict-free. A row set starts 128-byte aligned (the TMA's
  // destinations must).
  static constexpr int RU = T + row_pad<L>(), U_SET = (CW * RU + 31) / 32 * 32, U_TILE = 3 * U_SET;
  static constexpr int U_OFFSET = TMA_BC_STAGES * BC_TILE, RED_OFFSET = U_OFFSET + WARPS * TMA_U_STAGES * U_TILE;
  // RED = 1: the reduction rows of every channel (as in scan_lanes); then the mbarriers (8 bytes each): B/C full
  // and empty per stage, u full per warp and stage; 128 bytes of slack to align the base.
  static constexpr int BAR_OFFSET = RED_OFFSET + (RED ? WARPS * CW * red_channel_floats<L>() : 0);
  static constexpr int BYTES = 4 * BAR_OFFSET + 8 * (2 * TMA_BC_STAGES + WARPS * TMA_U_STAGES) + 128;
};

template <int N, int L>
__global__ void __launch_bounds__(WARPS * 32, OCC / WARPS > 0 ? OCC / WARPS : 1) scan_lanes_tma(
    const __grid_constant__ CUtensorMap map_u, const __grid_constant__ CUtensorMap map_delta,
    const __grid_constant__ CUtensorMap map_z, const __grid_constant__ CUtensorMap map_B,
    const __grid_constant__ CUtensorMap map_C, const float* __restrict__ A, const float* __restrict__ D,
    const float* __restrict__ delta_bias, bool has_z, float* __restrict__ y, float* __restrict__ last_state, int64_t d,
    int l, int64_t g, int softplus) {
  using Lay = TmaLayout<N, L>;
  constexpr int S = N / L, CW = Lay::CW, G = Lay::G, SUBS = Lay::SUBS, T = Lay::T, RB = Lay::RB, RU = Lay::RU;
  __shared__ __align__(16) float sdt[WARPS][CW][RU], sdu[WARPS][CW][RU];
  extern __shared__ __align__(16) float dyn_tma[];
  // The warp index through a shuffle from lane 0: the compiler then knows it is uniform in the warp and keeps the
  // TMA operands derived from it in uniform registers (else each copy is issued in a loop over distinct values).
  const int lane = threadIdx.x % 32, warp = __shfl_sync(0xffffffffu, int(threadIdx.x / 32), 0);
  int c, j;
  lane_roles<L>(lane, c, j);
  const int64_t dg = d / g, group = blockIdx.y, bi = blockIdx.z;
  const int64_t local0 = (int64_t(blockIdx.x) * WARPS + warp) * CW, local = local0 + c;
  const bool active = local < dg;
  const int64_t i = group * dg + (active ? local : dg - 1);  // idle lanes shadow a real channel, store nothing
  const int64_t chan = bi * d + i;
  const int row0 = int(bi * d + group * dg + local0), plane = int(bi * g + group);  // the boxes' coordinates
  float a2[S], h[S];
#pragma unroll
  for (int k = 0; k < S; ++k) {
    a2[k] = A[i * N + j + L * k] * 1.4426950408889634f;
    h[k] = 0.0f;
  }
  const float bias = delta_bias ? delta_bias[i] : 0.0f, Dv = D ? D[i] : 0.0f;
  float dt_limit;  // through an asm, as in scan_lanes: a known limit would split the tile's end in two
  asm("mov.b32 %0, %1;" : "=f"(dt_limit) : "f"(softplus_limit(softplus)));
  float* yr = y + chan * l;
  float* wdt = sdt[warp][c];
  float* wdu = sdu[warp][c];
  // The dynamic buffers from a 128-byte aligned base, as shared-memory addresses (the TMA's and mbarriers'
  // operands) and as pointers (the lanes' reads).
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(dyn_tma)), base = (raw + 127) & ~127u;
  float* fbase = dyn_tma + (base - raw) / 4;
  const uint32_t bars = base + 4 * Lay::BAR_OFFSET;
  auto bc_full = [&](int s) { return bars + 8 * s; };
  auto bc_empty = [&](int s) { return bars + 8 * (TMA_BC_STAGES + s); };
  auto u_full = [&](int w, int s) { return bars + 8 * (2 * TMA_BC_STAGES + w * TMA_U_STAGES + s); };
  const int tiles = (l + T - 1) / T;
  if (threadIdx.x == 0) {
    for (int s = 0; s < TMA_BC_STAGES; ++s) mbar_init(bc_full(s), 1), mbar_init(bc_empty(s), WARPS);
    for (int w = 0; w < WARPS; ++w)
      for (int s = 0; s < TMA_U_STAGES; ++s) mbar_init(u_full(w, s), 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  // Tile t's B and C rows (all N states, steps t T .. t T + RB - 1) into B/C stage t % TMA_BC_STAGES: by one thread
  // (thread 0 for the first tiles, then lane 0 of the warps in turn).
  auto load_bc = [&](int t) {
    const int s = t % TMA_BC_STAGES;
    const uint32_t dst = base + 4 * s * Lay::BC_TILE;
    mbar_arrive_expect_bytes(bc_full(s), 4 * Lay::BC_TILE);
    tma_load_3d(dst, &map_B, t * T, 0, plane, bc_full(s));
    tma_load_3d(dst + 4 * N * RB, &map_C, t * T, 0, plane, bc_full(s));
  };
  // Tile t's u, delta (and z) rows of the warp's CW channels into the warp's stage t % TMA_U_STAGES: by lane 0.
  auto load_u = [&](int t) {
    const int s = t % TMA_U_STAGES;
    const uint32_t dst = base + 4 * (Lay::U_OFFSET + (warp * TMA_U_STAGES + s) * Lay::U_TILE);
    mbar_arrive_expect_bytes(u_full(warp, s), 4 * CW * RU * (has_z ? 3 : 2));
    tma_load_2d(dst, &map_u, t * T, row0, u_full(warp, s));
    tma_load_2d(dst + 4 * Lay::U_SET, &map_delta, t * T, row0, u_full(warp, s));
    if (has_z) tma_load_2d(dst + 8 * Lay::U_SET, &map_z, t * T, row0, u_full(warp, s));
  };
  auto u_rows = [&](int t) { return fbase + Lay::U_OFFSET + (warp * TMA_U_STAGES + t % TMA_U_STAGES) * Lay::U_TILE; };
  if (threadIdx.x == 0)
    for (int t = 0; t < TMA_BC_STAGES - 1 && t < tiles; ++t) load_bc(t);
  if (lane == 0)
    for (int t = 0; t < TMA_U_STAGES && t < tiles; ++t) load_u(t);
  // Tile t's dt (softplus) and dt*u of the lane's own steps into the warp's rows. In the tile that passes l, dt is
  // masked to 0 there (the identity step: h stays the last state); whole tiles skip the mask. Every sub-block's u and
  // delta are read before the first store: the compiler keeps shared loads behind earlier shared stores (they might
  // alias), which made the sub-blocks' softplus chains (two MUFU round trips each) run one after the other.
  auto prepare_rows = [&](int t, auto last) {
    constexpr bool LAST = decltype(last)::value;
    mbar_wait(u_full(warp, t % TMA_U_STAGES), (t / TMA_U_STAGES) & 1);
    const float* ur = u_rows(t) + c * RU + OWN * j;
    float uv[SUBS][OWN], dv[SUBS][OWN];
#pragma unroll
    for (int r = 0; r < SUBS; ++r) {
      load_shared<OWN>(uv[r], ur + r * G);
      load_shared<OWN>(dv[r], ur + Lay::U_SET + r * G);
    }
#pragma unroll
    for (int r = 0; r < SUBS; ++r) {
      float dtv[OWN], duv[OWN];
#pragma unroll
      for (int x = 0; x < OWN; ++x) {
        dtv[x] = dt_below(dv[r][x] + bias, dt_limit);
        if (LAST && t * T + r * G + OWN * j + x >= l) dtv[x] = 0.0f;
        duv[x] = dtv[x] * uv[r][x];
      }
      store_steps<OWN, true>(wdt, dtv, r * G + OWN * j, 0);
      store_steps<OWN, true>(wdu, duv, r * G + OWN * j, 0);
    }
  };
  auto prepare_tile = [&](int t) {
    if ((t + 1) * T <= l) prepare_rows(t, Flag<false>());
    else prepare_rows(t, Flag<true>());
  };
  // The lane's y of tile t: its first own step's address (held at the row's end past it: nothing is stored then),
  // passed through an asm so that ptxas keeps it in a register and stores every sub-block at a constant offset from it
  // (it derived each store's 64-bit address again from the kernel parameter, about 7 instructions per store), and the
  // steps left in l from there (0 for idle lanes).
  auto y_tile = [&](int t, float*& yp, int& left) {
    asm("mov.b64 %0, %1;" : "=l"(yp) : "l"(yr + min(t * T + OWN * j, l)));
    __builtin_assume(__isGlobal(yp));  // (global stores, not generic ones)
    left = active ? l - t * T - OWN * j : 0;
  };
  // Sub-block r of tile t: y of the lane's own steps from the partials a (u and z from the tile's rows), stored at yp.
  auto finish = [&](int t, int r, float(&a)[G], float* yp, int left) {
    const float* ur = u_rows(t) + c * RU + r * G + OWN * j;
    float uu[OWN], zz[OWN], gate[OWN], out[OWN];
    load_shared<OWN>(uu, ur);
    load_shared<OWN>(zz, ur + (has_z ? 2 * Lay::U_SET : 0));  // (u's row where there is no z: read, not used)
    silu_gates(gate, zz, has_z);
    reduce_partials<L>(a, j, fbase + Lay::RED_OFFSET + (warp * CW + c) * red_channel_floats<L>());
    gate_steps(out, a, Dv, uu, gate);
    if (r * G < left) store_steps<OWN, true>(yp, out, r * G, 0);
  };
  prepare_tile(0);
  for (int t = 0; t < tiles; ++t) {
    __syncwarp();  // the prepared rows are visible to the warp
    const int sb = t % TMA_BC_STAGES;
    mbar_wait(bc_full(sb), (t / TMA_BC_STAGES) & 1);
    const float* bc = fbase + sb * Lay::BC_TILE;
    // PIPE 1: sub-block r's reduction and epilogue follow sub-block r + 1's scan (as in scan_lanes). PIPE 2: all of
    // them follow the next tile's dt rows, at the tile's end: the compiler's divergence check before each set of
    // shuffles ends a block of code, and one such block then holds every butterfly of the tile beside the softplus
    // chains (H200, b4 d1536 l4096: 0.1999 ms against 0.2044 with PIPE 1).
    constexpr bool AT_END = PIPE == 2, DEFER = PIPE == 1 && pipe_fits_registers<N>();
    float acc[AT_END ? SUBS : DEFER ? 2 : 1][G];
    float* yp;
    int left;
    y_tile(t, yp, left);
#pragma unroll
    for (int r = 0; r < SUBS; ++r) {
      float(&part)[G] = acc[AT_END ? r : DEFER ? r & 1 : 0];
#pragma unroll
      for (int q = 0; q < G / 4; ++q) {
        const int o = r * G + 4 * q;
        float Bq[S][4], Cq[S][4];
#pragma unroll
        for (int k = 0; k < S; ++k) {
          load_shared<4>(Bq[k], bc + (j + L * k) * RB + o);
          load_shared<4>(Cq[k], bc + (N + j + L * k) * RB + o);
        }
        step_group<S, true>(h, a2, wdt + o, wdu + o, Bq, Cq, part + 4 * q, 4 * q);
      }
      if (AT_END) continue;
      if (!DEFER) finish(t, r, part, yp, left);
      else if (r > 0) finish(t, r - 1, acc[(r - 1) & 1], yp, left);
    }
    __syncwarp();  // every lane has read the tile's B/C and dt/du rows
    if (lane == 0) mbar_arrive(bc_empty(sb));
    // The next tile's rows, then the last epilogue (PIPE 2: every epilogue): one stretch of code, so they overlap.
    if (t + 1 < tiles) prepare_tile(t + 1);
    if (AT_END)
#pragma unroll
      for (int r = 0; r < SUBS; ++r) finish(t, r, acc[r], yp, left);
    else if (DEFER) finish(t, SUBS - 1, acc[(SUBS - 1) & 1], yp, left);
    // The tile index through a shuffle from lane 0, as the warp index above: ptxas then computes the copies' operands
    // in uniform registers instead of moving each into one (R2UR) inside the copy's issue loop.
    const int tu = __shfl_sync(0xffffffffu, t, 0);
    __syncwarp();  // every lane has read tile t's u/delta/z rows: the stage takes tile t + TMA_U_STAGES
    if (lane == 0 && tu + TMA_U_STAGES < tiles) {
      fence_async_shared();
      load_u(tu + TMA_U_STAGES);
    }
    // B/C stage (t - 1) % TMA_BC_STAGES takes tile t + TMA_BC_STAGES - 1 once every warp has left tile t - 1
    // (long ago: a warp waits here only if another trails it by a whole tile). The warps take turns: with one
    // producer warp per block, every block's producer sat on the same scheduler (warp w runs on scheduler w % 4),
    // which then trailed while the other three spun on the mbarriers (H200: 7 retries per tile).
    if (threadIdx.x == (tu % WARPS) * 32 && tu + TMA_BC_STAGES - 1 < tiles) {
      if (tu > 0) mbar_wait(bc_empty((tu - 1) % TMA_BC_STAGES), ((tu - 1) / TMA_BC_STAGES) & 1);
      load_bc(tu + TMA_BC_STAGES - 1);
    }
  }
  if (last_state && active)
#pragma unroll
    for (int k = 0; k < S; ++k) last_state[chan * N + j + L * k] = h[k];
}

// Launches scan_lanes_tma where its tensor maps can be made (l % 4 == 0, 16-byte aligned tensors); false otherwise.
// (Grids thin enough for 16 lanes per channel keep scan_lanes: there a tile's mbarrier and copy work falls on half
// the updates, and on the H200 the TMA kernel was 4-20% slower on those workloads.)
template <int N, int L>
bool launch_lanes_tma(const float* u, const float* delta, const float* A, const float* B, const float* C, const float* D,
                      const float* z, const float* delta_bias, float* y, float* last_state, int64_t b, int64_t d,
                      int64_t l, int64_t g, int softplus, dim3 blocks, cudaStream_t stream) {
  using Lay = TmaLayout<N, L>;
  CUtensorMap map_u, map_delta, map_z, map_B, map_C;
  const uint64_t rows_dims[2] = {uint64_t(l), uint64_t(b * d)}, bc_dims[3] = {uint64_t(l), uint64_t(N), uint64_t(b * g)};
  const uint32_t rows_box[2] = {uint32_t(Lay::RU), uint32_t(Lay::CW)}, bc_box[3] = {uint32_t(Lay::RB), uint32_t(N), 1};
  // (The boxes' coordinates are 32-bit: rows past 2^31 stay with scan_lanes; so does l = 0, which has no tile.)
  if (l == 0 || l % 4 != 0 || b * d > INT32_MAX - 64 || !tensor_map_f32(&map_u, u, 2, rows_dims, rows_box) ||
      !tensor_map_f32(&map_delta, delta, 2, rows_dims, rows_box) ||
      (z && !tensor_map_f32(&map_z, z, 2, rows_dims, rows_box)) || !tensor_map_f32(&map_B, B, 3, bc_dims, bc_box) ||
      !tensor_map_f32(&map_C, C, 3, bc_dims, bc_box))
    return false;
  auto kernel = scan_lanes_tma<N, L>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Lay::BYTES) != cudaSuccess) return false;
  kernel<<<blocks, WARPS * 32, Lay::BYTES, stream>>>(map_u, map_delta, z ? map_z : map_u, map_B, map_C, A, D,
                                                      delta_bias, z != nullptr, y, last_state, d, int(l), g, softplus);
  return true;
}
