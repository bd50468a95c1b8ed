// expect: passes
// <metal_type_traits> as MLX's kernels use it (tag dispatch on metal::true_type / false_type, a trait deriving from
// metal::bool_constant, integral_constant, is_integral, is_arithmetic, decay_t, remove_addrspace_t), constexpr half and
// bfloat constants (a program-scope table, a function's constexpr local, one of a template's type) and M_PI_H.
static constant constexpr half kHalves[2] = {1, 2};
static constant constexpr bfloat kOne = 1.0f;
template <typename T> struct is_wide : metal::bool_constant<(sizeof(T) > 2)> {};
float scale(float x, metal::true_type) { return 2.0f * x; }
float scale(float x, metal::false_type) { return 0.0f * x; }
template <typename T> float unit() {
  constexpr T one = T(1);
  return float(one);
}
// --- body ---
uint i = thread_position_in_grid.x;
using Value = metal::decay_t<metal::remove_addrspace_t<const device float&>>;
static_assert(metal::is_arithmetic<half>::value && metal::is_integral<uint>::value, "traits");
static_assert(metal::integral_constant<int, 2>::value == 2 && is_wide<Value>::value && !is_wide<half>::value, "sizes");
const float pi_ratio = float(M_PI_H) / 3.140625f;  // M_PI_H is pi rounded to half: 3.140625
o[i] = scale(a[i], metal::true_type{}) * float(kHalves[1] - kHalves[0]) * float(kOne) * unit<half>() * pi_ratio +
       scale(a[i], metal::false_type{});
