// BUG: three out-of-bounds accesses on lines of their own (the buffers hold 8 floats): one in a header
// helper, one through an atomic function, one through a float4 read.
store_pair(out, 8, 1.0f);
device atomic_float* counter = (device atomic_float*)out;
atomic_fetch_add_explicit(counter + 12, 1.0f, memory_order_relaxed);
const device float4* a4 = (const device float4*)a;
out[0] = a4[4].y;
