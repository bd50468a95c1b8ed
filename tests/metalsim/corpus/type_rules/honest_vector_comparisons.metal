// expect: passes
// A comparison of vectors is a bool vector in Metal, whose true components convert to 1 (clang's ext vector
// comparisons give -1): constructors and casts of a comparison, a component of one, `auto` and bool4 variables,
// returned and passed comparisons, logical operators on them, and the scalar and template forms that must stay as
// they were (`N > 2` in templates and preprocessor conditions, `vec<float, 2>` in an argument, `<` in a loop,
// template ids joined by `||`, `&&` or followed by `?`).
#define WIDE 4
template <int N, bool Big = (N > 2)> int width() { return Big ? N : 0; }
bool4 positive(float4 v) { return v > 0.0f; }
template <typename M> float4 as_mask(M m) { return float4(m); }
// --- body ---
uint i = thread_position_in_grid.x;
float4 v = float4(a[i], -1.0f, 2.0f, 0.0f);
float4 mask = float4(v > 0.0f);
int4 counts = int4(v >= float4(0.0f));
half4 hmask = static_cast<half4>(v != 0.0f);
float4 cast_mask = (float4)(v < 1.0f);
auto gt = v > 0.5f;
bool4 lt = v < float4(0.5f);
bool4 both = (v > -2.0f) & (v < 3.0f);
float component = (v == 2.0f).z;
float4 passed = as_mask(v > 0.0f);
float4 kept = select(float4(0.0f), v, v > 0.0f);
#if WIDE > 2
int w = width<WIDE>() + width<(WIDE > 8) ? 1 : 3>() + width<sizeof(vec<float, 2>) / 4>();
#else
int w = -1;
#endif
static_assert(metal::is_same_v<float, float> || metal::is_same_v<float, half>, "float or half");
bool same = metal::is_same_v<float4, float4> && metal::is_same<int, int>::value;
int pick = metal::is_same_v<float, half> ? 1 : 2;
int total = 0;
for (int k = 0; k < 4; ++k) total += int(positive(v)[k]) + int(gt[k]) - int(lt[k] && both[k]);
bool ok = mask.y == 0.0f && mask.z == 1.0f && mask.x == (a[i] > 0.0f ? 1.0f : 0.0f) && all(counts.yzw == int3(0, 1, 1)) &&
          float(hmask.w) == 0.0f && float(hmask.y) == 1.0f && cast_mask.y == 1.0f && cast_mask.z == 0.0f &&
          float(gt.z) == 1.0f && all(both == bool4(a[i] > -2.0f && a[i] < 3.0f, true, true, true)) &&
          component == 1.0f && all(passed == mask) && kept.z == 2.0f && kept.y == 0.0f && w == 7 &&
          total == int(a[i] > 0.0f) + int(a[i] > 0.5f) + 1 + 1 - int(a[i] < 0.5f && a[i] > -2.0f) - 2 && same &&
          pick == 2;
o[i] = ok ? 2.0f * a[i] : -1000.0f;
