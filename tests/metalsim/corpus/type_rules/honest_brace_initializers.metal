// expect: passes
// Brace initializers that Metal accepts: constants their type holds (int literals in a float vector, 0.1f, 2048 and
// 65504 in half, 256 in bfloat, a constexpr value), values of the element's own type or wider, and the constructors
// and casts that convert (int2(g), float4(k), half(x)); `half h = x` converts without braces. A comma between template
// arguments does not end an element (`scaled<half, 1>(h)`).
struct Pixel { int2 at; float value; };
template <typename T, int K> T scaled(T x) { return x * K; }
template <typename T> T first(T x) {
  T pair[2] = {x, T(0)};
  return pair[0];
}
// --- body ---
uint i = thread_position_in_grid.x;
constexpr int kTwo = 2;
float x = a[i];
float4 ones = {1, 1, 1, 1};
int2 at = {int(i), kTwo};
int2 also = int2(thread_position_in_grid.xy);
float4 k = float4(int(i));
half h = x;
half halves[4] = {h, half(x), 0.1f, 65504.0f};
half counts[3] = {2048, kTwo, -4096};
half2 nested[2] = {{1.0f, 2.0f}, {half(x), h}};
half m = {1.0f}, n{kTwo};
half picked[2] = {scaled<half, 1>(h), h};
bfloat b[2] = {256, 3.0e38f};
float widened[2] = {h, b[0]};
uint u[1] = {3};
Pixel p = {at, x};
bool ok = ones.w == 1.0f && also.x == int(i) && k.x == float(i) && float(halves[0]) == float(half(x)) &&
          float(counts[2]) == -4096.0f && float(nested[1].x) == float(h) && float(nested[0].y) == 2.0f &&
          float(m) + float(n) == 3.0f && float(b[0]) == 256.0f && widened[1] == 256.0f && u[0] == 3u && p.at.y == 2 &&
          first(x) == x && float(picked[0]) == float(h);
o[i] = ok ? 2.0f * p.value : -1000.0f;
