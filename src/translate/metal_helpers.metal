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
