// expect: passes
// What Metal accepts: vector conversions through an alias, an alias template or a template parameter convert each
// component (clang's casts would reinterpret the bits); a template parameter's constant, conversion function and
// array reference parameter; packed vector components by name and arithmetic on them; half with integer operands
// (comparisons, `c ? h : 0`); `h += f` rounded once; and a float or an int compound-assigned a half (`f += h`,
// computed in float).
typedef int4 I4;
template <typename T> using Vec4 = vec<T, 4>;
template <typename V, typename U> V convert(U u) { return V(u); }
template <typename T> struct Boxed {
  T value;
  operator T() const { return value; }
};
template <typename T> T plus_zero(T x) {
  constexpr T zero = T(0);
  return x + zero;
}
template <typename T> T first_of(thread T (&values)[2]) { return values[0]; }
struct Particle { packed_float3 pos; float mass; };
// --- body ---
uint i = thread_position_in_grid.x;
using H4 = vec<half, 4>;
float4 f = float4(a[i] * 2.0f, 1.5f, -1.0f, 3.0f);
I4 k = I4(f);
float4 back = convert<float4>(k);
H4 h = H4(f);
Vec4<int> k4 = Vec4<int>(f);
float boxed = Boxed<float>{a[i]};
float pair[2] = {a[i], 0.0f};
Particle p;
p.pos = float3(back.x, float(h.y), 2.0f);
p.pos.z += 1.0f;
float3 q = p.pos * 2.0f + -p.pos;
half s = half(a[i]);
half kept = (i & 1) ? s : 0;
half acc = half(1000.0f);
acc += 0.2501f;
float total = 0.25f;
total += s;
total *= s;
int count = 1;
count += s;
bool ok = all(k == int4(int(a[i] * 2.0f), 1, -1, 3)) && all(back == float4(k)) && all(k4 == k) &&
          float(h.y) == 1.5f && boxed == a[i] && first_of(pair) == a[i] && p.pos.x == back.x && p.pos.g == 1.5f && q.z == 3.0f &&
          (s < 1) == (a[i] < 1.0f) && (s != 3u) == (a[i] != 3.0f) && float(kept) == ((i & 1) ? a[i] : 0.0f) &&
          float(acc) == 1000.5f && total == (0.25f + float(s)) * float(s) && count == int(1.0f + float(s));
o[i] = ok ? plus_zero(float(k.x)) : -1000.0f;
