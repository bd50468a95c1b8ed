// Softmax families: one pass of online (max, sum) then a write pass, per block or per warp, or
// with the row held in registers so it is read from memory once.
#include "proposers/builtin/cuda/common.hpp"

namespace ksearch::builtin::cuda {

namespace {

const char* kCommon = R"(#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

// Merges another (max, sum of exp(x - max)) pair into (m, s).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  if (m2 == -INFINITY) return;
  if (m == -INFINITY) { m = m2; s = s2; return; }
  const float mn = fmaxf(m, m2);
  s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
  m = mn;
}

__device__ __forceinline__ void add(float& m, float& s, float v) {
  if (v > m) { s *= __expf(m - v); m = v; }
  s += __expf(v - m);
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, off), s2 = __shfl_xor_sync(0xffffffffu, s, off);
    merge(m, s, m2, s2);
  }
}

// Block-wide (max, sum) for THREADS threads; every thread gets the result.
__device__ __forceinline__ void block_merge(float& m, float& s) {
  __shared__ float sm[32], ss[32];
  warp_merge(m, s);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { sm[warp] = m; ss[warp] = s; }
  __syncthreads();
  m = lane < THREADS / 32 ? sm[lane] : -INFINITY;
  s = lane < THREADS / 32 ? ss[lane] : 0.0f;
  warp_merge(m, s);
}
)";

const char* kBlockOnline = R"(
// One block per row: online (max, sum) over float4 loads, then a second pass (mostly from L2) that writes.
__global__ void __launch_bounds__(THREADS) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY, s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      add(m, s, v.x); add(m, s, v.y); add(m, s, v.z); add(m, s, v.w);
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) add(m, s, __ldg(row + i));
  }
  block_merge(m, s);
  const float inv = 1.0f / s;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      __stcs(o4 + i, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv));
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) out[i] = __expf(__ldg(row + i) - m) * inv;
  }
}

)";

const char* kBlockOnlineEntry = R"(
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0 && cols > 0) softmax_rows<<<(unsigned)rows, THREADS, 0, stream>>>(x, y, cols);
}
)";

const char* kWarpOnline = R"(
// One warp per row, ROWS_PER_BLOCK rows per block: no block barriers, best for short rows.
__global__ void __launch_bounds__(THREADS) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int64_t r = blockIdx.x * int64_t(THREADS / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  const int lane = threadIdx.x % 32;
  const float* row = x + r * cols;
  float* out = y + r * cols;
  float m = -INFINITY, s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = lane; i < cols / 4; i += 32) {
      const float4 v = __ldg(r4 + i);
      add(m, s, v.x); add(m, s, v.y); add(m, s, v.z); add(m, s, v.w);
    }
  } else {
    for (int64_t i = lane; i < cols; i += 32) add(m, s, __ldg(row + i));
  }
  warp_merge(m, s);
  const float inv = 1.0f / s;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = lane; i < cols / 4; i += 32) {
      const float4 v = __ldg(r4 + i);
      __stcs(o4 + i, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv));
    }
  } else {
    for (int64_t i = lane; i < cols; i += 32) out[i] = __expf(__ldg(row + i) - m) * inv;
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int64_t per_block = THREADS / 32;
  if (rows > 0 && cols > 0) softmax_rows<<<unsigned((rows + per_block - 1) / per_block), THREADS, 0, stream>>>(x, y, rows, cols);
}
)";

const char* kBlockRegisters = R"(
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
)";

}  // namespace

const TaskTemplates& softmax_templates() {
  static const TaskTemplates t = [] {
    TaskTemplates t;
    t.task = "softmax";
    t.args = {"x", "y", "rows", "cols"};
    Knob threads{"THREADS", "threads per block", {128, 256, 512, 1024}, 256};
    t.families.push_back({"block_online", "one block per row, online max/sum, float4 loads",
                          "A block reduces (max, sum of exp) in one pass with float4 loads and warp shuffles, then "
                          "writes exp(x - max) / sum in a second pass that mostly hits L2.",
                          1, 20.0, {threads}});
    t.families.push_back({"warp_online", "one warp per row, online max/sum, no block barriers",
                          "Each warp owns a row: online (max, sum) with shuffles only; suits short rows and many of them.",
                          1, 15.0, {{"THREADS", "threads per block (THREADS / 32 rows)", {128, 256, 512}, 256}}});
    t.families.push_back({"block_registers", "row in registers: one read, one write",
                          "The block keeps its row in registers (up to CHUNKS float4 per thread, the fewest that hold the row) so "
                          "memory is read once; reductions by shuffles and one shared-memory step. Longer rows take "
                          "the two-pass float4 kernel.",
                          2, 25.0, {threads, {"CHUNKS", "most float4 registers per thread", {1, 2, 4, 8}, 8}}});
    t.sources = {std::string(kCommon) + kBlockOnline + kBlockOnlineEntry, std::string(kCommon) + kWarpOnline,
                 std::string(kCommon) + kBlockOnline + kBlockRegisters};
    return t;
  }();
  return t;
}

}  // namespace ksearch::builtin::cuda
