// Selective scan families. chunked_lanes: one lane per state, a channel's states in one warp
// segment, the time axis split into P chunks scanned in parallel (two passes: chunk transfer, then
// the exact scan from the combined chunk-start state); channels of one block share B/C through L1.
// tiled_registers: time tiles staged in shared memory, states in registers, the same two passes.
#include "proposers/builtin/cuda/common.hpp"

namespace ksearch::builtin::cuda {

namespace {

// The fallback for state sizes the tiled kernels do not cover, shared by both families.
const char* kGenericScan = R"(
// Any other state size: one thread per channel, sequential (states in a local array).
__global__ void scan_generic(const float* u, const float* delta, const float* A, const float* B, const float* C,
                             const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                             int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int bc_layout, int softplus) {
  const int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (idx >= b * d) return;
  const int64_t bi = idx / d, i = idx % d, group = i / (d / g);
  float h[256];
  for (int64_t s = 0; s < n; ++s) h[s] = 0;
  for (int64_t t = 0; t < l; ++t) {
    const int64_t x = idx * l + t;
    const float dt = step_dt(delta[x] + (delta_bias ? delta_bias[i] : 0.0f), softplus);
    float acc = 0;
    for (int64_t s = 0; s < n; ++s) {
      const float Bv = bc_layout == 0 ? B[i * n + s] : B[((bi * g + group) * n + s) * l + t];
      const float Cv = bc_layout == 0 ? C[i * n + s] : C[((bi * g + group) * n + s) * l + t];
      h[s] = expf(dt * A[i * n + s]) * h[s] + dt * Bv * u[x];
      acc += h[s] * Cv;
    }
    if (D) acc += D[i] * u[x];
    if (z) acc *= z[x] / (1.0f + expf(-z[x]));
    y[x] = acc;
  }
  if (last_state)
    for (int64_t s = 0; s < n; ++s) last_state[idx * n + s] = h[s];
}
)";

const char* kChunked = R"(#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ float step_dt(float v, int softplus) {
  return softplus ? (v > 20.0f ? v : log1pf(__expf(v))) : v;
}

// Channels per block, reduced where CH * P * N would exceed 1024 threads.
template <int N>
__host__ __device__ constexpr int channels() { return CH * P * N <= 1024 ? CH : 1024 / (P * N); }

// Lane s of a group of N lanes holds state s of one channel over one time chunk.
template <int N>
__global__ void __launch_bounds__(channels<N>() * P * N) scan_chunked(
    const float* __restrict__ u, const float* __restrict__ delta, const float* __restrict__ A,
    const float* __restrict__ B, const float* __restrict__ C, const float* __restrict__ D,
    const float* __restrict__ z, const float* __restrict__ delta_bias, float* __restrict__ y,
    float* __restrict__ last_state, int64_t b, int64_t d, int64_t l, int64_t g, int bc_layout, int softplus) {
  __shared__ float chunk_h[channels<N>()][P][N], chunk_decay[channels<N>()][P][N];
  const int s = threadIdx.x % N, p = (threadIdx.x / N) % P, cl = threadIdx.x / (N * P);
  const int lane = threadIdx.x % 32;
  const unsigned mask = N == 32 ? 0xffffffffu : (((1u << N) - 1u) << (lane & ~(N - 1)));
  const int64_t chan = blockIdx.x * int64_t(channels<N>()) + cl;
  const bool active = chan < b * d;
  const int64_t bi = active ? chan / d : 0, i = active ? chan % d : 0, group = i / (d / g);
  const int64_t chunk = (l + P - 1) / P, t0 = min(l, p * chunk), t1 = min(l, t0 + chunk);
  const float a = active ? A[i * N + s] : 0.0f;
  const float bias = delta_bias && active ? delta_bias[i] : 0.0f;
  const float* ub = u + chan * l;
  const float* db = delta + chan * l;
  const float* Bs = bc_layout ? B + ((bi * g + group) * N + s) * l : B + i * N + s;
  const float* Cs = bc_layout ? C + ((bi * g + group) * N + s) * l : C + i * N + s;
  const int64_t bc_step = bc_layout ? 1 : 0;
  float h = 0.0f;
  if (P > 1) {
    float decay = 1.0f;
    if (active)
      for (int64_t t = t0; t < t1; ++t) {
        const float dt = step_dt(__ldg(db + t) + bias, softplus);
        const float da = __expf(dt * a);
        h = da * h + dt * __ldg(Bs + t * bc_step) * __ldg(ub + t);
        decay *= da;
      }
    chunk_h[cl][p][s] = h;
    chunk_decay[cl][p][s] = decay;
    __syncthreads();
    h = 0.0f;
    for (int q = 0; q < p; ++q) h = chunk_decay[cl][q][s] * h + chunk_h[cl][q][s];
  }
  if (!active) return;
  const float Dv = D ? D[i] : 0.0f;
  for (int64_t t = t0; t < t1; ++t) {
    const float uv = __ldg(ub + t);
    const float dt = step_dt(__ldg(db + t) + bias, softplus);
    h = __expf(dt * a) * h + dt * __ldg(Bs + t * bc_step) * uv;
    float acc = h * __ldg(Cs + t * bc_step);
#pragma unroll
    for (int off = N / 2; off > 0; off >>= 1) acc += __shfl_xor_sync(mask, acc, off);
    if (s == 0) {
      acc += Dv * uv;
      if (z) {
        const float zv = __ldg(z + chan * l + t);
        acc *= zv / (1.0f + __expf(-zv));
      }
      y[chan * l + t] = acc;
    }
  }
  if (last_state && p == P - 1) last_state[chan * N + s] = h;
}

)";

const char* kChunkedLaunch = R"(
template <int N>
void launch(const float* u, const float* delta, const float* A, const float* B, const float* C, const float* D,
            const float* z, const float* delta_bias, float* y, float* last_state, int64_t b, int64_t d, int64_t l,
            int64_t g, int bc_layout, int softplus, cudaStream_t stream) {
  const unsigned blocks = unsigned((b * d + channels<N>() - 1) / channels<N>());
  scan_chunked<N><<<blocks, channels<N>() * P * N, 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g,
                                                     bc_layout, softplus);
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus, cudaStream_t stream) {
  if (b * d == 0 || l == 0) return;
  switch (n) {
    case 4: launch<4>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    case 8: launch<8>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    case 16: launch<16>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    case 32: launch<32>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    default:
      if (n <= 256)
        scan_generic<<<unsigned((b * d + 127) / 128), 128, 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state,
                                                                        b, d, l, n, g, bc_layout, delta_softplus);
  }
}
)";

const char* kTiled = R"(#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ float ex2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ float step_dt(float v, int softplus) {
  return softplus ? (v > 20.0f ? v : log1pf(__expf(v))) : v;
}

// Lanes per channel chunk, limited to the state count.
template <int N>
__host__ __device__ constexpr int lanes() { return LPS < N ? LPS : N; }

// One block: CH channels of one (batch, group), the whole time axis in tiles of P chunks of K steps.
// Thread (channel, chunk p, lane) holds N / LPS states in registers; a tile's u, dt, z, B, C are
// staged in shared memory with coalesced loads (dt computed once there).
template <int N>
__global__ void __launch_bounds__(CH * P * lanes<N>()) scan_tiled(
    const float* __restrict__ u, const float* __restrict__ delta, const float* __restrict__ A,
    const float* __restrict__ B, const float* __restrict__ C, const float* __restrict__ D,
    const float* __restrict__ z, const float* __restrict__ delta_bias, float* __restrict__ y,
    float* __restrict__ last_state, int64_t d, int64_t l, int64_t g, int bc_layout, int softplus) {
  constexpr int L = lanes<N>(), NS = N / L, T = P * K, KP = K + 1, TP = P * KP, NT = CH * P * L;
  constexpr unsigned kMask = NT >= 32 ? 0xffffffffu : (1u << NT) - 1u;  // a block smaller than a warp
  // Chunk rows padded by one float so the P chunks of a warp fall in different banks.
  __shared__ float su[CH][TP], sdt[CH][TP], sz[CH][TP], sy[CH][TP], sB[N][TP], sC[N][TP];
  __shared__ float sh[CH][P][N], ssum[CH][P], scarry[CH][N];
  const int tid = threadIdx.x, sl = tid % L, p = (tid / L) % P, cl = tid / (L * P);
  const int64_t dg = d / g, bi = blockIdx.z, gi = blockIdx.y;
  const int64_t i0 = gi * dg + int64_t(blockIdx.x) * CH;  // first channel of the block
  const int nch = int((CH < gi * dg + dg - i0 ? int64_t(CH) : gi * dg + dg - i0));
  const bool active = cl < nch;
  const int64_t i = i0 + (active ? cl : 0), chan = bi * d + i;
  const float LOG2E = 1.4426950408889634f;
  float a2[NS], h[NS], Bf[NS], Cf[NS];
#pragma unroll
  for (int j = 0; j < NS; ++j) {
    const int s = j * L + sl;  // states interleaved over lanes: conflict-free sB/sC reads
    a2[j] = A[i * N + s] * LOG2E;
    Bf[j] = bc_layout ? 0.0f : B[i * N + s];
    Cf[j] = bc_layout ? 0.0f : C[i * N + s];
    h[j] = 0.0f;
  }
  for (int idx = tid; idx < CH * N; idx += NT) scarry[idx / N][idx % N] = 0.0f;
  const float Dv = D ? D[i] : 0.0f;
  const float* Bg = B + (bi * g + gi) * N * l;
  const float* Cg = C + (bi * g + gi) * N * l;
  // A tile's loads go to registers one tile ahead (the DRAM latency overlaps the scan of the
  // current tile), then to shared memory; steps past l get dt = 0 (identity step) and u = 0.
  static_assert(CH * T % NT == 0, "a thread stages whole rows");
  constexpr int RX = CH * T / NT, RB = (N * T + NT - 1) / NT;
  float ru[RX], rd[RX], rz[RX], rB[RB], rC[RB];
  auto fetch = [&](int64_t t0) {
#pragma unroll
    for (int r = 0; r < RX; ++r) {
      const int idx = tid + r * NT, c = idx / T, t = idx % T;
      const int64_t gt = t0 + t, x = (bi * d + i0 + c) * l + gt;
      const bool ok = c < nch && gt < l;
      ru[r] = ok ? __ldg(u + x) : 0.0f;
      rd[r] = ok ? __ldg(delta + x) : 0.0f;
      rz[r] = ok && z ? __ldg(z + x) : 0.0f;
    }
    if (bc_layout)
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        const int idx = tid + r * NT, s = idx / T, t = idx % T;
        const int64_t gt = t0 + t;
        const bool ok = idx < N * T && gt < l;
        rB[r] = ok ? __ldg(Bg + s * l + gt) : 0.0f;
        rC[r] = ok ? __ldg(Cg + s * l + gt) : 0.0f;
      }
  };
  auto commit = [&](int64_t t0) {
#pragma unroll
    for (int r = 0; r < RX; ++r) {
      const int idx = tid + r * NT, c = idx / T, t = idx % T, o = (t / K) * KP + t % K;
      const bool ok = c < nch && t0 + t < l;
      const float bc = delta_bias ? delta_bias[ok ? i0 + c : i0] : 0.0f;
      su[c][o] = ru[r];
      sdt[c][o] = ok ? step_dt(rd[r] + bc, softplus) : 0.0f;
      sz[c][o] = rz[r];
    }
    if (bc_layout)
#pragma unroll
      for (int r = 0; r < RB; ++r) {
        const int idx = tid + r * NT, s = idx / T, t = idx % T, o = (t / K) * KP + t % K;
        if (idx < N * T) sB[s][o] = rB[r], sC[s][o] = rC[r];
      }
  };
  fetch(0);
  for (int64_t t0 = 0; t0 < l; t0 += T) {
    commit(t0);
    __syncthreads();
    if (t0 + T < l) fetch(t0 + T);
    // Pass 1: each chunk's end state from zero and its dt sum (the chunk's decay is exp(A * sum)).
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < NS; ++j) h[j] = 0.0f;
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
      const int o = p * KP + k;
      const float dt = sdt[cl][o], du = dt * su[cl][o];
      sum += dt;
#pragma unroll
      for (int j = 0; j < NS; ++j) h[j] = ex2(dt * a2[j]) * h[j] + du * (bc_layout ? sB[j * L + sl][o] : Bf[j]);
    }
#pragma unroll
    for (int j = 0; j < NS; ++j) sh[cl][p][j * L + sl] = h[j];
    if (sl == 0) ssum[cl][p] = sum;
    __syncthreads();
    // Chunk-start state: the carry from the previous tile through chunks 0..p-1.
#pragma unroll
    for (int j = 0; j < NS; ++j) h[j] = scarry[cl][j * L + sl];
    for (int q = 0; q < p; ++q) {
      const float sq = ssum[cl][q];
#pragma unroll
      for (int j = 0; j < NS; ++j) h[j] = ex2(sq * a2[j]) * h[j] + sh[cl][q][j * L + sl];
    }
    __syncthreads();
    // Pass 2: the exact scan, y reduced over the channel's lanes, D and the SiLU gate fused.
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
      const int o = p * KP + k;
      const float dt = sdt[cl][o], uv = su[cl][o], du = dt * uv;
      float acc = 0.0f;
#pragma unroll
      for (int j = 0; j < NS; ++j) {
        h[j] = ex2(dt * a2[j]) * h[j] + du * (bc_layout ? sB[j * L + sl][o] : Bf[j]);
        acc += h[j] * (bc_layout ? sC[j * L + sl][o] : Cf[j]);
      }
#pragma unroll
      for (int off = L / 2; off > 0; off >>= 1) acc += __shfl_xor_sync(kMask, acc, off);
      if (sl == 0) {
        acc += Dv * uv;
        if (z) {
          const float zv = sz[cl][o];
          acc *= zv / (1.0f + __expf(-zv));
        }
        sy[cl][o] = acc;
      }
    }
    if (p == P - 1)
#pragma unroll
      for (int j = 0; j < NS; ++j) scarry[cl][j * L + sl] = h[j];
    __syncthreads();
    for (int idx = tid; idx < CH * T; idx += NT) {
      const int c = idx / T, t = idx % T;
      const int64_t gt = t0 + t;
      if (c < nch && gt < l) y[(bi * d + i0 + c) * l + gt] = sy[c][(t / K) * KP + t % K];
    }
  }
  if (last_state && active && p == P - 1)
#pragma unroll
    for (int j = 0; j < NS; ++j) last_state[chan * N + j * L + sl] = h[j];
}

)";

const char* kTiledLaunch = R"(
template <int N>
void launch(const float* u, const float* delta, const float* A, const float* B, const float* C, const float* D,
            const float* z, const float* delta_bias, float* y, float* last_state, int64_t b, int64_t d, int64_t l,
            int64_t g, int bc_layout, int softplus, cudaStream_t stream) {
  const dim3 grid(unsigned((d / g + CH - 1) / CH), unsigned(g), unsigned(b));
  scan_tiled<N><<<grid, CH * P * lanes<N>(), 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state, d, l, g,
                                                         bc_layout, softplus);
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus, cudaStream_t stream) {
  if (b * d == 0 || l == 0) return;
  switch (n) {
    case 4: launch<4>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    case 8: launch<8>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    case 16: launch<16>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, g, bc_layout, delta_softplus, stream); return;
    default:  // larger states would not fit the shared-memory tiles
      if (n <= 256)
        scan_generic<<<unsigned((b * d + 127) / 128), 128, 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state,
                                                                        b, d, l, n, g, bc_layout, delta_softplus);
  }
}
)";

}  // namespace

const TaskTemplates& selective_scan_templates() {
  static const TaskTemplates t = [] {
    TaskTemplates t;
    t.task = "selective_scan";
    t.args = {"u", "delta", "A", "B", "C", "D", "z", "delta_bias", "y", "last_state",
              "b", "d", "l", "n", "g", "bc_layout", "delta_softplus"};
    t.families.push_back(
        {"chunked_lanes", "lane per state, time split in P chunks scanned in parallel, fused epilogue",
         "Each channel's n states sit in n lanes of a warp (the y reduction is a shuffle tree); the time axis is cut "
         "into P chunks: a first pass computes each chunk's state transfer (decay product, end state from zero), the "
         "chunk-start states are combined in shared memory, and a second pass rescans exactly, fusing D, the SiLU gate "
         "and the last state. CH channels per block share B/C through L1.",
         3, 100.0,
         {{"CH", "channels per block", {1, 2, 4, 8}, 2}, {"P", "time chunks per channel", {1, 2, 4, 8, 16}, 8}}});
    t.families.push_back(
        {"tiled_registers", "time tiles staged in shared memory, chunks scanned in parallel, states in registers",
         "A block takes CH channels of one (batch, group) over the whole time axis, in tiles of P chunks of K steps: "
         "u, dt (softplus applied once), z, B and C of a tile are loaded coalesced, one tile ahead into registers, then "
         "into shared memory (B/C shared by the block's channels); a thread holds n/LPS states of one channel chunk in registers, so the exp work has "
         "no dependency on h. Pass 1 gives each chunk's end state from zero and its dt sum (decay = exp(A*sum)), the "
         "chunk-start states follow from the tile carry, pass 2 rescans exactly with y reduced over LPS lanes and D, "
         "gate fused; y is stored coalesced.",
         3, 300.0,
         {{"CH", "channels per block", {2, 4, 8}, 4},
          {"P", "chunks per time tile", {4, 8}, 8},
          {"LPS", "lanes per channel chunk (states split over them)", {2, 4, 8}, 4},
          {"K", "steps per chunk", {8, 16}, 16}}});
    t.sources = {std::string(kChunked) + kGenericScan + kChunkedLaunch, std::string(kTiled) + kGenericScan + kTiledLaunch};
    return t;
  }();
  return t;
}

}  // namespace ksearch::builtin::cuda
