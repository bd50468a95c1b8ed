// Metal helpers the translator adds to a candidate's header when its mappings need them
// (mappings.toml, `helpers`). Each starts at a line `// helper: NAME` and runs to the next one.
// helper: ks_ballot
// __ballot_sync: the lanes' predicates as a 32-bit mask (SIMD groups are 32 wide).
inline uint ks_ballot(bool predicate) {
  return uint(static_cast<simd_vote::vote_t>(simd_ballot(predicate)));
}
// helper: ks_activemask
inline uint ks_activemask() {
  return uint(static_cast<simd_vote::vote_t>(simd_active_threads_mask()));
}
// helper: ks_match
// __match_any_sync(mask, v): the lanes whose value has this lane's bits (as CUDA compares them), among the lanes of
// mask that are active (an inactive lane's shuffled value is undefined in Metal); 32 shuffles, one per lane.
// __match_all_sync(mask, v, &pred): mask where every such lane holds the same value (pred 1), else 0 (pred 0).
inline uint ks_match_bits(uint bits, uint mask) {
  uint same = 0;
  for (ushort l = 0; l < 32; ++l) same |= uint(simd_shuffle(bits, l) == bits) << l;
  return same & mask & ks_activemask();
}
inline uint ks_match_bits(ulong bits, uint mask) {
  return ks_match_bits(uint(bits), mask) & ks_match_bits(uint(bits >> 32), mask);
}
inline uint ks_match_any(uint mask, int v) { return ks_match_bits(as_type<uint>(v), mask); }
inline uint ks_match_any(uint mask, uint v) { return ks_match_bits(v, mask); }
inline uint ks_match_any(uint mask, float v) { return ks_match_bits(as_type<uint>(v), mask); }
inline uint ks_match_any(uint mask, long v) { return ks_match_bits(as_type<ulong>(v), mask); }
inline uint ks_match_any(uint mask, ulong v) { return ks_match_bits(v, mask); }
template <typename T, typename P> inline uint ks_match_all(uint mask, T v, P pred) {
  const bool all = ks_match_any(mask, v) == (mask & ks_activemask());
  *pred = all ? 1 : 0;
  return all ? mask : 0u;
}
// helper: ks_ffs
// __ffs: 1 + the index of the least significant set bit, 0 for 0.
template <typename T> inline int ks_ffs(T x) {
  return x == 0 ? 0 : int(ctz(x)) + 1;
}
// helper: ks_cbrt
inline float ks_cbrt(float x) {
  return copysign(pow(fabs(x), 1.0f / 3.0f), x);
}
// helper: ks_constexpr_bits
// The compiler's bit counts in a constexpr function, whose result a template argument or an array size may need:
// Metal's clz, ctz and popcount are not constant expressions. (Bits counted one at a time: for constants.)
constexpr int ks_constexpr_clz(ulong x, int bits) {
  int n = 0;
  for (int b = bits - 1; b >= 0 && !((x >> b) & 1ul); --b) ++n;
  return n;
}
constexpr int ks_constexpr_ctz(ulong x, int bits) {
  int n = 0;
  for (int b = 0; b < bits && !((x >> b) & 1ul); ++b) ++n;
  return n;
}
constexpr int ks_constexpr_popcount(ulong x) {
  int n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}
// helper: ks_atomic_cas
// atomicCAS returns the old value; Metal has only the weak exchange, so retry its spurious failures.
// A is `device atomic<T>*` or `threadgroup atomic<T>*`.
template <typename A, typename T> inline T ks_atomic_cas(A p, T compare, T value) {
  T expected = compare;
  while (!atomic_compare_exchange_weak_explicit(p, &expected, value, memory_order_relaxed, memory_order_relaxed) &&
         expected == compare) {
  }
  return expected;
}
// helper: ks_atomic_compare_exchange
// cuda::atomic_ref's compare_exchange_strong (and _weak, which may not fail where the values match): Metal has only the
// weak exchange, so its spurious failures are retried; on a real mismatch `expected` holds the value found.
template <typename A, typename T> inline bool ks_atomic_compare_exchange(A p, thread T* expected, T desired) {
  const T wanted = *expected;
  while (!atomic_compare_exchange_weak_explicit(p, expected, desired, memory_order_relaxed, memory_order_relaxed)) {
    if (*expected != wanted) return false;
  }
  return true;
}
// helper: ks_atomic_op_fetch
// cuda::atomic_ref's compound assignments and prefix increments return the new value; Metal's atomic functions return
// the old one.
template <typename A, typename T> inline T ks_atomic_add_fetch(A p, T v) { return atomic_fetch_add_explicit(p, v, memory_order_relaxed) + v; }
template <typename A, typename T> inline T ks_atomic_sub_fetch(A p, T v) { return atomic_fetch_sub_explicit(p, v, memory_order_relaxed) - v; }
template <typename A, typename T> inline T ks_atomic_and_fetch(A p, T v) { return atomic_fetch_and_explicit(p, v, memory_order_relaxed) & v; }
template <typename A, typename T> inline T ks_atomic_or_fetch(A p, T v) { return atomic_fetch_or_explicit(p, v, memory_order_relaxed) | v; }
template <typename A, typename T> inline T ks_atomic_xor_fetch(A p, T v) { return atomic_fetch_xor_explicit(p, v, memory_order_relaxed) ^ v; }
// cuda::atomic_ref's assignment stores the value and returns it.
template <typename A, typename T> inline T ks_atomic_assign(A p, T v) {
  atomic_store_explicit(p, v, memory_order_relaxed);
  return v;
}
// helper: ks_shfl_segments
// CUDA's shuffles with a width below 32: the SIMD group's lanes in segments of `width` (a power of
// two); a lane reads within its segment (shfl: srcLane modulo width), and gets its own value where
// CUDA's source lane would leave the segment (up: below it, down and xor: past its end). Every lane
// shuffles, as simd_shuffle requires; `lane` is the lane in the SIMD group.
template <typename T> inline T ks_shfl_idx(T v, int src, int width, uint lane) {
  return simd_shuffle(v, ushort((lane & ~uint(width - 1)) | (uint(src) & uint(width - 1))));
}
template <typename T> inline T ks_shfl_up(T v, uint delta, int width, uint lane) {
  const T up = simd_shuffle_up(v, ushort(delta));
  return (lane & uint(width - 1)) >= delta ? up : v;
}
template <typename T> inline T ks_shfl_down(T v, uint delta, int width, uint lane) {
  const T down = simd_shuffle_down(v, ushort(delta));
  return (lane & uint(width - 1)) + delta < uint(width) ? down : v;
}
template <typename T> inline T ks_shfl_xor(T v, uint mask, int width, uint lane) {
  const T other = simd_shuffle_xor(v, ushort(mask));
  return (lane ^ mask) <= (lane | uint(width - 1)) ? other : v;
}
// helper: ks_tile_ballot
// thread_block_tile<W>::ballot: the predicates of the lane's segment of W lanes, bit i for its lane i.
inline uint ks_tile_ballot(bool predicate, uint width, uint lane) {
  return (ks_ballot(predicate) >> (lane & ~(width - 1))) & (0xffffffffu >> (32 - width));
}
// helper: ks_tile_reduce
// cg::reduce over a tile of W lanes (a power of two): a butterfly within the segment, whose every lane
// gets the result as in CUDA.
template <typename T> inline T ks_tile_sum(T v, uint width) {
  for (uint o = width / 2; o > 0; o /= 2) v += simd_shuffle_xor(v, ushort(o));
  return v;
}
template <typename T> inline T ks_tile_min(T v, uint width) {
  for (uint o = width / 2; o > 0; o /= 2) v = min(v, simd_shuffle_xor(v, ushort(o)));
  return v;
}
template <typename T> inline T ks_tile_max(T v, uint width) {
  for (uint o = width / 2; o > 0; o /= 2) v = max(v, simd_shuffle_xor(v, ushort(o)));
  return v;
}
template <typename T, typename Op> inline T ks_tile_reduce_op(T v, Op op, uint width) {
  for (uint o = width / 2; o > 0; o /= 2) v = op(v, simd_shuffle_xor(v, ushort(o)));
  return v;
}
// helper: ks_integral_constant
// std::integral_constant and its bool forms, written by the port rather than taken from Metal's library.
template <typename T, T v> struct ks_integral_constant {
  typedef T value_type;
  static constexpr constant T value = v;
  constexpr operator T() const { return v; }
  constexpr T operator()() const { return v; }
};
template <bool B> using ks_bool_constant = ks_integral_constant<bool, B>;
typedef ks_integral_constant<bool, true> ks_true_type;
typedef ks_integral_constant<bool, false> ks_false_type;
// helper: ks_tile_scan
// cg::inclusive_scan and exclusive_scan over a tile of W lanes (a power of two) with any operation: Hillis and
// Steele's scan by shuffles up within the segment, `lane` the thread's rank in its tile. An exclusive scan's first
// lane gets T{}, as simd_prefix_exclusive_sum's does (CUDA's value there is 0 for cg::plus).
struct ks_scan_plus { template <typename T> T operator()(T a, T b) const { return a + b; } };
struct ks_scan_min { template <typename T> T operator()(T a, T b) const { return min(a, b); } };
struct ks_scan_max { template <typename T> T operator()(T a, T b) const { return max(a, b); } };
template <typename T, typename Op> inline T ks_tile_inclusive_scan(T v, Op op, uint width, uint lane) {
  for (uint o = 1; o < width; o *= 2) {
    const T before = simd_shuffle_up(v, ushort(o));
    if (lane >= o) v = op(before, v);
  }
  return v;
}
template <typename T, typename Op> inline T ks_tile_exclusive_scan(T v, Op op, uint width, uint lane) {
  const T before = simd_shuffle_up(ks_tile_inclusive_scan(v, op, width, lane), ushort(1));
  return lane == 0 ? T{} : before;
}
// helper: ks_invoke_one
// cg::invoke_one and invoke_one_broadcast on a tile: the tile's first lane (`leader`) calls f, and the broadcast's
// value comes from that lane (`source`, its lane in the SIMD group).
template <typename F, typename... A> inline void ks_invoke_one(bool leader, F f, A... a) {
  if (leader) f(a...);
}
template <typename F, typename... A> inline auto ks_invoke_one_broadcast(bool leader, ushort source, F f, A... a) -> decltype(f(a...)) {
  decltype(f(a...)) value{};
  if (leader) value = f(a...);
  return simd_shuffle(value, source);
}
// helper: ks_erf
// erff, erfcf, normcdff, erfcxf: Metal's standard library has no erf. erfc from the Chebyshev-fitted
// t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2) (fractional error below 1.2e-7 for every z >= 0); erf from
// its Maclaurin series where 1 - erfc would cancel (|x| < 0.5). erfcx(z) = e^(z^2) erfc(z) is t * exp(P(t))
// itself for z >= 0, so it neither overflows nor underflows where erfc does.
inline float ks_erfc_poly(float t) {
  return -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f + t * (-0.18628806f +
         t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
}
inline float ks_erfc(float x) {
  const float z = fabs(x), t = 1.0f / (1.0f + 0.5f * z);
  const float r = t * exp(-z * z + ks_erfc_poly(t));
  return x >= 0.0f ? r : 2.0f - r;
}
inline float ks_erf(float x) {
  if (fabs(x) >= 0.5f) return copysign(1.0f - ks_erfc(fabs(x)), x);
  const float x2 = x * x;  // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
  return 1.12837917f * x * (1.0f + x2 * (-1.0f / 3 + x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216 - x2 / 1320)))));
}
inline float ks_erfcx(float x) {
  const float z = fabs(x), t = 1.0f / (1.0f + 0.5f * z);
  const float scaled = t * exp(ks_erfc_poly(t));
  if (x >= 0.0f) return scaled;
  // 2 e^(x^2) - erfcx(-x), with x^2 = h + l exactly so that e^(x^2) keeps its relative accuracy for large |x|
  const float h = x * x, l = fma(x, x, -h);
  return 2.0f * exp(h) * (1.0f + l) - scaled;
}
// helper: ks_erfinv
// erfinvf, and with ks_erfinv_tail erfcinvf and normcdfinvf: Metal's standard library has none. erfinv by Giles' single-precision approximation
// ("Approximating the erfinv function", 2010), a polynomial in w = -log(1 - x^2) on each side of w = 5 (relative
// error a few 1e-7). erfcinv(y) for y < 1/2, where 1 - y would lose y's digits: Giles' polynomial at w = -log(y (2 - y))
// (the same w, without forming 1 - y), or the tail's asymptote where w passes the fit's range, then Newton's method
// on log erfc (ks_erf's fit, accurate for every z >= 0), so that y down to the smallest floats is inverted.
inline float ks_erfinv_poly(float w) {
  float p;
  if (w < 5.0f) {
    w = w - 2.5f;
    p = 2.81022636e-08f;
    p = fma(p, w, 3.43273939e-07f); p = fma(p, w, -3.5233877e-06f); p = fma(p, w, -4.39150654e-06f);
    p = fma(p, w, 0.00021858087f); p = fma(p, w, -0.00125372503f); p = fma(p, w, -0.00417768164f);
    p = fma(p, w, 0.246640727f); p = fma(p, w, 1.50140941f);
  } else {
    w = sqrt(w) - 3.0f;
    p = -0.000200214257f;
    p = fma(p, w, 0.000100950558f); p = fma(p, w, 0.00134934322f); p = fma(p, w, -0.00367342844f);
    p = fma(p, w, 0.00573950773f); p = fma(p, w, -0.0076224613f); p = fma(p, w, 0.00943887047f);
    p = fma(p, w, 1.00167406f); p = fma(p, w, 2.83297682f);
  }
  return p;
}
inline float ks_erfinv(float x) {
  return ks_erfinv_poly(-log((1.0f - x) * (1.0f + x))) * x;
}
// helper: ks_erfinv_tail
inline float ks_erfcinv(float y) {
  if (!(y > 0.0f && y < 2.0f)) return y == 0.0f ? INFINITY : y == 2.0f ? -INFINITY : NAN;
  const bool lower = y > 1.0f;        // erfcinv(y) = -erfcinv(2 - y)
  const float t = lower ? 2.0f - y : y;  // exact (Sterbenz)
  if (t >= 0.5f) return ks_erfinv(1.0f - t) * (lower ? -1.0f : 1.0f);  // 1 - t exact too
  const float w = -log(t * (2.0f - t));
  float z;
  if (w < 16.0f) {
    z = ks_erfinv_poly(w) * (1.0f - t);
  } else {  // erfc(z) ~ e^(-z^2) / (z sqrt(pi))
    z = sqrt(-log(t));
    z = sqrt(-log(t) - log(z * 1.77245385f));
  }
  const float log_t = log(t);
  for (int i = 0; i < 2; ++i) {  // z -= g / g' for g(z) = log erfc(z) - log t, g' = -2 / (sqrt(pi) erfcx(z))
    const float u = 1.0f / (1.0f + 0.5f * z), p = ks_erfc_poly(u);
    z += (log(u) - z * z + p - log_t) * u * exp(p) * 0.886226925f;
  }
  return lower ? -z : z;
}
// helper: ks_bits
// __byte_perm(x, y, s): result byte i is byte (s >> 4i) & 7 of the 8 bytes y:x. __funnelshift_l / _r: the high
// (left) or low (right) word of hi:lo shifted by n (0 to 32; the port reduces or clamps the count as CUDA's forms do).
inline uint ks_byte_perm(uint x, uint y, uint s) {
  const ulong bytes = (ulong(y) << 32) | x;
  uint r = 0;
  for (uint i = 0; i < 4; ++i) r |= uint((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
// __fns(mask, base, offset): the position of the offset-th set bit of mask counted from bit `base` (itself included)
// upwards for a positive offset, downwards for a negative one; for 0, base if its bit is set; 0xFFFFFFFF if none (PTX
// fns.b32).
inline uint ks_fns(uint mask, uint base, int offset) {
  if (offset == 0) return (mask >> base) & 1u ? base : 0xFFFFFFFFu;
  uint remaining = offset > 0 ? uint(offset) - 1u : uint(-(offset + 1));
  for (int pos = int(base); pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
    if ((mask >> uint(pos)) & 1u) {
      if (remaining == 0u) return uint(pos);
      --remaining;
    }
  return 0xFFFFFFFFu;
}
inline uint ks_funnelshift_l(uint lo, uint hi, uint n) { return uint((((ulong(hi) << 32) | lo) << n) >> 32); }
inline uint ks_funnelshift_r(uint lo, uint hi, uint n) { return uint((((ulong(hi) << 32) | lo) >> n)); }
// helper: ks_wmma
// CUDA's warp matrix API (nvcuda::wmma) over Metal's 8x8 SIMD-group matrices: a fragment is its rows/8 x cols/8
// tiles, each lane holding the two elements of each tile that Metal's layout gives it (x[], num_elements, as CUDA's
// fragments hold an unspecified share per lane: element-wise code over x[] stays correct). A lane's elements are row
// (q & 4) + (lane / 2) % 4, columns (q & 2) * 2 + (lane % 2) * 2 + {0, 1}, q = lane / 4 (as MLX's GEMMs read them),
// so loads and stores reach memory of any space directly. mma_sync multiplies the tiles in float. The functions run
// in a whole SIMD group, as CUDA's run in a whole warp.
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
namespace precision {
struct tf32 {};
}
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K> struct ks_shape;
template <int M, int N, int K> struct ks_shape<matrix_a, M, N, K> {
  static constant constexpr int rows = M, cols = K;
};
template <int M, int N, int K> struct ks_shape<matrix_b, M, N, K> {
  static constant constexpr int rows = K, cols = N;
};
template <int M, int N, int K> struct ks_shape<accumulator, M, N, K> {
  static constant constexpr int rows = M, cols = N;
};
template <typename T> struct ks_storage {
  typedef T type;
};
template <> struct ks_storage<precision::tf32> {
  typedef float type;
};
// `fragment` is a Metal keyword (a fragment shader): the port writes the name as `fragment_`.
template <typename Use, int M, int N, int K, typename T, typename Layout = void> struct fragment_ {
  typedef T element_type;
  typedef typename ks_storage<T>::type storage_element_type;
  static constant constexpr int tile_rows = ks_shape<Use, M, N, K>::rows / 8, tile_cols = ks_shape<Use, M, N, K>::cols / 8;
  static constant constexpr int num_elements = 2 * tile_rows * tile_cols;
  static constant constexpr bool column_major = metal::is_same<Layout, col_major>::value;
  storage_element_type x[num_elements];
};
// The lane's first element in a tile: (row, column); the second is the next column.
inline short2 ks_lane_position() {
  const ushort lane = ushort(simd_prefix_exclusive_sum(1u)), q = lane / 4;
  return short2((q & 4) + (lane / 2) % 4, (q & 2) * 2 + (lane % 2) * 2);
}
template <typename F, typename V> inline void fill_fragment(thread F& f, V v) {
  for (int i = 0; i < F::num_elements; ++i) f.x[i] = typename F::storage_element_type(v);
}
template <typename F, typename P> inline void ks_load(thread F& f, P p, uint ldm, bool column_major) {
  const short2 at = ks_lane_position();
  for (int t = 0; t < F::tile_rows * F::tile_cols; ++t)
    for (int e = 0; e < 2; ++e) {
      const uint r = 8 * (t / F::tile_cols) + at.x, c = 8 * (t % F::tile_cols) + at.y + e;
      f.x[2 * t + e] = typename F::storage_element_type(p[column_major ? c * ldm + r : r * ldm + c]);
    }
}
template <typename F, typename P> inline void load_matrix_sync(thread F& f, P p, uint ldm) { ks_load(f, p, ldm, F::column_major); }
template <typename F, typename P> inline void load_matrix_sync(thread F& f, P p, uint ldm, layout_t layout) {
  ks_load(f, p, ldm, layout == mem_col_major);
}
template <typename P, typename F> inline void store_matrix_sync(P p, thread const F& f, uint ldm, layout_t layout) {
  const short2 at = ks_lane_position();
  for (int t = 0; t < F::tile_rows * F::tile_cols; ++t)
    for (int e = 0; e < 2; ++e) {
      const uint r = 8 * (t / F::tile_cols) + at.x, c = 8 * (t % F::tile_cols) + at.y + e;
      p[layout == mem_col_major ? c * ldm + r : r * ldm + c] = f.x[2 * t + e];
    }
}
template <typename F> inline simdgroup_matrix<float, 8, 8> ks_tile(thread const F& f, int t) {
  simdgroup_matrix<float, 8, 8> m;
  m.thread_elements() = vec<float, 2>(float(f.x[2 * t]), float(f.x[2 * t + 1]));
  return m;
}
template <typename D, typename A, typename B, typename C>
inline void mma_sync(thread D& d, thread const A& a, thread const B& b, thread const C& c, bool satf = false) {
  for (int i = 0; i < D::tile_rows; ++i)
    for (int j = 0; j < D::tile_cols; ++j) {
      simdgroup_matrix<float, 8, 8> acc = ks_tile(c, i * C::tile_cols + j);
      for (int k = 0; k < A::tile_cols; ++k) {
        const simdgroup_matrix<float, 8, 8> left = ks_tile(a, i * A::tile_cols + k), right = ks_tile(b, k * B::tile_cols + j);
        simdgroup_multiply_accumulate(acc, left, right, acc);
      }
      const vec<float, 2> e = acc.thread_elements();
      const int t = i * D::tile_cols + j;
      d.x[2 * t] = typename D::storage_element_type(satf ? saturate(e[0]) : e[0]);
      d.x[2 * t + 1] = typename D::storage_element_type(satf ? saturate(e[1]) : e[1]);
    }
}
}  // namespace wmma
}  // namespace nvcuda
namespace wmma = nvcuda::wmma;  // CUDA code writes `using namespace nvcuda;`, which the port leaves out
// helper: ks_log1p
// log1pf: Metal's standard library has none; log(1 + x) scaled by x / ((1 + x) - 1) cancels the
// rounding of 1 + x (Goldberg's method).
inline float ks_log1p(float x) {
  const float u = 1.0f + x;
  return u == 1.0f ? x : log(u) * (x / (u - 1.0f));
}
// helper: ks_expm1
// expm1f: Metal's standard library has none; (e^x - 1) corrected by x / log(e^x) (Kahan's method).
inline float ks_expm1(float x) {
  const float u = exp(x);
  if (u == 1.0f) return x;
  const float um1 = u - 1.0f;
  return um1 == -1.0f ? -1.0f : um1 * (x / log(u));
}
// helper: ks_gamma
// lgammaf, tgammaf: Metal's standard library has neither. Stirling's series for x >= 8 (its first omitted term is
// below 3e-10 there). Below 8, x moved into [1.5, 2.5) by Gamma(x + 1) = x Gamma(x), then lgamma's Taylor series
// about 2 (coefficients from zeta), so that its zeros at 1 and 2 keep their relative accuracy. tgamma from 8 to 36: x
// moved down into [8, 9), where exp(Stirling) is accurate to about 1e-6 (an exp of lgamma would lose 1e-5 at 35).
// Negative x by reflection, Gamma(x) Gamma(1 - x) = pi / sin(pi x), with sinpi exact at the poles.
inline float ks_lgamma_stirling(float x) {  // x >= 8
  const float r = 1.0f / x, r2 = r * r;
  return (x - 0.5f) * log(x) - x + 0.918938533f + r * (1.0f / 12 - r2 * (1.0f / 360 - r2 / 1260));
}
// lgamma(2 + z) = (1 - gamma) z + sum_k>=2 (-1)^k (zeta(k) - 1) z^k / k, for |z| <= 1/2 (error below 3e-10)
inline float ks_lgamma_near_two(float z) {
  float series = -9.439488275e-06f;
  series = fma(series, z, 2.050721278e-05f); series = fma(series, z, -4.492623674e-05f);
  series = fma(series, z, 9.945751278e-05f); series = fma(series, z, -2.231547585e-04f);
  series = fma(series, z, 5.096695247e-04f); series = fma(series, z, -1.192753912e-03f);
  series = fma(series, z, 2.890510331e-03f); series = fma(series, z, -7.385551029e-03f);
  series = fma(series, z, 2.058080843e-02f); series = fma(series, z, -6.735230105e-02f);
  series = fma(series, z, 3.224670334e-01f); series = fma(series, z, 4.227843351e-01f);
  return series * z;
}
// x moved into [1.5, 2.5) by Gamma(x + 1) = x Gamma(x): Gamma(x) = Gamma(moved) * above / below.
inline float ks_gamma_near_two(float x, thread float& below, thread float& above) {
  below = 1.0f, above = 1.0f;
  for (; x < 1.5f; x += 1.0f) below *= x;
  for (; x >= 2.5f; x -= 1.0f) above *= x - 1.0f;
  return x;
}
inline float ks_lgamma_positive(float x) {  // x >= 0 (Metal has no recursion: the reflection calls this)
  if (x >= 8.0f) return ks_lgamma_stirling(x);
  float below, above;
  const float moved = ks_gamma_near_two(x, below, above);
  return ks_lgamma_near_two(moved - 2.0f) + log(above) - log(below);
}
inline float ks_lgamma(float x) {
  if (isinf(x)) return INFINITY;
  return x < 0.0f ? log(M_PI_F / fabs(sinpi(x))) - ks_lgamma_positive(1.0f - x) : ks_lgamma_positive(x);
}
inline float ks_tgamma_positive(float x) {  // x > 0
  if (x >= 35.5f) return INFINITY;
  float below, above = 1.0f;
  if (x >= 8.0f) {
    for (; x >= 9.0f; x -= 1.0f) above *= x - 1.0f;
    return exp(ks_lgamma_stirling(x)) * above;
  }
  const float moved = ks_gamma_near_two(x, below, above);
  return exp(ks_lgamma_near_two(moved - 2.0f)) * above / below;
}
inline float ks_tgamma(float x) {
  if (x == 0.0f) return copysign(INFINITY, x);
  if (x > 0.0f || isnan(x)) return ks_tgamma_positive(x);
  return x == floor(x) ? NAN : M_PI_F / (sinpi(x) * ks_tgamma_positive(1.0f - x));
}
// helper: ks_bessel
// j0f, j1f, y0f, y1f, jnf, ynf, cyl_bessel_i0f, cyl_bessel_i1f: Metal's standard library has no Bessel functions.
// Abramowitz and Stegun's polynomials 9.4.1-9.4.6 (J and Y of orders 0 and 1; absolute error below 1.1e-7, on par
// with CUDA's own bounds) and 9.8.1-9.8.4 (I0, I1; relative error below 2.2e-7). Past x = 3 the phase x - d(3 / x) is
// taken through cos x and sin x rather than by subtracting d from x, which would drop x's low bits. Orders n >= 2:
// Y by the forward recurrence (stable), J by it where |x| > n and else by Miller's backward recurrence normalized by
// J0 + 2 (J2 + J4 + ...) = 1, with the power series near 0.
inline float ks_bessel_poly(float u, float c0, float c1, float c2, float c3, float c4, float c5, float c6) {
  return c0 + u * (c1 + u * (c2 + u * (c3 + u * (c4 + u * (c5 + u * c6)))));
}
// J and Y of order 0 or 1 past x = 3: A cos(x - d) and A sin(x - d), A and d polynomials in 3 / x.
inline float2 ks_bessel_far(float x, int order) {
  const float u = 3.0f / x;
  float f, d;
  if (order == 0) {
    f = ks_bessel_poly(u, 0.79788456f, -0.00000077f, -0.00552740f, -0.00009512f, 0.00137237f, -0.00072805f, 0.00014476f);
    d = ks_bessel_poly(u, 0.78539816f, 0.04166397f, 0.00003954f, -0.00262573f, 0.00054125f, 0.00029333f, -0.00013558f);
  } else {
    f = ks_bessel_poly(u, 0.79788456f, 0.00000156f, 0.01659667f, 0.00017105f, -0.00249511f, 0.00113653f, -0.00020033f);
    d = ks_bessel_poly(u, 2.35619449f, -0.12499612f, -0.00005650f, 0.00637879f, -0.00074348f, -0.00079824f, 0.00029166f);
  }
  const float s = sin(x), c = cos(x), sd = sin(d), cd = cos(d);
  return f / sqrt(x) * float2(c * cd + s * sd, s * cd - c * sd);
}
inline float ks_j0(float x) {
  const float ax = fabs(x);
  if (ax <= 3.0f) {
    const float u = (ax / 3.0f) * (ax / 3.0f);
    return ks_bessel_poly(u, 1.0f, -2.2499997f, 1.2656208f, -0.3163866f, 0.0444479f, -0.0039444f, 0.0002100f);
  }
  return isinf(ax) ? 0.0f : ks_bessel_far(ax, 0).x;
}
inline float ks_j1(float x) {
  const float ax = fabs(x);
  if (ax <= 3.0f) {
    const float u = (ax / 3.0f) * (ax / 3.0f);
    return x * ks_bessel_poly(u, 0.5f, -0.56249985f, 0.21093573f, -0.03954289f, 0.00443319f, -0.00031761f, 0.00001109f);
  }
  return isinf(ax) ? copysign(0.0f, x) : (x < 0.0f ? -1.0f : 1.0f) * ks_bessel_far(ax, 1).x;
}
inline float ks_y0(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -INFINITY : NAN;
  if (x <= 3.0f) {
    const float u = (x / 3.0f) * (x / 3.0f);
    return 0.63661977f * log(0.5f * x) * ks_j0(x) +
           ks_bessel_poly(u, 0.36746691f, 0.60559366f, -0.74350384f, 0.25300117f, -0.04261214f, 0.00427916f, -0.00024846f);
  }
  return isinf(x) ? 0.0f : ks_bessel_far(x, 0).y;
}
inline float ks_y1(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -INFINITY : NAN;
  if (x <= 3.0f) {
    const float u = (x / 3.0f) * (x / 3.0f);
    return 0.63661977f * log(0.5f * x) * ks_j1(x) +
           ks_bessel_poly(u, -0.6366198f, 0.2212091f, 2.1682709f, -1.3164827f, 0.3123951f, -0.0400976f, 0.0027873f) / x;
  }
  return isinf(x) ? 0.0f : ks_bessel_far(x, 1).y;
}
// C_n by the forward recurrence C_(k+1) = 2k / x C_k - C_(k-1) from C_0 and C_1 (n >= 1); it stops at an infinity.
inline float ks_bessel_forward(float c0, float c1, int n, float x) {
  float below = c0, here = c1;
  for (int k = 1; k < n && !isinf(here); ++k) {
    const float above = 2.0f * float(k) / x * here - below;
    below = here;
    here = above;
  }
  return here;
}
inline float ks_jn(int order, float x) {
  // J_-n = (-1)^n J_n and J_n(-x) = (-1)^n J_n(x)
  const int n = abs(order);
  const float sign = (n & 1) && ((order < 0) != (x < 0.0f)) ? -1.0f : 1.0f;
  if (n == 0) return ks_j0(x);
  if (n == 1) return sign * ks_j1(fabs(x));
  const float ax = fabs(x);
  if (isnan(x)) return x;
  if (isinf(ax)) return 0.0f;
  if (ax < 0.01f) {  // (x/2)^n / n! (1 - q / (n + 1) + q^2 / (2 (n + 1) (n + 2))), q = (x/2)^2
    float term = 1.0f;
    for (int k = 1; k <= n; ++k) term *= 0.5f * ax / float(k);
    const float q = 0.25f * ax * ax;
    return sign * term * (1.0f - q / float(n + 1) * (1.0f - q / float(2 * (n + 2))));
  }
  if (ax > float(n)) return sign * ks_bessel_forward(ks_j0(ax), ks_j1(ax), n, ax);
  const int start = 2 * ((n + int(sqrt(40.0f * float(n)))) / 2);
  float above = 0.0f, here = 1.0f, even_sum = 0.0f, result = 0.0f;
  for (int k = start; k > 0; --k) {  // here = J_k (unnormalized) -> J_(k-1)
    const float below = 2.0f * float(k) / ax * here - above;
    above = here;
    here = below;
    if (k - 1 == n) result = here;
    if (k - 1 > 0 && (k - 1) % 2 == 0) even_sum += here;
    if (fabs(here) > 1e10f) {
      here *= 1e-10f, above *= 1e-10f, result *= 1e-10f, even_sum *= 1e-10f;
    }
  }
  return sign * result / (here + 2.0f * even_sum);
}
inline float ks_yn(int order, float x) {
  const int n = abs(order);
  const float sign = (n & 1) && order < 0 ? -1.0f : 1.0f;  // Y_-n = (-1)^n Y_n
  if (n == 0 || !(x > 0.0f) || isinf(x)) return ks_y0(x);  // Y_n(0) = -inf for every n, 0 at infinity
  return sign * ks_bessel_forward(ks_y0(x), ks_y1(x), n, x);
}
inline float ks_i0(float x) {
  const float ax = fabs(x);
  if (ax <= 3.75f) {
    const float u = (ax / 3.75f) * (ax / 3.75f);
    return ks_bessel_poly(u, 1.0f, 3.5156229f, 3.0899424f, 1.2067492f, 0.2659732f, 0.0360768f, 0.0045813f);
  }
  const float u = 3.75f / ax, half_growth = exp(0.5f * ax);  // e^x in two halves: I0 overflows after e^x does
  const float p = 0.39894228f + u * (0.01328592f + u * (0.00225319f + u * (-0.00157565f + u * (0.00916281f +
                  u * (-0.02057706f + u * (0.02635537f + u * (-0.01647633f + u * 0.00392377f)))))));
  return p / sqrt(ax) * half_growth * half_growth;
}
inline float ks_i1(float x) {
  const float ax = fabs(x);
  if (ax <= 3.75f) {
    const float u = (ax / 3.75f) * (ax / 3.75f);
    return x * ks_bessel_poly(u, 0.5f, 0.87890594f, 0.51498869f, 0.15084934f, 0.02658733f, 0.00301532f, 0.00032411f);
  }
  const float u = 3.75f / ax, half_growth = exp(0.5f * ax);
  const float p = 0.39894228f + u * (-0.03988024f + u * (-0.00362018f + u * (0.00163801f + u * (-0.01031555f +
                  u * (0.02282967f + u * (-0.02895312f + u * (0.01787654f - u * 0.00420059f)))))));
  return copysign(p / sqrt(ax) * half_growth * half_growth, x);
}
// helper: ks_remquo
// remainderf, remquof: x - n y with n = x / y rounded to nearest even, exactly (fmod is exact), and n's sign with its
// low three bits (what CUDA and C promise of remquo's quotient), each bit read off an exact fmod by 8|y|, 4|y|, 2|y|.
template <typename P> inline float ks_remquo(float x, float y, P quotient) {
  const float ay = fabs(y), ax = fabs(x);
  if (isnan(x) || isnan(y) || isinf(x) || ay == 0.0f) {
    *quotient = 0;
    return NAN;
  }
  float rest = isinf(8.0f * ay) ? ax : fmod(ax, 8.0f * ay);  // |x| mod 8|y|, exact
  int bits = 0;
  for (int b = 2; b >= 0; --b) {  // the quotient's bit b: whether 2^b |y| fits in what is left
    const float m = ay * float(1 << b);
    if (!isinf(m) && rest >= m) {
      rest -= m;  // exact: m <= rest < 2m
      bits |= 1 << b;
    }
  }
  // round to nearest, ties to even
  if (rest > ay - rest || (rest == ay - rest && (bits & 1))) {
    rest -= ay;
    bits = (bits + 1) & 7;
  }
  *quotient = (signbit(x) != signbit(y)) ? -bits : bits;
  return signbit(x) ? -rest : rest;
}
inline float ks_remainder(float x, float y) {
  int ignored;
  return ks_remquo(x, y, &ignored);
}
// helper: ks_logb
// logbf: x's unbiased exponent as a float (ilogb's), -inf for 0, +inf for infinities, NaN kept.
inline float ks_logb(float x) {
  return x == 0.0f ? -INFINITY : isinf(x) ? INFINITY : isnan(x) ? x : float(ilogb(x));
}
// helper: ks_norm
// normf(dim, a), rnormf: the length of dim floats, scaled by the largest so that no square overflows or underflows.
template <typename P> inline float ks_norm(int dim, P a) {
  float largest = 0.0f;
  for (int i = 0; i < dim; ++i) largest = max(largest, fabs(float(a[i])));
  if (largest == 0.0f || isinf(largest)) return largest;
  float sum = 0.0f;
  for (int i = 0; i < dim; ++i) {
    const float v = float(a[i]) / largest;
    sum = fma(v, v, sum);
  }
  return largest * sqrt(sum);
}
// helper: ks_simd_video
// CUDA's SIMD video intrinsics (__vadd4, __vcmpgtu2, ...): a 32-bit word as the lanes of V (ushort2, short2, uchar4,
// char4), the result's lanes back as a word.
template <typename V, typename W> inline V ks_lanes(W word) {
  return as_type<V>(uint(word));
}
template <typename V> inline uint ks_word(V lanes) {
  return as_type<uint>(lanes);
}
// __vcmp*: all ones in the lanes where the comparison holds; __vset*: 1 there
template <typename V, typename C> inline uint ks_lane_mask(C holds) {
  return as_type<uint>(select(V(0), ~V(0), holds));
}
template <typename V, typename C> inline uint ks_lane_ones(C holds) {
  return as_type<uint>(select(V(0), V(1), holds));
}
// __vsad*: the lanes' absolute differences (unsigned, as absdiff gives them) summed
inline uint ks_lane_sum(ushort2 v) {
  return uint(v.x) + uint(v.y);
}
inline uint ks_lane_sum(uchar4 v) {
  return uint(v.x) + uint(v.y) + uint(v.z) + uint(v.w);
}
inline uint ks_lane_sum(short2 v) {
  return ks_lane_sum(as_type<ushort2>(v));
}
inline uint ks_lane_sum(char4 v) {
  return ks_lane_sum(as_type<uchar4>(v));
}
// __vabsss*: |x| with the most negative lane saturated to the largest (abs wraps it to itself)
inline uint ks_abs_saturated(short2 v) {
  return ks_word(select(short2(abs(v)), short2(32767), v == short2(-32768)));
}
inline uint ks_abs_saturated(char4 v) {
  return ks_word(select(char4(abs(v)), char4(127), v == char4(-128)));
}
// __vavgs*: the signed average rounded half away from zero, (a + b + (a + b >= 0)) >> 1
inline short2 ks_rounded_average(short2 a, short2 b) {
  const int2 sum = int2(a) + int2(b);
  return short2((sum + select(int2(0), int2(1), sum >= 0)) >> 1);
}
inline char4 ks_rounded_average(char4 a, char4 b) {
  const int4 sum = int4(a) + int4(b);
  return char4((sum + select(int4(0), int4(1), sum >= 0)) >> 1);
}
// helper: ks_dpx
// __vibmax_* / __vibmin_*: the larger (smaller) of a and b, and whether it is a (a >= b, a <= b), lane by lane for the
// 16x2 forms (the high lane's answer through the first pointer).
template <typename T, typename P> inline T ks_vibmax(T a, T b, P a_won) {
  *a_won = a >= b;
  return max(a, b);
}
template <typename T, typename P> inline T ks_vibmin(T a, T b, P a_won) {
  *a_won = a <= b;
  return min(a, b);
}
template <typename V, typename P> inline V ks_vibmax(V a, V b, P high_won, P low_won) {
  *high_won = a.y >= b.y;
  *low_won = a.x >= b.x;
  return max(a, b);
}
template <typename V, typename P> inline V ks_vibmin(V a, V b, P high_won, P low_won) {
  *high_won = a.y <= b.y;
  *low_won = a.x <= b.x;
  return min(a, b);
}
// helper: ks_directed
// __fadd_rd/_ru/_rz, __fsub_*, __fmul_*, __fdiv_*, __frcp_*, __fsqrt_*: Metal has no rounding modes. The result
// rounded to nearest, then one step toward the direction asked for where the exact value lies beyond it on that side:
// where it lies is the sign of the exact error of the sum (TwoSum) or product (fma), or of the residual a - q b or
// a - s s (exact for a faithful quotient or root). Directions: 0 toward zero, -1 down, 1 up. An overflow of finite
// operands is the largest float where the direction is not toward that infinity.
inline float ks_round_toward(float nearest, float error, bool finite_operands, int direction) {
  if (direction == 0) direction = nearest > 0.0f ? -1 : 1;
  if (isinf(nearest) && finite_operands) return (direction > 0) == (nearest > 0.0f) ? nearest : copysign(MAXFLOAT, nearest);
  if (isinf(nearest) || isnan(nearest) || isnan(error)) return nearest;
  if (direction < 0 && error < 0.0f) return nextafter(nearest, -INFINITY);
  if (direction > 0 && error > 0.0f) return nextafter(nearest, INFINITY);
  return nearest;
}
inline float ks_add_directed(float a, float b, int direction) {
  const float s = a + b, bb = s - a, error = (a - (s - bb)) + (b - bb);  // a + b - s exactly (Knuth's TwoSum)
  return ks_round_toward(s, error, isfinite(a) && isfinite(b), direction);
}
inline float ks_mul_directed(float a, float b, int direction) {
  const float p = a * b;
  return ks_round_toward(p, fma(a, b, -p), isfinite(a) && isfinite(b), direction);
}
inline float ks_div_directed(float a, float b, int direction) {
  const float q = precise::divide(a, b), residual = fma(-q, b, a);  // a / b lies above q where a - q b has b's sign
  return ks_round_toward(q, b > 0.0f ? residual : -residual, isfinite(a) && isfinite(b) && b != 0.0f, direction);
}
inline float ks_sqrt_directed(float a, int direction) {
  const float s = precise::sqrt(a);
  return ks_round_toward(s, fma(-s, s, a), isfinite(a), direction);
}
// __int2float_rd, __ll2float_ru, ...: an integer past 2^24 rounded in the direction asked for: the nearest float, moved
// where the integer lies beyond it (compared as integers; the float 2^63, or 2^64, lies above every one)
inline float ks_long_to_float(long v, int direction) {
  const float f = float(v);
  const float error = f >= 9.22337204e18f ? -1.0f : float(v > long(f)) - float(v < long(f));
  return ks_round_toward(f, error, true, direction);
}
inline float ks_ulong_to_float(ulong v, int direction) {
  const float f = float(v);
  const float error = f >= 1.84467441e19f ? -1.0f : float(v > ulong(f)) - float(v < ulong(f));
  return ks_round_toward(f, error, true, direction);
}
// helper: ks_half_math
// __hfma_relu, __hmax_nan, __hmin_nan (and their half2 forms): a NaN kept where Metal's max, min and a clamp at 0
// would drop it; __hcmadd: a * b + c of complex numbers (x the real part) by two fmas per part, as CUDA documents it.
template <typename T> inline T ks_relu(T v) {
  return select(v, T(0), v < T(0));
}
template <typename T> inline T ks_max_nan(T a, T b) {
  return select(max(a, b), a + b, isunordered(a, b));
}
template <typename T> inline T ks_min_nan(T a, T b) {
  return select(min(a, b), a + b, isunordered(a, b));
}
template <typename T2> inline T2 ks_complex_fma(T2 a, T2 b, T2 c) {
  return T2(fma(-a.y, b.y, fma(a.x, b.x, c.x)), fma(a.y, b.x, fma(a.x, b.y, c.y)));
}
// helper: ks_narrow_toward
// __float2half_rz/_rd/_ru, __float2bfloat16_*, integers to half or bfloat16: the nearest value, stepped once through
// its bits where the float lies beyond it. Directions: 0 toward zero, -1 down, 1 up. An integer first becomes a
// float rounded to odd (toward zero, the lowest bit set where inexact), which a narrower rounding then rounds as it
// would the integer itself (float(v) rounded to nearest and then again could land on the other side of a tie).
template <typename H> inline H ks_narrow_toward(float v, int direction) {
  const H nearest = H(v);
  const float back = float(nearest);
  if (isnan(v) || back == v) return nearest;
  if (direction == 0) direction = v > 0.0f ? -1 : 1;
  const bool down = direction < 0;
  if (down ? back < v : back > v) return nearest;
  if (back == 0.0f) return as_type<H>(ushort(down ? 0x8001 : 0x0001));
  return as_type<H>(ushort(as_type<ushort>(nearest) + ((back > 0.0f) != down ? 1 : -1)));
}
inline float ks_long_to_float_odd(long v) {
  const float toward_zero = ks_long_to_float(v, 0);
  return long(toward_zero) == v ? toward_zero : as_type<float>(as_type<uint>(toward_zero) | 1u);
}
inline float ks_ulong_to_float_odd(ulong v) {
  const float toward_zero = ks_ulong_to_float(v, 0);
  return ulong(toward_zero) == v ? toward_zero : as_type<float>(as_type<uint>(toward_zero) | 1u);
}
// helper: ks_curand
// cuRAND's Philox4_32_10 generator (curandStatePhilox4_32_10_t), bit for bit: a 128-bit counter and a 64-bit key
// (the seed) through ten Philox rounds give four words; curand() returns them in turn, curand4() four from the
// current position. curand_init(seed, subsequence, offset) starts the counter's high 64 bits at the subsequence and
// skips offset words. Uniform floats are (x + 1/2) 2^-32 by one fma, as nvcc contracts cuRAND's x * 2^-32 + 2^-33;
// normal ones by Box-Muller of two words (the angle from the second), the second value kept for the next
// curand_normal (log-normal ones keep theirs apart, as cuRAND's flags do). Box-Muller's sine and cosine are Metal's
// fast ones where cuRAND's are __sincosf: normal values agree to a few 1e-6, uniform ones and the words exactly.
struct ks_philox_state {
  uint4 counter;
  uint4 output;    // the words of the counter's block; output[position] is the next curand()
  uint2 key;
  uint position;
  int extra_kind;  // 1: a normal value waits in extra, 2: a log-normal one
  float extra;
};
inline uint4 ks_philox_round(uint4 c, uint2 k) {
  return uint4(mulhi(0xCD9E8D57u, c.z) ^ c.y ^ k.x, 0xCD9E8D57u * c.z, mulhi(0xD2511F53u, c.x) ^ c.w ^ k.y,
               0xD2511F53u * c.x);
}
inline uint4 ks_philox(uint4 c, uint2 k) {
  for (int round = 0; round < 9; ++round) {
    c = ks_philox_round(c, k);
    k += uint2(0x9E3779B9u, 0xBB67AE85u);
  }
  return ks_philox_round(c, k);
}
// The counter plus n blocks (cuRAND's carry: out of the low 64 bits into the high ones), and the new block's words.
template <typename P> inline void ks_philox_advance(P s, ulong n) {
  uint low = uint(n), high = uint(n >> 32);
  s->counter.x += low;
  if (s->counter.x < low) high += 1u;
  s->counter.y += high;
  if (s->counter.y < high && ++s->counter.z == 0u) s->counter.w += 1u;
  s->output = ks_philox(s->counter, s->key);
}
// cuRAND overloads each generator's own functions by the state's type; here each is a template enabled by a field
// only its state has (Philox's key; XORWOW's weyl, helper ks_curand_xorwow), so that the draws below serve both.
template <typename P> inline auto ks_curand_skipahead(ulong n, P s) -> decltype(s->key, void()) {  // n words
  s->position += uint(n & 3ul);
  n /= 4;
  if (s->position > 3u) {
    n += 1;
    s->position -= 4u;
  }
  ks_philox_advance(s, n);
}
template <typename P> inline auto ks_curand_skipahead_sequence(ulong n, P s) -> decltype(s->key, void()) {  // 2^66 n words
  uint low = uint(n), high = uint(n >> 32);
  s->counter.z += low;
  if (s->counter.z < low) high += 1u;
  s->counter.w += high;
  s->output = ks_philox(s->counter, s->key);
}
template <typename P>
inline auto ks_curand_init(ulong seed, ulong subsequence, ulong offset, P s) -> decltype(s->key, void()) {
  s->counter = uint4(0u);
  s->key = uint2(uint(seed), uint(seed >> 32));
  s->position = 0u;
  s->extra_kind = 0;
  s->extra = 0.0f;
  ks_curand_skipahead_sequence(subsequence, s);
  ks_curand_skipahead(offset, s);
}
template <typename P> inline auto ks_curand(P s) -> decltype(s->key, uint()) {
  const uint word = s->output[s->position];
  if (++s->position == 4u) {
    ks_philox_advance(s, 1ul);
    s->position = 0u;
  }
  return word;
}
template <typename P> inline uint4 ks_curand4(P s) {
  const uint4 before = s->output;
  ks_philox_advance(s, 1ul);
  const uint4 after = s->output;
  const uint words[8] = {before.x, before.y, before.z, before.w, after.x, after.y, after.z, after.w};
  const uint p = s->position;
  return uint4(words[p], words[p + 1], words[p + 2], words[p + 3]);
}
inline float ks_curand_unit(uint x) {
  return fma(float(x), 2.3283064e-10f, 2.3283064e-10f / 2.0f);
}
inline float2 ks_box_muller(uint x, uint y) {
  const float u = ks_curand_unit(x), v = fma(float(y), 2.3283064e-10f * 6.2831855f, 2.3283064e-10f * 6.2831855f / 2.0f);
  const float s = sqrt(-2.0f * log(u));
  float c;
  const float sine = fast::sincos(v, c);
  return float2(sine * s, c * s);
}
template <typename P> inline float ks_curand_uniform(P s) {
  return ks_curand_unit(ks_curand(s));
}
template <typename P> inline float4 ks_curand_uniform4(P s) {
  const uint4 x = ks_curand4(s);
  return float4(ks_curand_unit(x.x), ks_curand_unit(x.y), ks_curand_unit(x.z), ks_curand_unit(x.w));
}
template <typename P> inline float ks_curand_normal_kind(P s, int kind, float mean, float stddev) {
  if (s->extra_kind != kind) {
    const uint x = ks_curand(s), y = ks_curand(s);
    float2 v = ks_box_muller(x, y);
    if (kind == 2) v = exp(mean + stddev * v);
    s->extra = v.y;
    s->extra_kind = kind;
    return v.x;
  }
  s->extra_kind = 0;
  return s->extra;
}
template <typename P> inline float ks_curand_normal(P s) {
  return ks_curand_normal_kind(s, 1, 0.0f, 1.0f);
}
template <typename P> inline float ks_curand_log_normal(P s, float mean, float stddev) {
  return ks_curand_normal_kind(s, 2, mean, stddev);
}
template <typename P> inline float2 ks_curand_normal2(P s) {
  const uint x = ks_curand(s), y = ks_curand(s);
  return ks_box_muller(x, y);
}
template <typename P> inline float4 ks_curand_normal4(P s) {
  const uint4 x = ks_curand4(s);
  return float4(ks_box_muller(x.x, x.y), ks_box_muller(x.z, x.w));
}
// helper: ks_curand_xorwow
// cuRAND's default generator XORWOW (curandState, curandStateXORWOW_t), bit for bit: Marsaglia's xorshift of five
// words beside a Weyl sequence (weyl, cuRAND's d). curand_init(seed, subsequence, offset) salts the seed into the
// words as cuRAND does, then jumps subsequence * 2^67 and offset words ahead. A jump of n words is M^n for the
// xorshift's matrix M over GF(2): cuRAND multiplies by tables of matrices (200 KB), the port evaluates the polynomial
// x^n mod p (p: M's characteristic polynomial) at M on the state by Horner's rule, 160 generator steps per set bit
// of n (ks_xorwow_jumps: x^(2^i) mod p and x^(2^(67+i)) mod p, from xorwow_jumps.py, which checks them against
// cuRAND's matrices). The draws built on curand() (uniform, normal, log-normal) are ks_curand's.
struct ks_xorwow_state {
  uint weyl;
  uint v[5];
  int extra_kind;  // as in ks_philox_state
  float extra;
};
constant uint ks_xorwow_jumps[2][64][5] = {  // generated by xorwow_jumps.py
  {  // skipahead
    {0x00000002u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00000004u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00000010u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00000100u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00010000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00000000u, 0x00000001u, 0x00000000u, 0x00000000u, 0x00000000u},
    {0x00000000u, 0x00000000u, 0x00000001u, 0x00000000u, 0x00000000u},
    {0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u, 0x00000001u},
    {0xbebd3534u, 0x7064f5bcu, 0x20be29ebu, 0x536d5b32u, 0x063a0069u},
    {0x9df022beu, 0x4c2ee09fu, 0x0939c7c8u, 0xe711c2f8u, 0xc6f135aeu},
    {0xed64ec08u, 0xafc48684u, 0xd81c59eeu, 0x1640314fu, 0x2bf0ccefu},
    {0x16ade0a0u, 0x3ff6a2d3u, 0x4746bd83u, 0x2e65a497u, 0x263e40a4u},
    {0x9d10e028u, 0xee56d79cu, 0xfb1b3286u, 0x0f747418u, 0x26f9476du},
    {0x284e9f80u, 0x95328d41u, 0x97ec0360u, 0x1e655d95u, 0x60a9306fu},
    {0x3f490634u, 0x9ae593fcu, 0x1a95bb6bu, 0xda10a3fcu, 0xa3abaf54u},
    {0xa80ecea0u, 0x392ca981u, 0x191e801eu, 0xceb66042u, 0x2f4edc3fu},
    {0xfb9680e9u, 0xbdaba0b2u, 0x3986540fu, 0x23fe6cccu, 0x0994e82fu},
    {0x4d53badbu, 0x3e30e97du, 0x19abbaf6u, 0x5cd52f87u, 0x98663641u},
    {0x32da6db4u, 0x80135829u, 0x3abd4734u, 0x2060c3f9u, 0x38b2dd97u},
    {0xbd3a57bdu, 0x066101a8u, 0x0b4f188eu, 0x16890623u, 0x8bf58771u},
    {0x0c5b636fu, 0x4407a814u, 0x60204515u, 0x5bd4dbd2u, 0x2509eeb5u},
    {0xa87f2bfeu, 0x0143dfcbu, 0x4b5142bau, 0xfd21a24bu, 0x3dac4527u},
    {0x21e9179du, 0x2b57aa94u, 0x5f06e1fcu, 0x6735dc98u, 0x9aa0181fu},
    {0x4a85a684u, 0x2ff777f0u, 0x8e58b0edu, 0xd4e84a39u, 0x6d37f6a0u},
    {0x793adf2bu, 0x3d3e75c8u, 0x0b091758u, 0x9deb3f50u, 0xbcd116ecu},
    {0x89c7a15du, 0x43629d41u, 0x8a870ba5u, 0xa7916f56u, 0x9db15489u},
    {0xfa8fc346u, 0x694921b1u, 0xf2bd4c48u, 0x8b05ae1bu, 0x2de7aee2u},
    {0xbc1bc6b9u, 0xd73ea395u, 0xfbdd753du, 0xe45dbacdu, 0x7b16eae0u},
    {0xf144e1f3u, 0xb9b4b3c4u, 0x8222f622u, 0x9072105au, 0x66083550u},
    {0xd88a6c5eu, 0x9ac20a72u, 0x209ef9a8u, 0xe8e4fd8au, 0x1ec855a5u},
    {0xbd734cf1u, 0x9254a905u, 0xfb38236du, 0x11e62fd3u, 0xf9e7d21eu},
    {0x8d333839u, 0x69fed6dfu, 0x79338fdeu, 0xa38a8714u, 0x0e538bcau},
    {0x943999e4u, 0xc05db913u, 0x4e4010f3u, 0x9b865d3du, 0x0fd64174u},
    {0x13da6451u, 0x4f1636fau, 0x6e523e62u, 0xac374f44u, 0x69a2e37fu},
    {0x19eb1bbbu, 0xbaea3750u, 0x0fa8f206u, 0xd49dd019u, 0x9b3bccafu},
    {0x013e4fc6u, 0x8fb0b988u, 0xbad0233bu, 0x63941ad7u, 0xf5f02d75u},
    {0xc97b5642u, 0x2ebac13du, 0xbfe04058u, 0x2c6a7132u, 0x576780a5u},
    {0x4add1023u, 0x5f64e54eu, 0xb0c250a8u, 0xcf4bd212u, 0x9a873149u},
    {0x0ac5eea9u, 0xa37bfcd3u, 0x790ec91du, 0xba339dbcu, 0xc83db5cdu},
    {0x67dd06cbu, 0xcbfe08ecu, 0xf64e2fa5u, 0x75fe23cfu, 0x0fc09983u},
    {0xa33b53ffu, 0x1ce9360du, 0x4727f89bu, 0x05eacbcdu, 0x01632278u},
    {0x9aee97cbu, 0x0de7db52u, 0x74719fdau, 0x51b8e04bu, 0x959e9904u},
    {0x22b4f98cu, 0xd23a7f5au, 0x8d420eddu, 0xeadda806u, 0xcfd2a002u},
    {0x817ef0ebu, 0xd19e838eu, 0xb26e9dc8u, 0xf5ba04fbu, 0x8adf73e9u},
    {0xf66ad52bu, 0x3ab8e3d7u, 0x1e8352a4u, 0xe44a8605u, 0x6c106869u},
    {0x480973c1u, 0xb4f4959eu, 0x173d230au, 0x6f15e08eu, 0xf07c940eu},
    {0x79a31c08u, 0xc28d5d18u, 0x91649708u, 0x8b1bb8f8u, 0xf9158a86u},
    {0x8e346bedu, 0x85425fb6u, 0xbcd60f3au, 0x4d16f104u, 0xff233c77u},
    {0x670f870eu, 0xa7bb9766u, 0xef013c78u, 0xeb4a1373u, 0x256f3323u},
    {0x9d89e990u, 0x682dbe05u, 0xc85ca267u, 0x2cbf3ed6u, 0xfd2d1a54u},
    {0xf333af18u, 0x3b4e266bu, 0xa872663eu, 0x3888cd82u, 0x4daf13ecu},
    {0x304ad7f4u, 0x3728f391u, 0xbf3ca967u, 0xc7b1330du, 0x264c2cbdu},
    {0x75689dc9u, 0x036bf3a9u, 0x64ce979cu, 0x3bdff14fu, 0x51e43048u},
    {0x42defd6du, 0xde992014u, 0x478a54ffu, 0x7802d9cbu, 0xb6d27a79u},
    {0xef06fe75u, 0xefd6d1d8u, 0x09319075u, 0x69d568f5u, 0x5b2bd898u},
    {0x51c810c4u, 0xfacd06d9u, 0xe3a66475u, 0x81ae21e0u, 0x6418d45cu},
    {0xf05ae255u, 0xc4df4ca0u, 0xf032420cu, 0xf44ae9f0u, 0xe0298de2u},
    {0xf9b9947bu, 0x7326e30au, 0x3366c775u, 0x91d00e4cu, 0x86c178ccu},
    {0x02308bc9u, 0xdbe74deeu, 0xf4c5fe7du, 0xaac571a1u, 0xaa1f5f8bu},
    {0x32d9c79bu, 0x0d1bae44u, 0x2bb4e02cu, 0xc92178dfu, 0x6632236du},
    {0x6e8043cau, 0x0ed24ff6u, 0x1e668b6au, 0x538fc45fu, 0x4bfb509du},
    {0x9319804du, 0x48c2c289u, 0xe00641cbu, 0x49929826u, 0x35e4c368u},
    {0x9f564f7bu, 0x543973e4u, 0x9b33ee2cu, 0x149df73au, 0x58f31585u},
    {0xbfe990f7u, 0xb6e2abc8u, 0x011498fau, 0x240651edu, 0x88cb16b1u},
  },
  {  // skipahead_sequence
    {0x26294934u, 0x77bbc248u, 0x1a87dad0u, 0x930052d4u, 0x947e6dd2u},
    {0x5f39c379u, 0x95e20ba6u, 0x20e9ff72u, 0x1244ce5eu, 0xe8fd228fu},
    {0xa7474d19u, 0x37c549e0u, 0x140877d2u, 0x24c43924u, 0xcd52ebecu},
    {0xe0360ec5u, 0xb1c96c24u, 0xdbb91766u, 0x666ff5dcu, 0xf19a7e52u},
    {0xfcc8f692u, 0x35aa698au, 0x04ebbf85u, 0x448304b0u, 0x082f3fd5u},
    {0x48c289bdu, 0xe851cf98u, 0x845ad581u, 0xfd70752au, 0x2c3e63f6u},
    {0xe502f5b3u, 0x77859d31u, 0x97e1cbb3u, 0xea09047au, 0x61d5f37eu},
    {0xb89326d0u, 0x5a8655a9u, 0xfb6e98f5u, 0x02102162u, 0x7e6fcf6fu},
    {0xb3a15db4u, 0xc6df3330u, 0x1a8be751u, 0xf1e4b221u, 0x6bb61c05u},
    {0x133de1d0u, 0x361e4422u, 0xc6131fcfu, 0xd9719f45u, 0x9658a164u},
    {0x19e2bee8u, 0xf8974218u, 0x4e65536au, 0xa2570336u, 0xe9b88082u},
    {0x7863644bu, 0x2a21ce84u, 0x112e86f1u, 0xed01ce0eu, 0xba143e84u},
    {0x0e2cae2eu, 0xd1011279u, 0x58923768u, 0x2bf650bau, 0xc985bcdau},
    {0x213a286au, 0x6596b510u, 0x6fc10eaeu, 0x38a13547u, 0x11c7749eu},
    {0x146281e7u, 0xa45b4452u, 0xafa8c695u, 0x74a0ac94u, 0x4b250e0au},
    {0x2306bc52u, 0x790f3b4cu, 0x2fe473b9u, 0xbc81d7c0u, 0x093efe98u},
    {0x89658c8bu, 0xf3914315u, 0xa73fe84bu, 0x3c5fadb6u, 0xadba8dd6u},
    {0x09e49814u, 0x09caf5edu, 0x6b2460d9u, 0x1b9981c1u, 0x2d1fefc3u},
    {0x82161afcu, 0x9bb13c55u, 0xfd20d7fbu, 0x306d90b9u, 0x92bf386fu},
    {0x96d32350u, 0x0e081864u, 0x69faa798u, 0xe7faecf5u, 0xf1f951beu},
    {0x3e9058c1u, 0x71da9705u, 0xe2cb1f2bu, 0x73456536u, 0xbd6501b6u},
    {0x990ffc6eu, 0xbfdd1b5du, 0xc83e520bu, 0xe972936au, 0xac79abb9u},
    {0xb1321eb5u, 0xb06d01a2u, 0x51532012u, 0x8fb59962u, 0x141d3b0bu},
    {0x3257dfe1u, 0xd8a3d601u, 0x3a58c735u, 0x845f36e4u, 0x0112c611u},
    {0xa0ffe9a4u, 0xf57be00eu, 0xe706880cu, 0x191211efu, 0xee5664fbu},
    {0x9a3385b8u, 0xc540c30au, 0xb241d1e0u, 0x00626569u, 0x6b355fe9u},
    {0xe129d45du, 0xac3e698bu, 0xd61f79fdu, 0x7a72a28bu, 0x7f4942beu},
    {0x612501bbu, 0xae7b767du, 0xaa66c165u, 0x09bfaf8eu, 0x3e55c16du},
    {0x874e26a7u, 0x33bc5a47u, 0xad95cba5u, 0x67651c39u, 0xf1f07dcau},
    {0xb5ed0732u, 0x30e7a573u, 0x5c056714u, 0x2304f8fau, 0xebc584e1u},
    {0x4b324c2eu, 0x2bdcc5a0u, 0x53eb4240u, 0xcac4fbc1u, 0x13e529e7u},
    {0xe1683e38u, 0xa2339994u, 0x7308a647u, 0xc7c3f0b1u, 0x4a3dcd33u},
    {0x5fe4b704u, 0xd77445c3u, 0xb80eeb3cu, 0x6720fc6du, 0x7da33f71u},
    {0xea0715d2u, 0x435bf5e0u, 0x8b125b82u, 0x2bf15174u, 0x451636c0u},
    {0x27786b0du, 0x55a8b8bbu, 0xad73d087u, 0x548172a6u, 0xb8dcb607u},
    {0xedbc74acu, 0x9333668eu, 0x5330ec7eu, 0x139bc173u, 0x8df22694u},
    {0x1e9372ddu, 0xe081adccu, 0xf9650df2u, 0x0ad599e4u, 0x21aeba83u},
    {0x81e94b95u, 0x02bd032fu, 0x4241ada2u, 0x7cf446d1u, 0x585759bbu},
    {0x552ec26fu, 0x2663dad8u, 0x25bf8d5eu, 0x538f9e9bu, 0x804bfd4cu},
    {0xaed86880u, 0x7cc53d77u, 0x2379080du, 0x66b5ba47u, 0x271e9c90u},
    {0xab750c90u, 0x454415efu, 0xd94a347cu, 0xd23c81beu, 0x551c7096u},
    {0x3024c55fu, 0x9b3a9b08u, 0xcef11c55u, 0x3019557du, 0x08303d6du},
    {0xbc6d2665u, 0xc1fd8153u, 0xd43c38c9u, 0xd70344ccu, 0x279357c0u},
    {0x685d57dfu, 0xda26a2f1u, 0x5174006au, 0xe55bf1f1u, 0x5f20a739u},
    {0x88aced61u, 0x3925e5e8u, 0xc8af3caau, 0xefa299b1u, 0xbc1538f8u},
    {0x2b0ca967u, 0xf25d1abau, 0x4062850bu, 0x683d0590u, 0xabd1b043u},
    {0xc3051a0au, 0x11a68894u, 0x0ec32c75u, 0xb9e1af76u, 0x45d20f13u},
    {0xbd2198a4u, 0xc68fea4bu, 0x09de877eu, 0x2b15c9cfu, 0x7b2e8734u},
    {0x54f062f0u, 0xcf7989d8u, 0x443e496bu, 0x17d83e81u, 0xa2be8639u},
    {0x6cb408dbu, 0x56912973u, 0xebc71d0fu, 0x21fbfabcu, 0xf266d5dcu},
    {0x267af43cu, 0x14dfd913u, 0x2dbb25b6u, 0x227b1a06u, 0x24402bc6u},
    {0xac63df96u, 0x4e3cf79bu, 0xe20e3c11u, 0x1a5771cfu, 0xc0e37c49u},
    {0xad66cdfeu, 0x7cfa6a50u, 0x8fca746au, 0x7b18f04bu, 0x28eeb28fu},
    {0xef049d6fu, 0xf7192531u, 0xabc5f1deu, 0x1ea75f09u, 0x3be64a78u},
    {0x37abb017u, 0x7735fb03u, 0x557fb7cdu, 0x520ea993u, 0x69e4a18du},
    {0xc83c8e40u, 0x9fb2f16fu, 0xf95170a2u, 0x401ffac4u, 0x6b70bfebu},
    {0x53140fddu, 0x0dfb37a9u, 0x88772b05u, 0x20be07e3u, 0x128c07bdu},
    {0x5df0aeb5u, 0x9f52cccdu, 0x0e8b1551u, 0x06935a9cu, 0x648b1463u},
    {0x1e72e926u, 0x829ca1d2u, 0x084c2bd7u, 0xcea065e7u, 0xd2b401bfu},
    {0x0b97fcd4u, 0xd9a6c1c6u, 0x705a959au, 0x0cc8d909u, 0xe38aca23u},
    {0x93d21898u, 0x97c7960eu, 0xb2899f9du, 0xd528a53du, 0x04f33fcau},
    {0x0942240eu, 0xc18f6e56u, 0x9551c4ddu, 0x61c8179bu, 0xead20f15u},
    {0x06e1a24fu, 0x4a7295afu, 0x5534bfe6u, 0x452ec8f1u, 0x79685920u},
    {0xa0bcccfeu, 0x2de5181cu, 0x33c9d258u, 0xaf27908du, 0xcfd04995u},
  },
};  // ks_xorwow_jumps
inline void ks_xorwow_step(thread uint* v) {
  const uint t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}
// v <- q(M) v: Horner's rule from q's highest term, v added (without a branch) where q has a term.
inline void ks_xorwow_apply(thread uint* v, constant uint* q) {
  uint acc[5] = {0u, 0u, 0u, 0u, 0u};
  for (int i = 159; i >= 0; --i) {
    ks_xorwow_step(acc);
    const uint take = 0u - ((q[i >> 5] >> (i & 31)) & 1u);
    for (int k = 0; k < 5; ++k) acc[k] ^= v[k] & take;
  }
  for (int k = 0; k < 5; ++k) v[k] = acc[k];
}
template <typename P> inline void ks_xorwow_jump(P s, ulong n, int table) {
  uint v[5];
  for (int k = 0; k < 5; ++k) v[k] = s->v[k];
  for (int bit = 0; n != 0ul; ++bit, n >>= 1)
    if ((n & 1ul) != 0ul) ks_xorwow_apply(v, ks_xorwow_jumps[table][bit]);
  for (int k = 0; k < 5; ++k) s->v[k] = v[k];
}
template <typename P> inline auto ks_curand_skipahead(ulong n, P s) -> decltype(s->weyl, void()) {  // n words
  ks_xorwow_jump(s, n, 0);
  s->weyl += 362437u * uint(n);
}
// 2^67 n words: the Weyl sequence moves by a multiple of 2^32 steps, i.e. not at all.
template <typename P> inline auto ks_curand_skipahead_sequence(ulong n, P s) -> decltype(s->weyl, void()) {
  ks_xorwow_jump(s, n, 1);
}
template <typename P>
inline auto ks_curand_init(ulong seed, ulong subsequence, ulong offset, P s) -> decltype(s->weyl, void()) {
  const uint t0 = 1099087573u * (uint(seed) ^ 0xaad26b49u), t1 = 2591861531u * (uint(seed >> 32) ^ 0xf7dcefddu);
  s->weyl = 6615241u + t1 + t0;
  s->v[0] = 123456789u + t0;
  s->v[1] = 362436069u ^ t0;
  s->v[2] = 521288629u + t1;
  s->v[3] = 88675123u ^ t1;
  s->v[4] = 5783321u + t0;
  s->extra_kind = 0;
  s->extra = 0.0f;
  ks_curand_skipahead_sequence(subsequence, s);
  ks_curand_skipahead(offset, s);
}
template <typename P> inline auto ks_curand(P s) -> decltype(s->weyl, uint()) {
  uint v[5];
  for (int k = 0; k < 5; ++k) v[k] = s->v[k];
  ks_xorwow_step(v);
  for (int k = 0; k < 5; ++k) s->v[k] = v[k];
  s->weyl += 362437u;
  return v[4] + s->weyl;
}
// helper: ks_atomic_add_lanes
// atomicAdd of a float2 or float4 (sm_90): each lane's float added atomically, the old lanes returned, as CUDA does
// it (the vector as a whole is not one atomic access there either).
template <typename A, typename V> inline V ks_atomic_add_lanes(A lanes, V value) {
  V old;
  for (int i = 0; i < int(sizeof(V) / sizeof(float)); ++i)
    old[i] = atomic_fetch_add_explicit(lanes + i, value[i], memory_order_relaxed);
  return old;
}
// helper: ks_atomic_add_pair
// atomicAdd of a __half2 or __nv_bfloat162: the pair is one 32-bit word, added by a compare-and-swap loop (Metal has
// no 16-bit float atomics); the old pair returned.
template <typename A, typename V> inline V ks_atomic_add_pair(A word, V value) {
  uint old = atomic_load_explicit(word, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(word, &old, as_type<uint>(as_type<V>(old) + value), memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
  return as_type<V>(old);
}
// helper: ks_atomic_wrap
// atomicInc / atomicDec: CUDA's wrapping increment (old >= limit ? 0 : old + 1) and decrement
// (old == 0 || old > limit ? limit : old - 1), which Metal's atomics lack, as compare-and-swap loops
// (a failed exchange reloads `old`); they return the old value, as CUDA's do. A is `device
// atomic<uint>*` or `threadgroup atomic<uint>*`.
template <typename A> inline uint ks_atomic_inc(A p, uint limit) {
  uint old = atomic_load_explicit(p, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(p, &old, old >= limit ? 0u : old + 1u, memory_order_relaxed, memory_order_relaxed)) {
  }
  return old;
}
template <typename A> inline uint ks_atomic_dec(A p, uint limit) {
  uint old = atomic_load_explicit(p, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(p, &old, old == 0u || old > limit ? limit : old - 1u, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
  return old;
}
// helper: ks_syncthreads_count
// __syncthreads_count (and _and, _or): a threadgroup barrier that also counts the threads whose
// predicate holds. Each SIMD group's count passes through `votes` (threadgroup memory the kernel
// declares); the first barrier keeps a previous call's readers ahead of this call's writers.
inline int ks_syncthreads_count(bool predicate, threadgroup int (&votes)[32], uint rank, uint size) {
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
  const int count = simd_sum(predicate ? 1 : 0);
  if (rank % 32 == 0) votes[rank / 32] = count;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int total = 0;
  for (uint group = 0; group < (size + 31) / 32; ++group) total += votes[group];
  return total;
}
// helper: ks_half_raw
// cuda_fp16.h's __half_raw and cuda_bf16.h's __nv_bfloat16_raw: a 16-bit float's bits in `x`, converting from and to
// the float type (as their constructors and conversion operators do in CUDA).
struct ks_half_raw {
  ushort x;
  ks_half_raw() = default;
  ks_half_raw(half h) : x(as_type<ushort>(h)) {}
  operator half() const { return as_type<half>(x); }
};
struct ks_bfloat16_raw {
  ushort x;
  ks_bfloat16_raw() = default;
  ks_bfloat16_raw(bfloat h) : x(as_type<ushort>(h)) {}
  operator bfloat() const { return as_type<bfloat>(x); }
};
// helper: ks_aligned_storage
// std::aligned_storage<Bytes, Align>::type: raw bytes that threadgroup memory holds for a type with
// constructors (which a threadgroup variable cannot have), viewed through a pointer cast.
template <size_t Bytes, size_t Align>
struct ks_aligned_storage {
  struct type {
    alignas(Align) uchar bytes[Bytes];
  };
};
// helper: ks_dp4a
// __dp4a: the dot product of the four bytes of a and b, plus c (int8 kernels), signed or unsigned as the operands are
// (also as char4/uchar4 vectors). __dp2a_lo/_hi: the two 16-bit lanes of a times the low (high) two bytes of b.
inline int ks_dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += ((a << (24 - 8 * i)) >> 24) * ((b << (24 - 8 * i)) >> 24);
  return c;
}
inline uint ks_dp4a(uint a, uint b, uint c) {
  for (uint i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
}
inline int ks_dp4a(char4 a, char4 b, int c) {
  return ks_dp4a(as_type<int>(a), as_type<int>(b), c);
}
inline uint ks_dp4a(uchar4 a, uchar4 b, uint c) {
  return ks_dp4a(as_type<uint>(a), as_type<uint>(b), c);
}
inline int ks_dp2a(int a, int b, int c, int high) {
  const short2 x = as_type<short2>(a);
  const char4 y = as_type<char4>(b);
  return c + int(x.x) * int(y[2 * high]) + int(x.y) * int(y[2 * high + 1]);
}
inline uint ks_dp2a(uint a, uint b, uint c, int high) {
  const ushort2 x = as_type<ushort2>(a);
  const uchar4 y = as_type<uchar4>(b);
  return c + uint(x.x) * uint(y[2 * high]) + uint(x.y) * uint(y[2 * high + 1]);
}
inline int ks_dp2a(short2 a, char4 b, int c, int high) {
  return ks_dp2a(as_type<int>(a), as_type<int>(b), c, high);
}
inline uint ks_dp2a(ushort2 a, uchar4 b, uint c, int high) {
  return ks_dp2a(as_type<uint>(a), as_type<uint>(b), c, high);
}
// helper: ks_bit
// C++20's <bit> functions that Metal lacks, over its clz and rotate (T unsigned, as std requires). A rotation by a
// negative count is one the other way: T(s) wraps, and rotate counts modulo the width.
template <typename T> inline int ks_countl_one(T x) { return int(clz(T(~x))); }
template <typename T> inline int ks_countr_one(T x) { return int(ctz(T(~x))); }
template <typename T> inline int ks_bit_width(T x) { return int(sizeof(T) * 8) - int(clz(x)); }
template <typename T> inline T ks_bit_floor(T x) { return x == 0 ? T(0) : T(T(1) << (ks_bit_width(x) - 1)); }
template <typename T> inline T ks_bit_ceil(T x) { return x <= 1 ? T(1) : T(T(1) << ks_bit_width(T(x - 1))); }
template <typename T> inline T ks_rotl(T x, int s) { return rotate(x, T(s)); }
template <typename T> inline T ks_rotr(T x, int s) { return rotate(x, T(-s)); }
// helper: ks_swap
// std::swap(a, b) as ks_swap(&(a), &(b)): pointer types carry each operand's address space (thread,
// threadgroup, device), where a reference parameter would need one overload per space.
template <typename P, typename Q> inline void ks_swap(P a, Q b) {
  const auto held = *a;
  *a = *b;
  *b = held;
}
// helper: ks_memcpy_async
// __pipeline_memcpy_async(dst, src, size, zfill) and a thread's cuda::memcpy_async (zfill 0) done at the call: size -
// zfill bytes copied in elements of src's type (src keeps its address space, device or constant), the last one whole
// where the count ends inside it, then zfill bytes zeroed (by 4-byte words where both counts allow: cp.async's sizes
// are 4, 8 or 16 bytes).
template <typename S> inline void ks_memcpy_async(threadgroup uchar* dst, S src, ulong size, ulong zfill) {
  const ulong copied = zfill < size ? size - zfill : 0, unit = sizeof(*src);
  for (ulong i = 0; i * unit < copied; ++i) {
    auto element = src[i];
    ((threadgroup decltype(element)*)dst)[i] = element;
  }
  if (copied % 4 == 0 && size % 4 == 0) {
    for (ulong i = copied / 4; i < size / 4; ++i) ((threadgroup uint*)dst)[i] = 0u;
  } else {
    for (ulong i = copied; i < size; ++i) dst[i] = uchar(0);
  }
}
// helper: ks_mma
// mma.sync.aligned.m16n8kK.row.col (inline PTX): the warp's 16 x 8 product D = A B + C from the register fragments
// each lane holds as PTX lays them out (lane = 4 g + t: A rows g and g + 8, B column g, C and D row g and g + 8 at
// columns 2t and 2t + 1), gathered across the SIMD group by shuffles and multiplied in the accumulator's type (float,
// or int for 8-bit integers). A 32-bit register holds 4 / sizeof(In) elements: 2 of f16 or bf16, 4 of s8 or u8, 1 of
// tf32 (multiplied as the float it is); A's and B's types differ only among the integers. KB blocks of k: A's register 2 kb + h holds rows g + 8h, B's register kb; the
// lane 4 g + q of a block holds its k = E (4 kb + q) + e. The whole SIMD group calls it, as the whole warp runs mma.sync.
template <typename In, typename Acc> inline Acc ks_mma_element(uint r, int e) {
  return Acc(as_type<vec<In, 4 / sizeof(In)>>(r)[e]);
}
template <> inline float ks_mma_element<float, float>(uint r, int) { return as_type<float>(r); }
template <int KB, typename InA, typename InB, typename Acc>
inline vec<Acc, 4> ks_mma(thread const uint* a, thread const uint* b, vec<Acc, 4> c, ushort lane) {
  constexpr int E = 4 / sizeof(InA);
  const ushort g = lane / 4, t = lane % 4;
  vec<Acc, 4> d = c;
  for (ushort q = 0; q < 4; ++q)
    for (int kb = 0; kb < KB; ++kb) {
      const uint a_low = simd_shuffle(a[2 * kb], ushort(4 * g + q)), a_high = simd_shuffle(a[2 * kb + 1], ushort(4 * g + q));
      const uint b_even = simd_shuffle(b[kb], ushort(8 * t + q)), b_odd = simd_shuffle(b[kb], ushort(8 * t + 4 + q));
      for (int e = 0; e < E; ++e) {
        const Acc low = ks_mma_element<InA, Acc>(a_low, e), high = ks_mma_element<InA, Acc>(a_high, e);
        const Acc even = ks_mma_element<InB, Acc>(b_even, e), odd = ks_mma_element<InB, Acc>(b_odd, e);
        d[0] += low * even;
        d[1] += low * odd;
        d[2] += high * even;
        d[3] += high * odd;
      }
    }
  return d;
}
// An f16 accumulator's two registers as the four floats of ks_mma, and back.
inline float4 ks_mma_f16_accumulator(uint low, uint high) {
  return float4(float2(as_type<half2>(low)), float2(as_type<half2>(high)));
}
inline uint ks_mma_f16_pair(float2 v) { return as_type<uint>(half2(v)); }
// helper: ks_ldmatrix
// ldmatrix.sync.aligned.m8n8.xX[.trans].shared.b16 (inline PTX): lanes 8i .. 8i + 7 give the addresses of matrix i's
// eight rows (16 bytes each); each lane reads its row and the SIMD group shuffles the words where PTX puts them:
// register i of lane l holds row l / 4, elements 2 (l % 4) and the next of matrix i, or with .trans that column of
// rows 2 (l % 4) and the next (column l / 4). The whole SIMD group calls it, as the whole warp runs ldmatrix.
template <int X, bool Trans> inline void ks_ldmatrix(thread uint* r, threadgroup const uchar* row, ushort lane) {
  uint mine[4] = {0u, 0u, 0u, 0u};
  if (lane < 8 * X)
    for (int w = 0; w < 4; ++w) mine[w] = ((threadgroup const uint*)row)[w];
  for (int i = 0; i < X; ++i) {
    uint first[4], second[4];
    const ushort from = Trans ? ushort(8 * i + 2 * (lane % 4)) : ushort(8 * i + lane / 4);
    for (int w = 0; w < 4; ++w) {
      first[w] = simd_shuffle(mine[w], from);
      second[w] = Trans ? simd_shuffle(mine[w], ushort(from + 1)) : 0u;  // (from + 1 < 32 with .trans)
    }
    const ushort column = lane / 4, shift = 16 * (column % 2);
    r[i] = Trans ? ((first[column / 2] >> shift) & 0xffffu) | (((second[column / 2] >> shift) & 0xffffu) << 16)
                 : first[lane % 4];
  }
}
// helper: ks_stmatrix
// stmatrix.sync.aligned.m8n8.xX[.trans].shared.b16 (inline PTX), ldmatrix's inverse: lanes 8i .. 8i + 7 give the
// addresses of matrix i's rows; register i of lane l holds row l / 4, elements 2 (l % 4) and the next (with .trans,
// that row is the stored column). Each addressing lane gathers its row's four words by shuffles and stores them.
template <int X, bool Trans> inline void ks_stmatrix(threadgroup uchar* row, thread const uint* r, ushort lane) {
  const ushort own = lane % 8;  // the stored row this lane writes
  uint words[4] = {0u, 0u, 0u, 0u};
  for (int i = 0; i < X; ++i)
    for (int w = 0; w < 4; ++w) {
      uint word;
      if (Trans) {  // stored (own, 2w + e) is the fragment's (2w + e, own): lane 4 (2w + e) + own / 2, half own % 2
        const ushort shift = 16 * (own % 2);
        const uint even = simd_shuffle(r[i], ushort(8 * w + own / 2)), odd = simd_shuffle(r[i], ushort(8 * w + 4 + own / 2));
        word = ((even >> shift) & 0xffffu) | (((odd >> shift) & 0xffffu) << 16);
      } else {
        word = simd_shuffle(r[i], ushort(4 * own + w));
      }
      if (lane / 8 == i) words[w] = word;
    }
  if (lane < 8 * X)
    for (int w = 0; w < 4; ++w) ((threadgroup uint*)row)[w] = words[w];
}
// helper: ks_functional
// <functional>'s operators and libcu++'s cuda::maximum and cuda::minimum as function objects (Metal's library has
// none); the void specialization takes operands of any types, as std::plus<> does.
#define KS_FUNCTION_OBJECT(NAME, EXPRESSION)                                                       \
  template <typename T = void> struct NAME {                                                       \
    T operator()(T a, T b) const { return EXPRESSION; }                                             \
  };                                                                                               \
  template <> struct NAME<void> {                                                                  \
    template <typename A, typename B> auto operator()(A a, B b) const { return EXPRESSION; }        \
  };
KS_FUNCTION_OBJECT(ks_plus, a + b)
KS_FUNCTION_OBJECT(ks_minus, a - b)
KS_FUNCTION_OBJECT(ks_multiplies, a * b)
KS_FUNCTION_OBJECT(ks_divides, a / b)
KS_FUNCTION_OBJECT(ks_maximum, a < b ? b : a)
KS_FUNCTION_OBJECT(ks_minimum, b < a ? b : a)
KS_FUNCTION_OBJECT(ks_bit_and, a & b)
KS_FUNCTION_OBJECT(ks_bit_or, a | b)
KS_FUNCTION_OBJECT(ks_bit_xor, a ^ b)
#undef KS_FUNCTION_OBJECT
// the comparisons, which answer bool
#define KS_PREDICATE_OBJECT(NAME, EXPRESSION)                                                      \
  template <typename T = void> struct NAME {                                                       \
    bool operator()(T a, T b) const { return EXPRESSION; }                                         \
  };                                                                                               \
  template <> struct NAME<void> {                                                                  \
    template <typename A, typename B> bool operator()(A a, B b) const { return EXPRESSION; }       \
  };
KS_PREDICATE_OBJECT(ks_less, a < b)
KS_PREDICATE_OBJECT(ks_greater, a > b)
KS_PREDICATE_OBJECT(ks_less_equal, a <= b)
KS_PREDICATE_OBJECT(ks_greater_equal, a >= b)
KS_PREDICATE_OBJECT(ks_equal_to, a == b)
KS_PREDICATE_OBJECT(ks_not_equal_to, a != b)
#undef KS_PREDICATE_OBJECT
// helper: ks_integer_sequence
// <utility>'s compile-time integer packs, which Metal's library lacks: make_integer_sequence<T, N> built by joining
// two halves (a depth of log2 N instantiations).
template <typename T, T... I> struct ks_integer_sequence {
  typedef T value_type;
  static constexpr size_t size() { return sizeof...(I); }
};
template <size_t... I> using ks_index_sequence = ks_integer_sequence<size_t, I...>;
template <typename T, typename A, typename B> struct ks_sequence_join;
template <typename T, T... A, T... B> struct ks_sequence_join<T, ks_integer_sequence<T, A...>, ks_integer_sequence<T, B...>> {
  static constexpr T offset() { return T(sizeof...(A)); }
  typedef ks_integer_sequence<T, A..., T(offset() + B)...> type;
};
template <typename T, size_t N> struct ks_sequence_of {
  typedef typename ks_sequence_join<T, typename ks_sequence_of<T, N / 2>::type, typename ks_sequence_of<T, N - N / 2>::type>::type type;
};
template <typename T> struct ks_sequence_of<T, 0> { typedef ks_integer_sequence<T> type; };
template <typename T> struct ks_sequence_of<T, 1> { typedef ks_integer_sequence<T, T(0)> type; };
template <typename T, T N> using ks_make_integer_sequence = typename ks_sequence_of<T, size_t(N)>::type;
template <size_t N> using ks_make_index_sequence = ks_make_integer_sequence<size_t, N>;
template <typename... Ts> using ks_index_sequence_for = ks_make_index_sequence<sizeof...(Ts)>;
// helper: ks_span
// std::span and cuda::std::span (Metal has none): a pointer and a count. P is the pointer's type, device memory's
// unless the port names another space (a span of a __shared__ array: `decltype((warp_sums) + 0)`).
template <typename T, size_t Extent = size_t(-1), typename P = device T*> struct ks_span {
  P p;
  size_t n;
  ks_span(P data, size_t size) : p(data), n(size) {}
  decltype(auto) operator[](size_t i) const { return p[i]; }
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  P data() const { return p; }
  P begin() const { return p; }
  P end() const { return p + n; }
  ks_span subspan(size_t offset, size_t count = size_t(-1)) const { return ks_span(p + offset, count == size_t(-1) ? n - offset : count); }
  ks_span first(size_t count) const { return ks_span(p, count); }
  ks_span last(size_t count) const { return ks_span(p + n - count, count); }
};
// helper: ks_optional
// std::optional and cuda::std::optional of a value (Metal has none): the value and whether it is there. value() of an
// empty one is the value type's default, where C++ would throw.
struct ks_nullopt_t {};
template <typename T> struct ks_optional {
  T v;
  bool has;
  ks_optional() : v(), has(false) {}
  ks_optional(ks_nullopt_t) : v(), has(false) {}
  ks_optional(T value) : v(value), has(true) {}
  bool has_value() const { return has; }
  explicit operator bool() const { return has; }
  T value() const { return v; }
  T operator*() const { return v; }
  T value_or(T otherwise) const { return has ? v : otherwise; }
  void reset() { has = false; }
};
// helper: ks_pair
// std::pair and cuda::std::pair (Metal has none): first and second, built as std::pair is (value-initialized, from two
// values, a brace list of them) and unpacked by a structured binding; compared as std::pair is (lexicographically).
template <typename A, typename B> struct ks_pair {
  A first;
  B second;
  ks_pair() : first(), second() {}
  ks_pair(A a, B b) : first(a), second(b) {}
};
template <typename A, typename B> inline ks_pair<A, B> ks_make_pair(A a, B b) { return {a, b}; }
template <typename A, typename B> inline bool operator==(ks_pair<A, B> x, ks_pair<A, B> y) { return x.first == y.first && x.second == y.second; }
template <typename A, typename B> inline bool operator!=(ks_pair<A, B> x, ks_pair<A, B> y) { return !(x == y); }
template <typename A, typename B> inline bool operator<(ks_pair<A, B> x, ks_pair<A, B> y) {
  return x.first < y.first || (!(y.first < x.first) && x.second < y.second);
}
template <typename A, typename B> inline bool operator>(ks_pair<A, B> x, ks_pair<A, B> y) { return y < x; }
// helper: ks_numeric
// <numeric>'s accumulate and reduce over a pointer range in any address space (Metal has neither), folded in order.
// reduce without an initial value starts from the elements' zero (an int for integers narrower than int, as C++
// promotes their sum).
template <typename P, typename T> inline T ks_accumulate(P first, P last, T init) {
  for (; first != last; ++first) init = init + *first;
  return init;
}
template <typename P, typename T, typename Op> inline T ks_accumulate(P first, P last, T init, Op op) {
  for (; first != last; ++first) init = op(init, *first);
  return init;
}
template <typename P> inline auto ks_reduce(P first, P last) {
  using Sum = decltype(*first + *first);
  return ks_accumulate(first, last, Sum(0));
}
template <typename P, typename T> inline T ks_reduce(P first, P last, T init) { return ks_accumulate(first, last, init); }
template <typename P, typename T, typename Op> inline T ks_reduce(P first, P last, T init, Op op) { return ks_accumulate(first, last, init, op); }
// helper: ks_memcpy
// memcpy and memset in device code, on byte pointers in the spaces of the call's arguments (the port casts them):
// Metal has neither. They return dst, as the C functions do (in bytes rather than void).
template <typename D, typename S> inline D ks_memcpy(D dst, S src, ulong bytes) {
  for (ulong i = 0; i < bytes; ++i) dst[i] = src[i];
  return dst;
}
template <typename D> inline D ks_memset(D dst, uchar value, ulong bytes) {
  for (ulong i = 0; i < bytes; ++i) dst[i] = value;
  return dst;
}
// helper: ks_group_copy
// cg::memcpy_async(group, dst, src, bytes) and cuda::memcpy_async(group, ...) done at the call: the group's threads
// copy the elements of src's type in turn (rank, rank + size, ...); a partial last element's bytes by the thread whose
// turn it is. dst is threadgroup memory, as cp.async's destination is.
template <typename D, typename S> inline void ks_group_copy(D dst, S src, ulong bytes, uint rank, uint size) {
  const ulong unit = sizeof(*src), whole = bytes / unit;
  for (ulong i = rank; i < whole; i += size) dst[i] = src[i];
  if (bytes % unit != 0 && rank == whole % size) {
    auto element = src[whole];
    for (ulong b = 0; b < bytes % unit; ++b) ((threadgroup uchar*)(dst + whole))[b] = ((thread uchar*)&element)[b];
  }
}
// helper: ks_cub
// CUB's block and warp collectives (cub::BlockReduce, BlockScan, WarpReduce, WarpScan, BlockLoad, BlockStore) with
// CUB's interface and semantics, over SIMD-group shuffles and the TempStorage the kernel declares in
// threadgroup memory. The port passes each constructor the thread's position and the threadgroup's size
// (Metal has no global thread index); a Block collective ranks threads by its template dimensions, as CUB
// does, and SIMD groups are 32 consecutive ranks. T is a scalar, a vector (what Metal's shuffles take) or a struct of the
// file the port gives shuffle overloads that move it member by member.
namespace cub {
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm { BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE,
                          BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED };
enum BlockStoreAlgorithm { BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE,
                           BLOCK_STORE_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED };
struct Sum {
  template <typename T> T operator()(T a, T b) const { return a + b; }
};
struct Max {  // CUB_MAX(a, b): b where b > a
  template <typename T> T operator()(T a, T b) const { return b > a ? b : a; }
};
struct Min {
  template <typename T> T operator()(T a, T b) const { return b < a ? b : a; }
};
// The reduction of the first `valid` lanes of a segment of `width` lanes (`lane` is the lane in it), in lane
// order, into the segment's first lane; other lanes hold partial results. Offsets grow, as in CUB, so that
// each lane's combination stays within the valid lanes; every lane shuffles.
template <typename T, typename Op> inline T ks_cub_shuffle_reduce(T v, Op op, uint lane, uint width, uint valid) {
  for (uint offset = 1; offset < width; offset *= 2) {
    const T other = simd_shuffle_down(v, ushort(offset));
    if (lane + offset < valid) v = op(v, other);
  }
  return v;
}
template <typename T, typename Op> inline T ks_cub_segment_reduce(T v, Op op, uint lane, uint width, uint valid) {
  return ks_cub_shuffle_reduce(v, op, lane, width, valid);
}
template <typename T> inline T ks_cub_segment_reduce(T v, Sum op, uint lane, uint width, uint valid) {
  return width == 32 && valid == 32 ? simd_sum(v) : ks_cub_shuffle_reduce(v, op, lane, width, valid);
}
inline uint ks_cub_rank(uint3 position, uint dim_x, uint dim_y) { return position.x + dim_x * (position.y + dim_y * position.z); }
// A thread's several items (CUB's blocked arrangement) reduced in order, as CUB's ThreadReduce does before a block's
// collective over the threads' totals.
template <typename T, int ITEMS, typename Op> inline T ks_cub_thread_reduce(thread T (&input)[ITEMS], Op op) {
  T total = input[0];
  for (int i = 1; i < ITEMS; ++i) total = op(total, input[i]);
  return total;
}

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockReduce {
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z, WARPS = (BLOCK_THREADS + 31) / 32 };
  struct TempStorage {
    T warp_aggregates[WARPS];
  };
  threadgroup TempStorage* temp;
  uint rank;
  BlockReduce(threadgroup TempStorage& storage, uint3 position, uint3) : temp(&storage), rank(ks_cub_rank(position, BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  // The aggregate of the first num_valid threads' inputs, in thread 0 (CUB's result; other threads: a partial).
  template <typename Op> T Reduce(T input, Op op, int num_valid) {
    const uint lane = rank % 32, warp = rank / 32;
    const uint valid = uint(min(max(num_valid - int(warp * 32), 0), 32));
    T v = ks_cub_segment_reduce(input, op, lane, 32, valid);
    if (lane == 0) temp->warp_aggregates[warp] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (rank == 0)
      for (int w = 1; w < (num_valid + 31) / 32; ++w) v = op(v, temp->warp_aggregates[w]);
    return v;
  }
  template <typename Op> T Reduce(T input, Op op) { return Reduce(input, op, BLOCK_THREADS); }
  T Sum(T input) { return Reduce(input, cub::Sum(), BLOCK_THREADS); }
  T Sum(T input, int num_valid) { return Reduce(input, cub::Sum(), num_valid); }
  template <int ITEMS, typename Op> T Reduce(thread T (&inputs)[ITEMS], Op op) { return Reduce(ks_cub_thread_reduce(inputs, op), op); }
  template <int ITEMS> T Sum(thread T (&inputs)[ITEMS]) { return Reduce(inputs, cub::Sum()); }
};

// The one-item scans BlockScan and WarpScan share, over the collective S's scan() and is_first() (the thread whose
// exclusive output is the initial value).
template <typename S, typename T> struct ks_cub_scans {
  template <typename Op> void InclusiveScan(T input, thread T& output, Op op, thread T& aggregate) {
    T exclusive;
    static_cast<thread S*>(this)->scan(input, op, output, exclusive, aggregate);
  }
  template <typename Op> void InclusiveScan(T input, thread T& output, Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  template <typename Op> void ExclusiveScan(T input, thread T& output, T initial_value, Op op, thread T& aggregate) {
    T inclusive, exclusive;
    static_cast<thread S*>(this)->scan(input, op, inclusive, exclusive, aggregate);
    output = static_cast<thread S*>(this)->is_first() ? initial_value : op(initial_value, exclusive);
  }
  template <typename Op> void ExclusiveScan(T input, thread T& output, T initial_value, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  template <typename Op> void ExclusiveScan(T input, thread T& output, Op op, thread T& aggregate) {  // the first's: undefined
    T inclusive;
    static_cast<thread S*>(this)->scan(input, op, inclusive, output, aggregate);
  }
  template <typename Op> void ExclusiveScan(T input, thread T& output, Op op) {
    T aggregate;
    ExclusiveScan(input, output, op, aggregate);
  }
  void InclusiveSum(T input, thread T& output, thread T& aggregate) { InclusiveScan(input, output, cub::Sum(), aggregate); }
  void InclusiveSum(T input, thread T& output) { InclusiveScan(input, output, cub::Sum()); }
  void ExclusiveSum(T input, thread T& output, thread T& aggregate) { ExclusiveScan(input, output, T(0), cub::Sum(), aggregate); }
  void ExclusiveSum(T input, thread T& output) { ExclusiveScan(input, output, T(0), cub::Sum()); }
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
struct BlockScan : ks_cub_scans<BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>, T> {
  using Scans = ks_cub_scans<BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>, T>;
  using Scans::InclusiveSum;
  using Scans::ExclusiveSum;
  using Scans::InclusiveScan;
  using Scans::ExclusiveScan;
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z, WARPS = (BLOCK_THREADS + 31) / 32 };
  struct TempStorage {
    T warp_aggregates[WARPS];
    T block_prefix;  // a prefix callback's answer
  };
  threadgroup TempStorage* temp;
  uint rank;
  BlockScan(threadgroup TempStorage& storage, uint3 position, uint3) : temp(&storage), rank(ks_cub_rank(position, BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  // The inclusive scan by rank, and the exclusive one: the inclusive of the rank before (lane 0: the
  // warps' before it; rank 0: undefined, as in CUB); every thread gets the block's aggregate.
  template <typename Op> void scan(T input, Op op, thread T& inclusive, thread T& exclusive, thread T& aggregate) {
    const uint lane = rank % 32, warp = rank / 32;
    T v = input;
    for (uint offset = 1; offset < 32; offset *= 2) {
      const T up = simd_shuffle_up(v, ushort(offset));
      if (lane >= offset) v = op(up, v);
    }
    if (lane == min(31u, uint(BLOCK_THREADS) - 1 - warp * 32)) temp->warp_aggregates[warp] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    T running = temp->warp_aggregates[0], warp_prefix = running;
    for (uint w = 1; w < uint(WARPS); ++w) {
      if (w == warp) warp_prefix = running;
      running = op(running, temp->warp_aggregates[w]);
    }
    aggregate = running;
    inclusive = warp == 0 ? v : op(warp_prefix, v);
    const T before = simd_shuffle_up(inclusive, ushort(1));
    exclusive = lane == 0 ? warp_prefix : before;
  }
  bool is_first() const { return rank == 0; }
  // Several items per thread (blocked: the thread's items are consecutive): the thread's own scan after the
  // block's exclusive scan of the threads' totals. input and output may be the same array.
  template <int ITEMS, typename Op> void InclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], Op op, thread T& block_aggregate) {
    T inclusive, exclusive;
    scan(ks_cub_thread_reduce(input, op), op, inclusive, exclusive, block_aggregate);
    output[0] = rank == 0 ? input[0] : op(exclusive, input[0]);
    for (int i = 1; i < ITEMS; ++i) output[i] = op(output[i - 1], input[i]);
  }
  template <int ITEMS, typename Op> void InclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  template <int ITEMS, typename Op>
  void ExclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], T initial_value, Op op, thread T& block_aggregate) {
    T inclusive, exclusive;
    scan(ks_cub_thread_reduce(input, op), op, inclusive, exclusive, block_aggregate);
    T running = rank == 0 ? initial_value : op(initial_value, exclusive);
    for (int i = 0; i < ITEMS; ++i) {
      const T item = input[i];
      output[i] = running;
      running = op(running, item);
    }
  }
  template <int ITEMS, typename Op> void ExclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], T initial_value, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  template <int ITEMS> void InclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS], thread T& block_aggregate) {
    InclusiveScan(input, output, cub::Sum(), block_aggregate);
  }
  template <int ITEMS> void InclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS]) { InclusiveScan(input, output, cub::Sum()); }
  template <int ITEMS> void ExclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS], thread T& block_aggregate) {
    ExclusiveScan(input, output, T(0), cub::Sum(), block_aggregate);
  }
  template <int ITEMS> void ExclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS]) {
    ExclusiveScan(input, output, T(0), cub::Sum());
  }
  // A running prefix (CUB's BlockPrefixCallbackOp, carried over tiles): as in CUB, the threads of the first warp call
  // the callback with the block's aggregate (each its own functor, whose state they carry), and the answer of thread 0
  // precedes every output of the block.
  template <typename P> T block_prefix(T aggregate, thread P& callback) {
    if (rank < 32) {
      const T prefix = callback(aggregate);
      if (rank == 0) temp->block_prefix = prefix;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    return temp->block_prefix;
  }
  template <typename Op, typename P> void InclusiveScan(T input, thread T& output, Op op, thread P& callback) {
    T exclusive, aggregate;
    scan(input, op, output, exclusive, aggregate);
    output = op(block_prefix(aggregate, callback), output);
  }
  template <typename Op, typename P> void ExclusiveScan(T input, thread T& output, Op op, thread P& callback) {
    T inclusive, aggregate;
    scan(input, op, inclusive, output, aggregate);
    const T prefix = block_prefix(aggregate, callback);
    output = rank == 0 ? prefix : op(prefix, output);
  }
  template <typename P> void InclusiveSum(T input, thread T& output, thread P& callback) {
    InclusiveScan(input, output, cub::Sum(), callback);
  }
  template <typename P> void ExclusiveSum(T input, thread T& output, thread P& callback) {
    ExclusiveScan(input, output, cub::Sum(), callback);
  }
  template <int ITEMS, typename Op, typename P>
  void InclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], Op op, thread P& callback) {
    T inclusive, exclusive, aggregate;
    scan(ks_cub_thread_reduce(input, op), op, inclusive, exclusive, aggregate);
    const T prefix = block_prefix(aggregate, callback);
    T running = rank == 0 ? prefix : op(prefix, exclusive);
    for (int i = 0; i < ITEMS; ++i) {
      running = op(running, input[i]);
      output[i] = running;
    }
  }
  template <int ITEMS, typename Op, typename P>
  void ExclusiveScan(thread T (&input)[ITEMS], thread T (&output)[ITEMS], Op op, thread P& callback) {
    T inclusive, exclusive, aggregate;
    scan(ks_cub_thread_reduce(input, op), op, inclusive, exclusive, aggregate);
    const T prefix = block_prefix(aggregate, callback);
    T running = rank == 0 ? prefix : op(prefix, exclusive);
    for (int i = 0; i < ITEMS; ++i) {
      const T item = input[i];
      output[i] = running;
      running = op(running, item);
    }
  }
  template <int ITEMS, typename P> void InclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS], thread P& callback) {
    InclusiveScan(input, output, cub::Sum(), callback);
  }
  template <int ITEMS, typename P> void ExclusiveSum(thread T (&input)[ITEMS], thread T (&output)[ITEMS], thread P& callback) {
    ExclusiveScan(input, output, cub::Sum(), callback);
  }
};

// A thread's place in its logical warp of W lanes: W consecutive lanes of a SIMD group, the last one ending where its
// SIMD group does (a partial last SIMD group, or a W that does not divide 32).
template <int W> struct ks_cub_logical_warp {
  uint lane, start, width;  // the lane in the logical warp, the warp's first lane in the SIMD group, its lanes
  ks_cub_logical_warp(uint3 position, uint3 threads) {
    const uint rank = ks_cub_rank(position, threads.x, threads.y), simd_lane = rank % 32;
    lane = simd_lane % W;
    start = simd_lane - lane;
    width = min(uint(W), min(32u, threads.x * threads.y * threads.z - (rank - simd_lane)) - start);
  }
};

template <typename T, int LOGICAL_WARP_THREADS = 32>
struct WarpReduce {
  struct TempStorage {};
  ks_cub_logical_warp<LOGICAL_WARP_THREADS> warp;
  WarpReduce(threadgroup TempStorage&, uint3 position, uint3 threads) : warp(position, threads) {}
  // The aggregate in the logical warp's lane 0 (CUB's result; other lanes: a partial).
  template <typename Op> T Reduce(T input, Op op, int valid_items) {
    return ks_cub_segment_reduce(input, op, warp.lane, uint(LOGICAL_WARP_THREADS), min(warp.width, uint(max(valid_items, 0))));
  }
  template <typename Op> T Reduce(T input, Op op) {
    return ks_cub_segment_reduce(input, op, warp.lane, uint(LOGICAL_WARP_THREADS), warp.width);
  }
  T Sum(T input, int valid_items) { return Reduce(input, cub::Sum(), valid_items); }
  T Sum(T input) { return Reduce(input, cub::Sum()); }
};

template <typename T, int LOGICAL_WARP_THREADS = 32>
struct WarpScan : ks_cub_scans<WarpScan<T, LOGICAL_WARP_THREADS>, T> {
  struct TempStorage {};
  ks_cub_logical_warp<LOGICAL_WARP_THREADS> warp;
  WarpScan(threadgroup TempStorage&, uint3 position, uint3 threads) : warp(position, threads) {}
  // The inclusive scan by lane within the logical warp, the exclusive one (the inclusive of the lane before; lane 0:
  // undefined, as in CUB), and the warp's aggregate (its last lane's inclusive) in every lane.
  template <typename Op> void scan(T input, Op op, thread T& inclusive, thread T& exclusive, thread T& aggregate) {
    T v = input;
    for (uint offset = 1; offset < uint(LOGICAL_WARP_THREADS); offset *= 2) {
      const T up = simd_shuffle_up(v, ushort(offset));
      if (warp.lane >= offset) v = op(up, v);
    }
    inclusive = v;
    exclusive = simd_shuffle_up(v, ushort(1));
    aggregate = simd_shuffle(v, ushort(warp.start + warp.width - 1));
  }
  bool is_first() const { return warp.lane == 0; }
};

// Blocked arrangement (a thread's items consecutive, thread after thread) for every algorithm but the striped
// one (item i of every thread, then item i + 1): the transposing algorithms reach it through shared memory.
template <int BLOCK_THREADS, int ITEMS, bool STRIPED> inline int ks_cub_item(uint rank, int i) {
  return STRIPED ? i * BLOCK_THREADS + int(rank) : int(rank) * ITEMS + i;
}
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockLoad {
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z };
  struct TempStorage {};
  uint rank;
  BlockLoad(threadgroup TempStorage&, uint3 position, uint3) : rank(ks_cub_rank(position, BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  int item(int i) const { return ks_cub_item<BLOCK_THREADS, ITEMS_PER_THREAD, ALGORITHM == BLOCK_LOAD_STRIPED>(rank, i); }
  template <typename P> void Load(P block_ptr, thread T (&items)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] = block_ptr[item(i)];
  }
  // Items past valid_items are left as they were.
  template <typename P> void Load(P block_ptr, thread T (&items)[ITEMS_PER_THREAD], int valid_items) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i)
      if (item(i) < valid_items) items[i] = block_ptr[item(i)];
  }
  template <typename P, typename D> void Load(P block_ptr, thread T (&items)[ITEMS_PER_THREAD], int valid_items, D oob_default) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] = item(i) < valid_items ? T(block_ptr[item(i)]) : T(oob_default);
  }
};
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockStore {
  enum { BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z };
  struct TempStorage {};
  uint rank;
  BlockStore(threadgroup TempStorage&, uint3 position, uint3) : rank(ks_cub_rank(position, BLOCK_DIM_X, BLOCK_DIM_Y)) {}
  int item(int i) const { return ks_cub_item<BLOCK_THREADS, ITEMS_PER_THREAD, ALGORITHM == BLOCK_STORE_STRIPED>(rank, i); }
  template <typename P> void Store(P block_ptr, thread T (&items)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) block_ptr[item(i)] = items[i];
  }
  template <typename P> void Store(P block_ptr, thread T (&items)[ITEMS_PER_THREAD], int valid_items) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i)
      if (item(i) < valid_items) block_ptr[item(i)] = items[i];
  }
};
}  // namespace cub
