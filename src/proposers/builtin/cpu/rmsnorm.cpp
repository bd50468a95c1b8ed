// rmsnorm families: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight, rows independent.
#include "core/error.hpp"
#include "proposers/builtin/cpu/common.hpp"

namespace ksearch::builtin::cpu {
namespace {

std::string render_simd_rows() {
  return R"CPP(
extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for if (THREADS) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict xr = x + r * cols;
    float* __restrict yr = y + r * cols;
    float sum_sq = 0;
#pragma omp simd reduction(+ : sum_sq)
    for (int64_t c = 0; c < cols; ++c) sum_sq += xr[c] * xr[c];
    const float inv = 1.0f / std::sqrt(sum_sq / float(cols) + eps);
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv * weight[c];
  }
}
)CPP";
}

std::string render_fused_rows() {
  return R"CPP(
// Sum of squares with UNROLL independent accumulators (the row then sits in L1/L2), then one scaling
// pass; weight stays cache-resident across rows.
inline void rmsnorm_row(const float* __restrict xr, const float* __restrict w, float* __restrict yr, int64_t cols,
                        float eps) {
  vf acc[UNROLL];
  for (int u = 0; u < UNROLL; ++u) acc[u] = v_set1(0.0f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf xv = v_load(xr + c + u * VW);
      acc[u] = v_fma(xv, xv, acc[u]);
    }
  for (; c + VW <= cols; c += VW) {
    const vf xv = v_load(xr + c);
    acc[0] = v_fma(xv, xv, acc[0]);
  }
  for (int w2 = UNROLL / 2; w2 > 0; w2 /= 2)
    for (int u = 0; u < w2; ++u) acc[u] = v_add(acc[u], acc[u + w2]);
  float sum_sq = v_hsum(acc[0]);
  for (; c < cols; ++c) sum_sq += xr[c] * xr[c];
  const float inv = 1.0f / std::sqrt(sum_sq / float(cols) + eps);
  const vf iv = v_set1(inv);

  c = 0;
  if constexpr (STREAM_STORES) {
    // Non-temporal stores skip reading y into the cache first; they need aligned addresses.
    for (; c < cols && (reinterpret_cast<uintptr_t>(yr + c) % (VW * sizeof(float))) != 0; ++c)
      yr[c] = xr[c] * inv * w[c];
  }
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_mul(v_mul(v_load(xr + c + u * VW), iv), v_load(w + c + u * VW));
      if constexpr (STREAM_STORES) v_stream(yr + c + u * VW, e); else v_store(yr + c + u * VW, e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_mul(v_mul(v_load(xr + c), iv), v_load(w + c));
    if constexpr (STREAM_STORES) v_stream(yr + c, e); else v_store(yr + c, e);
  }
  for (; c < cols; ++c) yr[c] = xr[c] * inv * w[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel if (THREADS)
  {
    if constexpr (ROWS_PER_CHUNK == 0) {
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) rmsnorm_row(x + r * cols, weight, y + r * cols, cols, eps);
    } else {
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
      for (int64_t r = 0; r < rows; ++r) rmsnorm_row(x + r * cols, weight, y + r * cols, cols, eps);
    }
    v_sfence();
  }
}
)CPP";
}

std::string render(const std::string& family, const KnobValues&) {
  if (family == "simd_rows") return render_simd_rows();
  if (family == "fused_rows") return render_fused_rows();
  throw Error("unknown rmsnorm family " + family);
}

}  // namespace

const TaskTemplates& rmsnorm_templates() {
  static const TaskTemplates t{
      "rmsnorm",
      {"x", "weight", "y", "rows", "cols", "eps"},
      {
          {"simd_rows",
           "Row-parallel two-pass RMSNorm, compiler-vectorized",
           "OpenMP over rows and `omp simd` on the sum-of-squares reduction and the scaling pass: the reduction "
           "becomes vector partial sums and the scale is a single multiply-multiply per element. The row is read "
           "from memory once; the second read hits the cache.",
           1,
           2.5,
           {threads_knob()}},
          {"fused_rows",
           "RMSNorm with SIMD intrinsics, independent accumulators and optional streaming stores",
           "The sum of squares runs UNROLL independent FMA accumulators so the loop is load-bound, not "
           "latency-bound; the scaling pass reads the row from cache and the weight from L1. Non-temporal stores "
           "avoid the read-for-ownership of y, cutting memory traffic from three to two row transfers.",
           2,
           4.5,
           {vector_bits_knob(),
            {"unroll", "vectors per loop iteration (independent accumulators)", {1, 2, 4, 8}, 4},
            threads_knob(),
            {"stream_stores", "1 = non-temporal (streaming) stores of y, 0 = ordinary stores", {1, 0}, 1},
            {"rows_per_chunk", "OpenMP scheduling: 0 = static equal blocks of rows, else dynamic chunks of this many rows",
             {0, 1, 4, 16}, 0}}},
      },
      render};
  return t;
}

}  // namespace ksearch::builtin::cpu
