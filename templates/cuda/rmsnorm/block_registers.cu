// rmsnorm, built-in cuda template family block_registers: row in registers: one read, one write.
// Knobs: ksearch replaces each #define below with the value it tries (block_registers.toml lists them).
#define THREADS 256
#define CHUNKS 8

#include "rms_rows_kernel.cuh"

// One block per row held in registers (CH float4 per thread): one read and one write of memory.
template <int CH>
__global__ void __launch_bounds__(THREADS) rms_rows_in_registers(const float* __restrict__ x, const float* __restrict__ w,
                                                                 float* __restrict__ y, int64_t cols, float eps) {
  const float4* r4 = reinterpret_cast<const float4*>(x + blockIdx.x * cols);
  const float4* w4 = reinterpret_cast<const float4*>(w);
  float4* o4 = reinterpret_cast<float4*>(y + blockIdx.x * cols);
  const int64_t n4 = cols / 4;
  float4 v[CH];
  float s = 0;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int64_t i = threadIdx.x + int64_t(c) * THREADS;
    v[c] = i < n4 ? __ldcs(r4 + i) : make_float4(0, 0, 0, 0);
    s += v[c].x * v[c].x + v[c].y * v[c].y + v[c].z * v[c].z + v[c].w * v[c].w;
  }
  const float inv = rsqrtf(block_sum(s) / float(cols) + eps);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int64_t i = threadIdx.x + int64_t(c) * THREADS;
    if (i < n4) __stcs(o4 + i, scale4(v[c], __ldg(w4 + i), inv));
  }
}

// Launches the CH-chunk kernel if CH <= CHUNKS and the row fits; the smallest fitting CH keeps registers per thread,
// and so occupancy, as high as the row allows.
template <int CH>
bool launch_in_registers(const float* x, const float* w, float* y, int64_t rows, int64_t cols, float eps,
                         cudaStream_t stream) {
  if constexpr (CH > CHUNKS) {
    return false;
  } else {
    if (cols / 4 > int64_t(THREADS) * CH) return false;
    rms_rows_in_registers<CH><<<(unsigned)rows, THREADS, 0, stream>>>(x, w, y, cols, eps);
    return true;
  }
}

// Rows too long for CHUNKS registers, or not a multiple of 4, take the two-pass block kernel.
extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const bool in_registers = cols % 4 == 0 && (launch_in_registers<1>(x, weight, y, rows, cols, eps, stream) ||
                                              launch_in_registers<2>(x, weight, y, rows, cols, eps, stream) ||
                                              launch_in_registers<4>(x, weight, y, rows, cols, eps, stream) ||
                                              launch_in_registers<8>(x, weight, y, rows, cols, eps, stream));
  if (!in_registers) rms_rows<<<(unsigned)rows, THREADS, 0, stream>>>(x, weight, y, cols, eps);
}
