// Honest (must pass): a row's statistics as a struct in threadgroup memory with address-space-qualified methods
// (`void reset() threadgroup`, `float inverse_sum() const threadgroup`), a thread-side accumulator struct with
// `thread` methods, an `enum class` choosing the pass, `as_type` for the -inf bit pattern, 4 SIMD groups per row.
// grid: 128 * rows, 1, 1
// threadgroup: 128, 1, 1
enum class Pass : uint { max_value, exp_sum };

struct RowStats {
  float max_value;
  float sum;
  void reset() threadgroup {
    max_value = as_type<float>(0xff800000u);  // -inf
    sum = 0.0f;
  }
  float inverse_sum() const threadgroup { return 1.0f / sum; }
};

struct Accumulator {
  float value;
  METAL_FUNC void add(float v, Pass pass) thread { value = pass == Pass::max_value ? metal::max(value, v) : value + v; }
  METAL_FUNC float reduce(Pass pass) const thread { return pass == Pass::max_value ? simd_max(value) : simd_sum(value); }
};
// --- body ---
threadgroup RowStats stats;
threadgroup float partials[4];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_index_in_threadgroup;
uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
if (lid == 0) stats.reset();

Accumulator acc{-INFINITY};
for (int c = lid; c < cols; c += 128) acc.add(xr[c], Pass::max_value);
float m = acc.reduce(Pass::max_value);
if (lane == 0) partials[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid == 0) stats.max_value = max(max(partials[0], partials[1]), max(partials[2], partials[3]));
threadgroup_barrier(mem_flags::mem_threadgroup);
m = stats.max_value;

acc.value = 0.0f;
for (int c = lid; c < cols; c += 128) acc.add(exp(xr[c] - m), Pass::exp_sum);
float s = acc.reduce(Pass::exp_sum);
if (lane == 0) partials[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid == 0) stats.sum = partials[0] + partials[1] + partials[2] + partials[3];
threadgroup_barrier(mem_flags::mem_threadgroup);
const float inv = stats.inverse_sum();
for (int c = lid; c < cols; c += 128) y[size_t(row) * cols + c] = exp(xr[c] - m) * inv;
