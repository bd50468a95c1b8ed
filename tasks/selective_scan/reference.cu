// Device reference (ksearch runs it for the workloads at or above [reference.cuda].above_flops, after
// checking it against reference.cpp): reference.cpp's loop on the GPU, one thread per (batch, channel),
// sequential over time, everything in double. Covers what reference.cpp covers: B/C fixed (d, n) or per
// batch and group (b, g, n, l), optional D, z, delta_bias and last_state, softplus on or off. The
// states (n per thread) live in a workspace, stored state-major so that a warp's accesses coalesce.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 32;  // small blocks: b * d threads spread over as many SMs as possible

__global__ void selective_scan_reference_kernel(const float* u, const float* delta, const float* A, const float* B,
                                                const float* C, const float* D, const float* z, const float* delta_bias,
                                                float* y, float* last_state, double* state, int64_t b, int64_t d,
                                                int64_t l, int64_t n, int64_t g, int bc_layout, int delta_softplus) {
  const int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;  // over b * d
  if (idx >= b * d) return;
  const int64_t channels = b * d;
  const int64_t bi = idx / d, i = idx % d, group = i / (d / g);
  for (int64_t s = 0; s < n; ++s) state[s * channels + idx] = 0;
  for (int64_t t = 0; t < l; ++t) {
    const int64_t x = idx * l + t;
    double dt = double(delta[x]) + (delta_bias ? double(delta_bias[i]) : 0.0);
    if (delta_softplus) dt = dt > 20 ? dt : log1p(exp(dt));
    double acc = 0;
    for (int64_t s = 0; s < n; ++s) {
      const double Bv = bc_layout == 0 ? B[i * n + s] : B[((bi * g + group) * n + s) * l + t];
      const double Cv = bc_layout == 0 ? C[i * n + s] : C[((bi * g + group) * n + s) * l + t];
      double& h = state[s * channels + idx];
      h = exp(dt * double(A[i * n + s])) * h + dt * Bv * double(u[x]);
      acc += h * Cv;
    }
    if (D) acc += double(D[i]) * double(u[x]);
    if (z) acc *= double(z[x]) / (1.0 + exp(-double(z[x])));
    y[x] = float(acc);
  }
  if (last_state)
    for (int64_t s = 0; s < n; ++s) last_state[idx * n + s] = float(state[s * channels + idx]);
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus, cudaStream_t stream) {
  if (b * d <= 0) return;
  double* state = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&state), size_t(b * d * n) * sizeof(double), stream);
  selective_scan_reference_kernel<<<unsigned((b * d + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      u, delta, A, B, C, D, z, delta_bias, y, last_state, state, b, d, l, n, g, bc_layout, delta_softplus);
  cudaFreeAsync(state, stream);
}
