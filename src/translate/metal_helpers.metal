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
