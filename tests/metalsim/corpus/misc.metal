// Less common features: bit intrinsics, modulo shuffles, quad_is_first, active
// masks after an early exit, limits, threadgroup pointers and atomic exchange.
threadgroup float tile[40];
threadgroup atomic_uint slot;
uint t = thread_index_in_threadgroup;
uint lane = thread_index_in_simdgroup;
device float* o = out + t * 12;
if (t == 0) atomic_store_explicit(&slot, 0u, memory_order_relaxed);
tile[t] = float(t);
threadgroup_barrier(mem_flags::mem_threadgroup);
threadgroup float* p = tile + 1;
const threadgroup float& r = p[t % 31];
o[0] = r;
o[1] = float(insert_bits(0xF0F0u, t, 4u, 4u));
o[2] = float(reverse_bits(t) >> 26);
o[3] = float(rotate(uchar(t + 1), uchar(3)));
o[4] = simd_shuffle_and_fill_down(float(t), -1.0f, ushort(3), ushort(8));
o[5] = quad_is_first() ? 1.0f : 0.0f;
o[6] = isnan(numeric_limits<float>::quiet_NaN()) && !isinf(numeric_limits<half>::max()) ? 1.0f : 0.0f;
o[7] = fmod(float(t), 3.0f) + float(Limits<int>::max == 2147483647);
uint prev = atomic_exchange_explicit(&slot, t + 1, memory_order_relaxed);
o[8] = prev <= 32u ? 1.0f : 0.0f;
o[9] = float(bfloat16_t(float(t) + 0.3f));
if (t >= 20) return;
o[10] = float(uint64_t(simd_active_threads_mask()));
o[11] = float(ushort(quad_active_threads_mask()));
