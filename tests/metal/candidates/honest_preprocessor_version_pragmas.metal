// Honest (must pass): preprocessor and compiler idioms of Metal code: a branch on __METAL_VERSION__, object-like
// and function-like macros (one spread over lines by continuations) and #undef, #pragma clang loop and #pragma
// unroll lines, static_assert with a message, exp2 scaled by log2(e) from a constexpr constant, as_type to test a
// float's sign bit, a fixed-size register array filled by an unrolled loop.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
#if __METAL_VERSION__ >= 300
#define EXP2 metal::exp2
#else
#define EXP2 exp2
#endif
#define LANES 32
#define CHUNK 4
#define STRIDED_FOR(var, first, bound) \
  for (int var = (first); var < (bound); \
       var += LANES)
static_assert(CHUNK % 2 == 0, "CHUNK must be even");
constexpr constant float kLog2e = 1.4426950408889634f;

METAL_FUNC bool negative(float v) { return (as_type<uint>(v) >> 31) != 0u; }
// --- body ---
const uint row = threadgroup_position_in_grid.x;
const uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float maxima[CHUNK];
#pragma clang loop unroll(full)
for (int k = 0; k < CHUNK; ++k) maxima[k] = -INFINITY;
STRIDED_FOR(c, lane, cols) maxima[(c / LANES) % CHUNK] = metal::max(maxima[(c / LANES) % CHUNK], xr[c]);
float m = -INFINITY;
#pragma unroll
for (int k = 0; k < CHUNK; ++k) m = metal::max(m, maxima[k]);
m = simd_max(m);
const float scaled_max = m * kLog2e;
float s = 0.0f;
STRIDED_FOR(c, lane, cols) s += EXP2(xr[c] * kLog2e - scaled_max);
s = simd_sum(s);
const float inv = negative(s) ? 0.0f : 1.0f / s;
STRIDED_FOR(c, lane, cols) yr[c] = EXP2(xr[c] * kLog2e - scaled_max) * inv;
#undef STRIDED_FOR
