// OK: the same partials with the barrier that orders them: every schedule gives the same sum. A counter the
// threads increment (order-dependent values, an order-independent total) and a histogram beside it.
threadgroup atomic_uint partials[64];
threadgroup atomic_uint count;
threadgroup atomic_uint bins[4];
uint lid = thread_position_in_threadgroup.x;
if (lid == 0) atomic_store_explicit(&count, 0u, memory_order_relaxed);
if (lid < 4) atomic_store_explicit(&bins[lid], 0u, memory_order_relaxed);
atomic_store_explicit(&partials[lid], as_type<uint>(a[lid]), memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
atomic_fetch_add_explicit(&count, 1u, memory_order_relaxed);
atomic_fetch_add_explicit(&bins[uint(a[lid]) % 4], 1u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid < 4) out[1 + lid] = float(atomic_load_explicit(&bins[lid], memory_order_relaxed));
if (lid == 5) out[5] = float(atomic_load_explicit(&count, memory_order_relaxed));
if (lid != 63) return;
float sum = 0.0f;
for (uint i = 0; i < 64; ++i) sum += as_type<float>(atomic_load_explicit(&partials[i], memory_order_relaxed));
out[0] = sum;
