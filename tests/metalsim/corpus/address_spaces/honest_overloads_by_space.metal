// expect: passes
// Overloads that differ in address spaces only, distinct functions in Metal, each called with memory of its own space:
// pointers to device, threadgroup, thread and constant memory, a prototype before its definition, references in a
// template pair, explicit template arguments, an overload of the same name with other parameters, calls as
// statements after `else`, and overloads in a namespace called by their qualified name.
constant float kTable[4] = {10.0f, 20.0f, 30.0f, 40.0f};
float load(device const float* p, uint i) { return p[i]; }
float load(threadgroup const float* p, uint i);
float load(thread const float* p, uint i) { return p[i] + 1000.0f; }
float load(constant float* p, uint i) { return p[i] + 2000.0f; }
float load(float x) { return x * 10.0f; }
float load(threadgroup const float* p, uint i) { return p[i] + 100.0f; }
template <typename T> T twice(const device T& x) { return 2 * x; }
template <typename T> T twice(const thread T& x) { return 3 * x; }
void put(device float* p, float v) { p[0] = v; }
void put(threadgroup float* p, float v) { p[0] = v + 1.0f; }
namespace io {
float peek(device const float* p) { return p[0]; }
float peek(threadgroup const float* p) { return p[0] + 3000.0f; }
}
template <int K> float scale(device const float* p) { return K * p[0]; }
template <int K> float scale(threadgroup const float* p) { return -K * p[0]; }
// --- body ---
threadgroup float tile[16];
uint i = thread_position_in_grid.x;
tile[i] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
threadgroup float scratch[16];
if (i >= 16) put(o + i, 0.0f);
else put(&scratch[i], a[i]);
float local[2] = {a[i], 0.0f};
float x = a[i];
bool ok = load(a, i) == a[i] && load(tile, i) == a[i] + 100.0f && load(local, 0) == a[i] + 1000.0f &&
          load(kTable, i % 4) == kTable[i % 4] + 2000.0f && load(2.0f) == 20.0f && twice(a[i]) == 2 * a[i] &&
          twice(x) == 3 * a[i] && io::peek(a + i) == a[i] && ::io::peek(&tile[i]) == a[i] + 3000.0f && scratch[i] == a[i] + 1.0f && scale<2>(a + i) == 2 * a[i] && scale<2>(&tile[i]) == -2 * a[i];
o[i] = ok ? 2.0f * a[i] : -1000.0f;
