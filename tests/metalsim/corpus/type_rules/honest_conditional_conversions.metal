// expect: passes
// The conditional operator applies Metal's usual arithmetic conversions: half or bfloat with float is a float
// (`c ? h : 1.0f`, `c ? 1.0f : h`), half with an integer a half, two halves a half; nested and chained conditionals
// (a chain of seven); lvalue conditionals of floats and of halves assigned to and bound to a reference, vector
// elements, arrays decaying to a pointer, one in a constant expression and one in template arguments as they are.
template <int N> int twice() { return 2 * N; }
template <typename T> T pick(bool c, T x) { return c ? x : T(0); }
// --- body ---
uint i = thread_position_in_grid.x;
half h = half(a[i]);
bfloat b = bfloat(a[i]);
float f = a[i];
bool c = (i % 2) == 0;
auto widened = c ? h : 1.0f;
auto mirrored = c ? 1.0f : h;
auto chained = i < 4 ? h : i < 8 ? 2.0f : i < 12 ? b : -1.0f;
float nested = c ? (i < 8 ? h : f) : /* a comment */ 3.0f;
auto kept = c ? h : 1;
auto int_first = c ? 1 : h;
float deep = i == 0 ? h : i == 1 ? b : i == 2 ? 1.0f : i == 3 ? h : i == 4 ? f : i == 5 ? b : i == 6 ? h : 0.0f;
auto both = c ? h : half(2.0f);
auto either = c ? b : f;
static_assert(is_same_v<decltype(widened), float> && is_same_v<decltype(mirrored), float>, "half with float is float");
static_assert(is_same_v<decltype(either), float>, "bfloat with float is float");
static_assert(is_same_v<decltype(kept), half> && is_same_v<decltype(int_first), half> && is_same_v<decltype(both), half>,
              "half with int or half is half");
float x = 0.0f, y = 0.0f;
(c ? x : y) = 5.0f;
half hx = h, hy = h;
(c ? hx : hy) = half(7.0f);
thread half& picked = c ? hy : hx;
float4 v = float4(a[i], 1.0f, 2.0f, 3.0f);
float element = c ? v.x : v.w;
float left[2] = {a[i], 0.0f}, right[2] = {0.0f, a[i]};
thread float* chosen = c ? left : right;
constexpr float k = true ? 4.0f : 1.0f;
const int two = twice<true ? 1 : 2>();
bool ok = widened == (c ? a[i] : 1.0f) && mirrored == (c ? 1.0f : a[i]) &&
          chained == (i < 4 ? a[i] : i < 8 ? 2.0f : i < 12 ? a[i] : -1.0f) && nested == (c ? a[i] : 3.0f) &&
          float(kept) == (c ? a[i] : 1.0f) && float(both) == (c ? a[i] : 2.0f) && either == a[i] &&
          (c ? x : y) == 5.0f && (c ? y : x) == 0.0f && float(picked) == a[i] && float(c ? hx : hy) == 7.0f && element == (c ? a[i] : 3.0f) && chosen[c ? 0 : 1] == a[i] &&
          float(int_first) == (c ? 1.0f : a[i]) && deep == (i <= 6 ? (i == 2 ? 1.0f : a[i]) : 0.0f) && k == 4.0f &&
          two == 2 && float(pick(c, h)) == (c ? a[i] : 0.0f);
o[i] = ok ? 2.0f * a[i] : -1000.0f;
