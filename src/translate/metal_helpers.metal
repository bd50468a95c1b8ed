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
// helper: ks_ffs
// __ffs: 1 + the index of the least significant set bit, 0 for 0.
template <typename T> inline int ks_ffs(T x) {
  return x == 0 ? 0 : int(ctz(x)) + 1;
}
// helper: ks_cbrt
inline float ks_cbrt(float x) {
  return copysign(pow(fabs(x), 1.0f / 3.0f), x);
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
// helper: ks_erf
// erff, erfcf, normcdff: Metal's standard library has no erf. erfc from the Chebyshev-fitted
// t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2) (fractional error below 1.2e-7 for every z >= 0); erf from
// its Maclaurin series where 1 - erfc would cancel (|x| < 0.5).
inline float ks_erfc(float x) {
  const float z = fabs(x), t = 1.0f / (1.0f + 0.5f * z);
  const float p = -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f + t * (-0.18628806f +
                  t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  const float r = t * exp(-z * z + p);
  return x >= 0.0f ? r : 2.0f - r;
}
inline float ks_erf(float x) {
  if (fabs(x) >= 0.5f) return copysign(1.0f - ks_erfc(fabs(x)), x);
  const float x2 = x * x;  // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
  return 1.12837917f * x * (1.0f + x2 * (-1.0f / 3 + x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216 - x2 / 1320)))));
}
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
// __dp4a: the dot product of the four signed bytes of a and b, plus c (int8 kernels).
inline int ks_dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += ((a << (24 - 8 * i)) >> 24) * ((b << (24 - 8 * i)) >> 24);
  return c;
}
// helper: ks_swap
// std::swap(a, b) as ks_swap(&(a), &(b)): pointer types carry each operand's address space (thread,
// threadgroup, device), where a reference parameter would need one overload per space.
template <typename P, typename Q> inline void ks_swap(P a, Q b) {
  const auto held = *a;
  *a = *b;
  *b = held;
}
