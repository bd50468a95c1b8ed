// task: selective_scan
// A warp per (batch, channel) with the states spread over the lanes (up to two per lane); each step's output is a
// __shfl_xor_sync reduction over the lanes, and lane 0 applies D and the SiLU gate. dt and dt*u are computed once
// per step by lane 0 and broadcast with __shfl_sync. State sizes up to 64.
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>
#include <cstdio>

#define WARP_SIZE 32
#define STATES_PER_LANE 2

template <bool SOFTPLUS, bool VARIABLE_BC>
__global__ void __launch_bounds__(256)
scan_warps(const float* __restrict__ u, const float* __restrict__ delta, const float* __restrict__ A, const float* __restrict__ B,
           const float* __restrict__ C, const float* __restrict__ D, const float* __restrict__ z, const float* __restrict__ delta_bias,
           float* __restrict__ y, float* __restrict__ last_state, int64_t b, int64_t d, int64_t l, int n, int64_t g) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int64_t warp = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / WARP_SIZE;
  if (warp >= b * d) return;
  const int64_t bi = warp / d, ch = warp % d, group = ch / (d / g);
  float a[STATES_PER_LANE], h[STATES_PER_LANE] = {0.f, 0.f};
#pragma unroll
  for (int k = 0; k < STATES_PER_LANE; ++k) {
    const int s = lane + WARP_SIZE * k;
    a[k] = s < n ? A[ch * n + s] : 0.f;
  }
  const float bias = delta_bias ? delta_bias[ch] : 0.f;
  const int64_t row = (bi * d + ch) * l;
  const float* Bp = VARIABLE_BC ? B + (bi * g + group) * n * l : B + ch * n;
  const float* Cp = VARIABLE_BC ? C + (bi * g + group) * n * l : C + ch * n;
  for (int64_t t = 0; t < l; ++t) {
    float dt = 0.f, uv = 0.f;
    if (lane == 0) {
      dt = delta[row + t] + bias;
      if (SOFTPLUS) dt = dt > 20.f ? dt : log1pf(expf(dt));
      uv = u[row + t];
    }
    dt = __shfl_sync(0xffffffffu, dt, 0);
    uv = __shfl_sync(0xffffffffu, uv, 0);
    float partial = 0.f;
#pragma unroll
    for (int k = 0; k < STATES_PER_LANE; ++k) {
      const int s = lane + WARP_SIZE * k;
      if (s < n) {
        const float bs = VARIABLE_BC ? Bp[int64_t(s) * l + t] : Bp[s];
        const float cs = VARIABLE_BC ? Cp[int64_t(s) * l + t] : Cp[s];
        h[k] = expf(dt * a[k]) * h[k] + dt * bs * uv;
        partial += cs * h[k];
      }
    }
#pragma unroll
    for (int off = WARP_SIZE / 2; off > 0; off >>= 1) partial += __shfl_xor_sync(0xffffffffu, partial, off);
    if (lane == 0) {
      float out = partial + (D ? D[ch] * uv : 0.f);
      if (z) {
        const float zv = z[row + t];
        out *= zv / (1.f + expf(-zv));
      }
      y[row + t] = out;
    }
  }
  if (last_state)
#pragma unroll
    for (int k = 0; k < STATES_PER_LANE; ++k) {
      const int s = lane + WARP_SIZE * k;
      if (s < n) last_state[(bi * d + ch) * n + s] = h[k];
    }
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C, const float* D,
                               const float* z, const float* delta_bias, float* y, float* last_state, int64_t b, int64_t d, int64_t l,
                               int64_t n, int64_t g, int32_t bc_layout, int32_t delta_softplus, cudaStream_t stream) {
  if (n > WARP_SIZE * STATES_PER_LANE || b * d == 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = unsigned((b * d * WARP_SIZE + kThreads - 1) / kThreads);
  auto launch = [&](auto kernel) { kernel<<<blocks, kThreads, 0, stream>>>(u, delta, A, B, C, D, z, delta_bias, y, last_state, b, d, l, int(n), g); };
  if (delta_softplus) {
    if (bc_layout) launch(scan_warps<true, true>);
    else launch(scan_warps<true, false>);
  } else {
    if (bc_layout) launch(scan_warps<false, true>);
    else launch(scan_warps<false, false>);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) printf("selective_scan: %s\n", cudaGetErrorString(err));
}
