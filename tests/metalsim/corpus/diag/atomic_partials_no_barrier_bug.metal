// BUG: every thread stores its partial into threadgroup atomics and the last thread sums them with no barrier
// between: in index order it runs last and finds every partial; on a GPU (here: the reversed schedule) it may not.
threadgroup atomic_uint partials[64];
uint lid = thread_position_in_threadgroup.x;
atomic_store_explicit(&partials[lid], as_type<uint>(a[lid]), memory_order_relaxed);
if (lid != 63) return;
float sum = 0.0f;
for (uint i = 0; i < 64; ++i) sum += as_type<float>(atomic_load_explicit(&partials[i], memory_order_relaxed));
out[0] = sum;
