// Device atomics (atomic_outputs) and threadgroup atomics.
threadgroup atomic_uint local_count;
threadgroup atomic<float> local_sum;
uint i = thread_position_in_grid.x;
uint lid = thread_index_in_threadgroup;
if (lid == 0) {
  atomic_store_explicit(&local_count, 0u, memory_order_relaxed);
  atomic_store_explicit(&local_sum, 0.0f, memory_order_relaxed);
}
threadgroup_barrier(mem_flags::mem_threadgroup);
uint bin = keys[i] % 8u;
atomic_fetch_add_explicit(&hist[bin], 1u, memory_order_relaxed);
atomic_fetch_add_explicit(&local_count, 1u, memory_order_relaxed);
atomic_fetch_add_explicit(&local_sum, 0.5f, memory_order_relaxed);
atomic_fetch_max_explicit(&hist[8], keys[i], memory_order_relaxed);
atomic_fetch_min_explicit(&hist[9], keys[i], memory_order_relaxed);
atomic_fetch_or_explicit(&hist[10], 1u << (keys[i] % 32u), memory_order_relaxed);
uint expected = atomic_load_explicit(&hist[11], memory_order_relaxed);
while (!atomic_compare_exchange_weak_explicit(&hist[11], &expected, expected + 2u, memory_order_relaxed,
                                              memory_order_relaxed)) {
}
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid == 0) {
  atomic_fetch_add_explicit(&hist[12], atomic_load_explicit(&local_count, memory_order_relaxed),
                            memory_order_relaxed);
  atomic_fetch_add_explicit(&hist[13], uint(atomic_load_explicit(&local_sum, memory_order_relaxed)),
                            memory_order_relaxed);
}
