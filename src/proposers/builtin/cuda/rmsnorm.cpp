// RMSNorm families: a block or a warp per row, float4 accesses, the row in registers or re-read from L2.
#include "proposers/builtin/cuda/common.hpp"

namespace ksearch::builtin::cuda {

namespace {

const char* kCommon = R"(#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

__device__ __forceinline__ float block_sum(float v) {
  __shared__ float partial[32];
  v = warp_sum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < THREADS / 32 ? partial[lane] : 0.0f;
  return warp_sum(v);
}

__device__ __forceinline__ float4 scale4(float4 v, float4 w, float inv) {
  return make_float4(v.x * inv * w.x, v.y * inv * w.y, v.z * inv * w.z, v.w * inv * w.w);
}
)";

const char* kBlockRows = R"(
// One block per row: sum of squares with float4 loads, then a write pass that re-reads the row (from L2).
__global__ void __launch_bounds__(THREADS) rms_rows(const float* __restrict__ x, const float* __restrict__ w,
                                                    float* __restrict__ y, int64_t cols, float eps) {
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) s += row[i] * row[i];
  }
  const float inv = rsqrtf(block_sum(s) / float(cols) + eps);
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) __stcs(o4 + i, scale4(__ldg(r4 + i), __ldg(w4 + i), inv));
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) out[i] = row[i] * inv * w[i];
  }
}

)";

const char* kBlockRowsEntry = R"(
extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  if (rows > 0 && cols > 0) rms_rows<<<(unsigned)rows, THREADS, 0, stream>>>(x, weight, y, cols, eps);
}
)";

const char* kBlockRegisters = R"(
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
)";

}  // namespace

const TaskTemplates& rmsnorm_templates() {
  static const TaskTemplates t = [] {
    TaskTemplates t;
    t.task = "rmsnorm";
    t.args = {"x", "weight", "y", "rows", "cols", "eps"};
    Knob threads{"THREADS", "threads per block", {128, 256, 512, 1024}, 256};
    t.families.push_back({"block_rows", "one block per row, float4, second pass from L2",
                          "Sum of squares with float4 loads and a shuffle reduction, then the scaled write re-reads "
                          "the row, mostly from L2.",
                          1, 10.0, {threads}});
    t.families.push_back({"block_registers", "row in registers: one read, one write",
                          "The row stays in registers (up to CHUNKS float4 per thread, the fewest that hold it): HBM sees each "
                          "byte once. Longer rows take the two-pass float4 kernel.", 2, 12.0,
                          {threads, {"CHUNKS", "most float4 registers per thread", {1, 2, 4, 8}, 8}}});
    t.sources = {std::string(kCommon) + kBlockRows + kBlockRowsEntry, std::string(kCommon) + kBlockRows + kBlockRegisters};
    return t;
  }();
  return t;
}

}  // namespace ksearch::builtin::cuda
