// selective_scan, built-in cuda template family tiled_registers: time tiles staged in shared memory, chunks scanned in parallel, states in registers.
// Knobs: ksearch replaces each #define below with the value it tries (tiled_registers.toml lists them).
#define CH 4
#define P 8
#define LPS 4
#define K 16

#include <cuda_runtime.h>
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

#include "scan_generic.cuh"

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
