// softmax, built-in cuda template family block_registers: row in registers: one read, one write.
// Knobs: ksearch replaces each #define below with the value it tries (block_registers.toml lists them).
#define THREADS 256
#define CHUNKS 8

#include "block_online_kernel.cuh"

// One block per row held in registers (CH float4 per thread): memory is read once and written once.
template <int CH>
__global__ void __launch_bounds__(THREADS) softmax_rows_in_registers(const float* __restrict__ x, float* __restrict__ y,
                                                                     int64_t cols) {
  const float4* r4 = reinterpret_cast<const float4*>(x + blockIdx.x * cols);
  float4* o4 = reinterpret_cast<float4*>(y + blockIdx.x * cols);
  const int64_t n4 = cols / 4;
  float4 v[CH];
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int64_t i = threadIdx.x + int64_t(c) * THREADS;
    v[c] = i < n4 ? __ldcs(r4 + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
  }
  float mx = -INFINITY, s = 0;
#pragma unroll
  for (int c = 0; c < CH; ++c) mx = fmaxf(mx, fmaxf(fmaxf(v[c].x, v[c].y), fmaxf(v[c].z, v[c].w)));
  if (mx != -INFINITY) {
#pragma unroll
    for (int c = 0; c < CH; ++c) s += __expf(v[c].x - mx) + __expf(v[c].y - mx) + __expf(v[c].z - mx) + __expf(v[c].w - mx);
  }
  float m = mx;
  block_merge(m, s);
  const float inv = 1.0f / s;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    const int64_t i = threadIdx.x + int64_t(c) * THREADS;
    if (i < n4)
      __stcs(o4 + i, make_float4(__expf(v[c].x - m) * inv, __expf(v[c].y - m) * inv, __expf(v[c].z - m) * inv,
                                 __expf(v[c].w - m) * inv));
  }
}

// Launches the CH-chunk kernel if CH <= CHUNKS and the row fits; the smallest fitting CH keeps registers per thread,
// and so occupancy, as high as the row allows.
template <int CH>
bool launch_in_registers(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if constexpr (CH > CHUNKS) {
    return false;
  } else {
    if (cols / 4 > int64_t(THREADS) * CH) return false;
    softmax_rows_in_registers<CH><<<(unsigned)rows, THREADS, 0, stream>>>(x, y, cols);
    return true;
  }
}

// Rows too long for CHUNKS registers, or not a multiple of 4, take the two-pass block kernel.
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const bool in_registers =
      cols % 4 == 0 && (launch_in_registers<1>(x, y, rows, cols, stream) || launch_in_registers<2>(x, y, rows, cols, stream) ||
                        launch_in_registers<4>(x, y, rows, cols, stream) || launch_in_registers<8>(x, y, rows, cols, stream));
  if (!in_registers) softmax_rows<<<(unsigned)rows, THREADS, 0, stream>>>(x, y, cols);
}
