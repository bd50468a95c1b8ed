// Honest (must pass): ggml-metal's soft_max_4 style: float4 loads through a reinterpreted pointer, `tiisg`/`sgitg`
// names, a FOR_UNROLL macro over _Pragma, multi-line macros joined by line continuations, a `threadgroup float *`
// scratch pointer, `threads_per_threadgroup`; rows whose length is no multiple of 4 are not 16-byte aligned, so
// they take the scalar loops (a float4 load needs its alignment).
// grid: 64 * rows, 1, 1
// threadgroup: 64, 1, 1
#define FOR_UNROLL(x) _Pragma("clang loop unroll(full)") for (x)
#define REDUCE_ACROSS_SIMDGROUPS(value, op, identity, buf) \
  do {                                                     \
    if (tiisg == 0) (buf)[sgitg] = (value);                \
    threadgroup_barrier(mem_flags::mem_threadgroup);       \
    (value) = identity;                                    \
    FOR_UNROLL(short i = 0; i < 2; ++i)                    \
      (value) = op((value), (buf)[i]);                     \
    threadgroup_barrier(mem_flags::mem_threadgroup);       \
  } while (false)

inline float add_f(float a, float b) { return a + b; }
inline float max_f(float a, float b) { return metal::max(a, b); }
// --- body ---
threadgroup float shmem[2];
threadgroup float* buf = shmem;
const uint tgpig = threadgroup_position_in_grid.x;
const ushort tpitg = ushort(thread_position_in_threadgroup.x);
const ushort ntg = ushort(threads_per_threadgroup.x);
const ushort tiisg = ushort(thread_index_in_simdgroup);
const ushort sgitg = ushort(simdgroup_index_in_threadgroup);
const int ne00_4 = cols % 4 == 0 ? cols / 4 : 0;
const device float* src = x + size_t(tgpig) * cols;
device float* dst = y + size_t(tgpig) * cols;
const device float4* src4 = (const device float4*)src;

float4 lmax4 = -INFINITY;
for (int i00 = tpitg; i00 < ne00_4; i00 += ntg) lmax4 = fmax(lmax4, src4[i00]);
float lmax = metal::max(metal::max(lmax4[0], lmax4[1]), metal::max(lmax4[2], lmax4[3]));
for (int i00 = 4 * ne00_4 + tpitg; i00 < cols; i00 += ntg) lmax = metal::max(lmax, src[i00]);
float max_val = simd_max(lmax);
REDUCE_ACROSS_SIMDGROUPS(max_val, max_f, -INFINITY, buf);

float4 lsum4 = 0.0f;
for (int i00 = tpitg; i00 < ne00_4; i00 += ntg) lsum4 += exp(src4[i00] - max_val);
float lsum = lsum4[0] + lsum4[1] + lsum4[2] + lsum4[3];
for (int i00 = 4 * ne00_4 + tpitg; i00 < cols; i00 += ntg) lsum += exp(src[i00] - max_val);
float sum = simd_sum(lsum);
REDUCE_ACROSS_SIMDGROUPS(sum, add_f, 0.0f, buf);

const float inv_sum = 1.0f / sum;
device float4* dst4 = (device float4*)dst;
for (int i00 = tpitg; i00 < ne00_4; i00 += ntg) dst4[i00] = exp(src4[i00] - max_val) * inv_sum;
for (int i00 = 4 * ne00_4 + tpitg; i00 < cols; i00 += ntg) dst[i00] = exp(src[i00] - max_val) * inv_sum;
