// selective_scan, built-in cuda template family chunked_lanes: lane per state, time split in P chunks scanned in parallel, fused epilogue.
// Knobs: ksearch replaces each #define below with the value it tries (chunked_lanes.toml lists them).
#define CH 2
#define P 8

#include <cuda_runtime.h>
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

#include "scan_generic.cuh"

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
