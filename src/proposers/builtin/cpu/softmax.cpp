// softmax families: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), rows independent.
#include "core/error.hpp"
#include "proposers/builtin/cpu/common.hpp"

namespace ksearch::builtin::cpu {
namespace {

Knob unroll_knob() {
  return {"unroll", "vectors per loop iteration (independent accumulators hide FMA/exp latency)", {1, 2, 4, 8}, 4};
}
Knob rows_per_chunk_knob() {
  return {"rows_per_chunk", "OpenMP scheduling: 0 = static equal blocks of rows, else dynamic chunks of this many rows",
          {0, 1, 4, 16}, 0};
}

// The row loop: one parallel region, so a thread's streaming stores can be fenced before it ends.
constexpr const char* kRowLoop = R"CPP(
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel if (THREADS)
  {
    if constexpr (ROWS_PER_CHUNK == 0) {
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
    } else {
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
      for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
    }
    v_sfence();
  }
}
)CPP";

std::string render_simd_rows() {
  return R"CPP(
inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  float m = -3.0e38f;
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < cols; ++c) {
    const float e = s_exp<EXP_DEGREE>(xr[c] - m);
    yr[c] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for if (THREADS) schedule(static)
  for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
}
)CPP";
}

std::string render_online_fused() {
  return std::string(R"CPP(
// Pass 1 reads the row once, keeping a running max and a sum rescaled whenever the max grows (once
// per block of UNROLL vectors). Pass 2 re-reads the row (now in L1/L2) and writes the result.
inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  vf m = v_set1(-3.0e38f), s = v_set1(0.0f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW) {
    vf xs[UNROLL];
    for (int u = 0; u < UNROLL; ++u) xs[u] = v_load(xr + c + u * VW);
    vf bm = xs[0];
    for (int u = 1; u < UNROLL; ++u) bm = v_max(bm, xs[u]);
    const vf mn = v_max(m, bm);
    vf parts[UNROLL];
    for (int u = 0; u < UNROLL; ++u) parts[u] = v_exp<EXP_DEGREE>(v_sub(xs[u], mn));
    for (int w = UNROLL / 2; w > 0; w /= 2)
      for (int u = 0; u < w; ++u) parts[u] = v_add(parts[u], parts[u + w]);
    s = v_fma(s, v_exp<EXP_DEGREE>(v_sub(m, mn)), parts[0]);
    m = mn;
  }
  for (; c + VW <= cols; c += VW) {
    const vf xv = v_load(xr + c);
    const vf mn = v_max(m, xv);
    s = v_fma(s, v_exp<EXP_DEGREE>(v_sub(m, mn)), v_exp<EXP_DEGREE>(v_sub(xv, mn)));
    m = mn;
  }
  float ms = -3.0e38f, ss = 0.0f;
  for (int64_t t = c; t < cols; ++t) {
    const float mn = xr[t] > ms ? xr[t] : ms;
    ss = ss * s_exp<EXP_DEGREE>(ms - mn) + s_exp<EXP_DEGREE>(xr[t] - mn);
    ms = mn;
  }
  const float mx = std::max(v_hmax(m), ms);
  const float sum = v_hsum(v_mul(s, v_exp<EXP_DEGREE>(v_sub(m, v_set1(mx))))) + ss * s_exp<EXP_DEGREE>(ms - mx);
  const float inv = 1.0f / sum;
  const vf mv = v_set1(mx), iv = v_set1(inv);

  c = 0;
  if constexpr (STREAM_STORES) {
    // Non-temporal stores skip reading y into the cache first; they need aligned addresses.
    for (; c < cols && (reinterpret_cast<uintptr_t>(yr + c) % (VW * sizeof(float))) != 0; ++c)
      yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx) * inv;
  }
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_mul(v_exp<EXP_DEGREE>(v_sub(v_load(xr + c + u * VW), mv)), iv);
      if constexpr (STREAM_STORES) v_stream(yr + c + u * VW, e); else v_store(yr + c + u * VW, e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_mul(v_exp<EXP_DEGREE>(v_sub(v_load(xr + c), mv)), iv);
    if constexpr (STREAM_STORES) v_stream(yr + c, e); else v_store(yr + c, e);
  }
  for (; c < cols; ++c) yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx) * inv;
}
)CPP") + kRowLoop;
}

std::string render_exp_cached() {
  return std::string(R"CPP(
// Three passes over a row that stays in L1/L2 after the first: max, exp stored into y with the sum,
// scale. One exp per element (the online form needs about two).
inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  vf ms[UNROLL];
  for (int u = 0; u < UNROLL; ++u) ms[u] = v_set1(-3.0e38f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) ms[u] = v_max(ms[u], v_load(xr + c + u * VW));
  for (; c + VW <= cols; c += VW) ms[0] = v_max(ms[0], v_load(xr + c));
  for (int u = 1; u < UNROLL; ++u) ms[0] = v_max(ms[0], ms[u]);
  float mx = v_hmax(ms[0]);
  for (; c < cols; ++c) mx = xr[c] > mx ? xr[c] : mx;

  const vf mv = v_set1(mx);
  vf ss[UNROLL];
  for (int u = 0; u < UNROLL; ++u) ss[u] = v_set1(0.0f);
  c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_exp<EXP_DEGREE>(v_sub(v_load(xr + c + u * VW), mv));
      v_store(yr + c + u * VW, e);
      ss[u] = v_add(ss[u], e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_exp<EXP_DEGREE>(v_sub(v_load(xr + c), mv));
    v_store(yr + c, e);
    ss[0] = v_add(ss[0], e);
  }
  for (int u = 1; u < UNROLL; ++u) ss[0] = v_add(ss[0], ss[u]);
  float sum = v_hsum(ss[0]);
  for (; c < cols; ++c) {
    yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx);
    sum += yr[c];
  }

  const float inv = 1.0f / sum;
  const vf iv = v_set1(inv);
  c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) v_store(yr + c + u * VW, v_mul(v_load(yr + c + u * VW), iv));
  for (; c + VW <= cols; c += VW) v_store(yr + c, v_mul(v_load(yr + c), iv));
  for (; c < cols; ++c) yr[c] *= inv;
}
)CPP") + kRowLoop;
}

std::string render(const std::string& family, const KnobValues&) {
  if (family == "simd_rows") return render_simd_rows();
  if (family == "online_fused") return render_online_fused();
  if (family == "exp_cached") return render_exp_cached();
  throw Error("unknown softmax family " + family);
}

}  // namespace

const TaskTemplates& softmax_templates() {
  static const TaskTemplates t{
      "softmax",
      {"x", "y", "rows", "cols"},
      {
          {"simd_rows",
           "Row-parallel three-pass softmax, compiler-vectorized with a polynomial exp",
           "The naive three passes (max, exp+sum, scale) with OpenMP over rows and `omp simd` on each pass. The "
           "libm exp call blocks vectorization, so exp is an inline range-reduced polynomial; exp values are stored "
           "into y once and rescaled, so each element needs a single exp.",
           1,
           12.0,
           {threads_knob(), exp_degree_knob()}},
          {"online_fused",
           "Single read pass with online max+sum, then a normalize pass, SIMD intrinsics",
           "One pass keeps a per-lane running max and a sum that is rescaled by exp(old_max - new_max) once per "
           "block of vectors, so x is read from memory once; the second pass reads the row from cache and writes "
           "exp(x - max) / sum, optionally with non-temporal stores that avoid reading y into the cache. AVX-512 "
           "or AVX2 intrinsics with unrolled independent vectors.",
           3,
           14.0,
           {vector_bits_knob(), unroll_knob(), threads_knob(), exp_degree_knob(),
            {"stream_stores", "1 = non-temporal (streaming) stores of y, 0 = ordinary stores", {1, 0}, 1},
            rows_per_chunk_knob()}},
          {"exp_cached",
           "Max pass, exp pass storing into y, in-cache scale pass, SIMD intrinsics",
           "Trades a third pass over a cache-resident row for half the exp work of the online form: the max pass "
           "uses several independent max accumulators, the second pass stores exp(x - max) into y while summing, "
           "and the third scales y by 1/sum while it is still in L1/L2. Best when exp throughput, not memory, "
           "limits the online kernel.",
           2,
           17.0,
           {vector_bits_knob(), unroll_knob(), threads_knob(), exp_degree_knob(), rows_per_chunk_knob()}},
      },
      render};
  return t;
}

}  // namespace ksearch::builtin::cpu
