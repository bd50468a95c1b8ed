// expect: passes
// What Metal accepts of the same: a header helper taking a threadgroup pointer (the kernel declares the memory),
// threadgroup memory stored by one thread before a barrier, SIMD sums of numbers (a bool counted as uint), shuffles
// of vectors and of bools (MLX's utils.h overloads them), and a struct exchanged member by member.
struct Sample { float value; int index; };
inline float tile_sum(const threadgroup float* tile, uint n) {
  float s = 0;
  for (uint k = 0; k < n; ++k) s += tile[k];
  return s;
}
inline Sample shuffle_sample(Sample s, ushort lane) {
  return Sample{simd_shuffle(s.value, lane), simd_shuffle(s.index, lane)};
}
// --- body ---
uint i = thread_position_in_grid.x;
threadgroup float tile[16];
threadgroup float total;
tile[i] = a[i];
if (i == 0) total = 0.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
uint positives = simd_sum(uint(a[i] > 0.0f));
int2 pair_sum = quad_sum(int2(1, int(i)));
float2 mine = simd_shuffle(float2(a[i], 2 * a[i]), ushort(i));
bool positive = simd_shuffle_down(a[i] > 0.0f, ushort(0));
Sample own = shuffle_sample(Sample{a[i], int(i)}, ushort(i));
bool ok = positives == 9 && pair_sum.x == 4 && tile_sum(tile, 16) == 12.0f && mine.y == 2 * a[i] &&
          positive == (a[i] > 0.0f) && own.value == a[i] && own.index == int(i) && total == 0.0f;
o[i] = ok ? mine.y : -1000.0f;
