// expect: passes
// Every conversion here stays in one address space: spaces written out, deduced by auto or by a template parameter,
// thread pointers to thread memory, casts that keep the space, conditionals between pointers into one space, methods
// declared for the space of the objects they are called on; a name declared with two spaces is left alone.
constant float kTwo[1] = {2.0f};
template <typename T> inline T first(T* x) { return x[0]; }
template <int K, typename P> inline float scaled_first(P x) { return K * x[0]; }
template <int K> inline float scaled_at(const device float* x, uint k) { return K * x[k]; }
inline float from_device(const device float* x, int k) { return x[k]; }
inline void add_into(thread float& acc, float v) { acc += v; }
inline float sum2(const float* x) { const float* y = x; return y[0] + y[1]; }
inline const device float* shifted(const device float* x, uint k) { return x + k; }
struct Tally {
  float total;
  void add(float v) threadgroup { total += v; }
  float get() const constant { return total; }
  float doubled() const { return 2 * total; }
};
constant Tally kTally[1] = {{1.0f}};
struct Cursor {
  device float* p;
  float get() const { return p[0]; }
};
// --- body ---
uint i = thread_position_in_grid.x;
const device float* row = shifted(a, i);
auto same = a + i;
device float& out = o[i];
auto& also_out = o[i];
float local[2] = {row[0], same[0]};
float* lp = local;
const thread float* cp = &local[1];
threadgroup float tile[16];
threadgroup float* tp = tile;
tp[i] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
auto half_tile = i < 8 ? tile : tile + 8;
threadgroup float* tile_half = half_tile;
const device float* either = i % 2 ? a + i : row;
float* either_local = i % 2 ? lp : local + 1;
const device float4* quads = (const device float4*)a;
auto pairs = reinterpret_cast<const device float2*>(a);
const constant float* two = kTwo;
float acc = 0;
add_into(acc, first(lp) + first(a + i) - 2 * from_device(a, i));
add_into(acc, scaled_first<3>(a + i) + scaled_first<1>(tp + i) + scaled_first<2>(lp) - scaled_at<4>(a, i) - 2 * local[0]);
Cursor c{o + i};
Cursor d = {o + i};
{ const device float* q = a; acc += q[i] - a[i]; }
{ const float* q = local; acc += q[0] - local[0]; }
acc += tile_half[i % 8] - tile[i] + either[0] - a[i] + either_local[0] * 0;
float check = quads[i / 4][i % 4] + pairs[i / 2][i % 2] + cp[0] + tile[i] - 3 * a[i] + sum2(local) - 2 * a[i];
threadgroup Tally shared_tally;
Tally own{a[i]};
if (i == 0) {
  shared_tally.total = 0.0f;
  shared_tally.add(kTally[0].get() - 1.0f);
}
out = two[0] * a[i] + acc + check * 0 + (own.doubled() - 2 * a[i]);
also_out = out + c.get() - d.get();
