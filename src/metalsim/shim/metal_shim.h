// Metal Shading Language subset for host compilation by clang++.
// Compiled (as a precompiled header) into every metalsim kernel .so. Kernel
// text is first rewritten by metalsim (address spaces removed, threadgroup
// variables moved to a per-threadgroup arena, vector constructors turned into
// __ms_make calls, float literals given an f suffix).
#pragma once
// As Metal 3.1 compilers define it: kernels that test it see a Metal compiler here too.
#define __METAL_VERSION__ 310
#include <stddef.h>
#include <stdint.h>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>
#include "metalsim_abi.h"

// Functions the -fsanitize=thread instrumentation must skip (no_sanitize
// would still instrument atomics).
#define MS_NOSAN __attribute__((disable_sanitizer_instrumentation))
#define MS_NOSAN_CALL __attribute__((disable_sanitizer_instrumentation, noinline))
#define METAL_FUNC inline __attribute__((always_inline))
// The function (with its template arguments) called through ::metal::__ms_space_call: a generic lambda whose return
// type drops it from overload resolution where the call does not compile.
#define __MS_SPACE_CALLEE(...)                                                                 \
  [](auto&&... __ms_a) -> decltype(__VA_ARGS__(static_cast<decltype(__ms_a)&&>(__ms_a)...)) {  \
    return __VA_ARGS__(static_cast<decltype(__ms_a)&&>(__ms_a)...);                            \
  }
#define MLX_MTL_PRAGMA_UNROLL _Pragma("clang loop unroll(full)")
// Call-site identity of a barrier or SIMD-group function (line << 12 | section << 10 | column; the section, from
// the #line file names of the generated source, is 1 for the header, 2 for the body, 0 elsewhere, so that
// diagnostics name "header line N" or "body line N"), a distinct type so that integer arguments never bind to it.
#define MS_SITE ::metal::__site_t __site = ::metal::__site_t{((uint32_t)__builtin_LINE() << 12) | \
    (::metal::__site_section(__builtin_FILE()) << 10) | ((uint32_t)__builtin_COLUMN() & 1023u)}

extern "C" {
extern const ms_runtime* metalsim_rt;
extern int metalsim_checking;
}

typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;

namespace metal {

struct __site_t {
  uint32_t v;
};
constexpr bool __starts_with(const char* s, const char* prefix) {
  return *prefix == 0 || (*s == *prefix && __starts_with(s + 1, prefix + 1));
}
constexpr uint32_t __site_section(const char* file) {
  return __starts_with(file, "metalsim-header") ? 1u : __starts_with(file, "metalsim-body") ? 2u : 0u;
}

using std::enable_if_t;
using std::is_same_v;
using std::conditional_t;
using std::is_integral_v;
using std::is_signed_v;
using std::is_unsigned_v;
using std::remove_cv_t;
using std::is_same;
using std::enable_if;
using std::conditional;
// The rest of <metal_type_traits> (C++14's traits and their _t/_v forms) where half and bfloat, classes here, do not
// change the answer; is_floating_point and is_arithmetic follow the 16-bit floats.
using std::integral_constant;
using std::bool_constant;
using std::true_type;
using std::false_type;
using std::is_void;
using std::is_void_v;
using std::is_integral;
using std::is_pointer;
using std::is_pointer_v;
using std::is_reference;
using std::is_reference_v;
using std::is_lvalue_reference;
using std::is_rvalue_reference;
using std::is_const;
using std::is_const_v;
using std::is_volatile;
using std::is_array;
using std::is_array_v;
using std::is_enum;
using std::is_enum_v;
using std::is_convertible;
using std::is_convertible_v;
using std::is_base_of;
using std::is_base_of_v;
using std::remove_const;
using std::remove_const_t;
using std::remove_volatile;
using std::remove_volatile_t;
using std::remove_cv;
using std::remove_reference;
using std::remove_reference_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::remove_extent;
using std::remove_extent_t;
using std::add_const;
using std::add_const_t;
using std::add_pointer;
using std::add_pointer_t;
using std::decay;
using std::decay_t;
using std::make_signed;
using std::make_signed_t;
using std::make_unsigned;
using std::make_unsigned_t;
using std::underlying_type;
using std::underlying_type_t;
using std::void_t;
// Address spaces are removed from the kernel's text here: a type without one is itself.
template <class T> struct remove_addrspace { using type = T; };
template <class T> using remove_addrspace_t = T;

// ---------------------------------------------------------------- half, bfloat
constexpr uint32_t __f2u(float f) { return __builtin_bit_cast(uint32_t, f); }
constexpr float __u2f(uint32_t u) { return __builtin_bit_cast(float, u); }

constexpr uint16_t __float_to_half_bits(float f) {
  uint32_t x = __f2u(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // overflow to inf
  if (ax < 0x38800000u) {  // subnormal or zero: let the FPU round
    float r = __u2f(ax) + 0.5f;  // 0.5 = 2^-1: ulp of halfs below 2^-14 is 2^-24
    return (uint16_t)(sign | (__f2u(r) - 0x3f000000u));
  }
  uint32_t mant_odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent, round to nearest even
  return (uint16_t)(sign | (ax >> 13));
}
constexpr float __half_bits_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  if (em >= 0x7c00u) return __u2f(sign | 0x7f800000u | ((uint32_t)(em & 0x3ffu) << 13));
  if (em < 0x0400u) return __u2f(sign) + (sign ? -1.0f : 1.0f) * (float)em * 5.9604644775390625e-8f;
  return __u2f(sign | ((em << 13) + 0x38000000u));
}
constexpr uint16_t __float_to_bf16_bits(float f) {
  uint32_t x = __f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

// Rounding to odd: where a value is not exact in the type, the one of its two neighbours whose last bit is 1. A value
// so rounded to at least two more bits than a narrower type rounds to that type (to nearest even) as the exact value
// would, where rounding to nearest twice can land on a tie first: an int to bfloat through float, a half literal.
constexpr float __float_round_odd(double d) {
  float f = (float)d;
  if ((double)f != d && __builtin_isfinite(f) && (__f2u(f) & 1u) == 0)
    f = __u2f(__f2u(f) + (__builtin_fabs(d) > __builtin_fabs((double)f) ? 1u : -1u));
  return f;
}
// In integers (a double's conversion to a 128-bit one would call libgcc): the 53 leading bits of the magnitude, the
// last one set where any bit below them is.
template <class I> constexpr double __double_round_odd(I i) {
  const bool negative = i < 0;
  const unsigned long long magnitude = negative ? 0ull - (unsigned long long)i : (unsigned long long)i;
  if (magnitude < (1ull << 53)) return negative ? -(double)magnitude : (double)magnitude;
  const int shift = 64 - __builtin_clzll(magnitude) - 53;
  unsigned long long kept = magnitude >> shift;
  if (magnitude & ((1ull << shift) - 1)) kept |= 1u;
  const double d = (double)kept * (double)(1ull << shift);
  return negative ? -d : d;
}

// half and bfloat as Metal's arithmetic types: an integer operand converts to them (`h < 1`, `h * 2`, `c ? h : 0`
// are half), a float operand makes the operation float (`h + f`), and a compound assignment computes in float and
// rounds once (`h += f` is half(float(h) + f)). They convert implicitly to float only and explicitly to integers
// (`int(h)`, `if (h)`): were `half -> int` implicit too, `c ? h : 0` could convert either way and not compile.
#define MS_FP16_COMPOUND(NAME, OP)                                                         \
  NAME& operator OP##=(float o) { return *this = NAME(float(*this) OP o); }                 \
  template <class I, enable_if_t<is_integral_v<I>, int> = 0>                                \
  NAME& operator OP##=(I o) { return *this OP##= float(NAME(o)); }
// One binary operator: SAME is its result for two NAMEs (and a NAME with an integer), MIXED with a float.
#define MS_FP16_BINARY(NAME, OP, SAME, MIXED)                                              \
  inline SAME operator OP(NAME a, NAME b) { return SAME(float(a) OP float(b)); }            \
  inline MIXED operator OP(NAME a, float b) { return float(a) OP b; }                       \
  inline MIXED operator OP(float a, NAME b) { return a OP float(b); }                       \
  template <class I, enable_if_t<is_integral_v<I>, int> = 0>                                \
  inline SAME operator OP(NAME a, I b) { return a OP NAME(b); }                             \
  template <class I, enable_if_t<is_integral_v<I>, int> = 0>                                \
  inline SAME operator OP(I a, NAME b) { return NAME(a) OP b; }
// Implicitly to float only, by a conversion function template deduced to its target: `f += h` (-=, *=, /=; an int's
// too) then has the built-in float += float alone (converting to every floating type made the float, double and long
// double forms equally good, an ambiguity a Mac, where half and bfloat are built-in arithmetic types, does not have),
// and `c ? h : 0` finds no implicit conversion to int (a plain `operator float()` would reach int through float).
#define MS_FP16_CLASS(NAME, TOBITS, FROMBITS)                                              \
  struct NAME {                                                                           \
    uint16_t bits;                                                                        \
    NAME() = default;                                                                     \
    constexpr NAME(float f) : bits(TOBITS(f)) {}                                          \
    /* a half literal (`1.000488281251h` is half(1.000488281251)), rounded once */         \
    constexpr NAME(double d) : bits(TOBITS(__float_round_odd(d))) {}                      \
    template <class I, enable_if_t<is_integral_v<I>, int> = 0>                            \
    constexpr NAME(I i) : bits(TOBITS(__float_round_odd(__double_round_odd(i)))) {}       \
    template <class F, enable_if_t<is_same_v<F, float>, int> = 0>                         \
    constexpr operator F() const { return FROMBITS(bits); }                               \
    template <class I, enable_if_t<is_integral_v<I>, int> = 0>                            \
    explicit constexpr operator I() const { return (I)FROMBITS(bits); }                   \
    MS_FP16_COMPOUND(NAME, +) MS_FP16_COMPOUND(NAME, -)                                   \
    MS_FP16_COMPOUND(NAME, *) MS_FP16_COMPOUND(NAME, /)                                   \
    NAME operator-() const { NAME r; r.bits = bits ^ 0x8000u; return r; }                 \
    NAME operator+() const { return *this; }                                              \
    NAME& operator++() { return *this += 1.0f; }                                          \
    NAME operator++(int) { NAME t = *this; *this += 1.0f; return t; }                     \
  };                                                                                      \
  MS_FP16_BINARY(NAME, +, NAME, float) MS_FP16_BINARY(NAME, -, NAME, float)               \
  MS_FP16_BINARY(NAME, *, NAME, float) MS_FP16_BINARY(NAME, /, NAME, float)               \
  MS_FP16_BINARY(NAME, <, bool, bool) MS_FP16_BINARY(NAME, >, bool, bool)                 \
  MS_FP16_BINARY(NAME, <=, bool, bool) MS_FP16_BINARY(NAME, >=, bool, bool)               \
  MS_FP16_BINARY(NAME, ==, bool, bool) MS_FP16_BINARY(NAME, !=, bool, bool)

MS_FP16_CLASS(half, __float_to_half_bits, __half_bits_to_float)
MS_FP16_CLASS(bfloat, __float_to_bf16_bits, [](uint16_t b) { return __u2f((uint32_t)b << 16); })
#undef MS_FP16_CLASS
#undef MS_FP16_BINARY
#undef MS_FP16_COMPOUND

// The operands of a conditional operator (conditionals.cpp): `c ? (__ms_arm_first<decltype((y))>{}, x) :
// (__ms_arm_second<decltype((x))>{}, y)`. Metal's usual arithmetic conversions make `c ? h : 1.0f` a float and
// `c ? h : 1` a half, where both conversions between half and float are implicit here and the host compiler would call
// the first ambiguous. A half or bfloat x beside another type becomes an __ms_fp16_arm, which converts to float or to
// its own type and from nothing, so that the other operand's type decides; y, knowing x's type, becomes float beside a
// float x, or x's type where it is an integer beside a half or bfloat x. Any other operand has no such comma
// operator, and the built-in one leaves it as it is (an lvalue, two halves' too, a vector's element, an array).
template <class T> inline constexpr bool __ms_is_fp16 = is_same_v<T, half> || is_same_v<T, bfloat>;
template <class T> struct __ms_fp16_arm {
  T value;
  template <class F, enable_if_t<is_same_v<F, float> || is_same_v<F, T>, int> = 0>
  constexpr operator F() const { return F(value); }
};
// Second's type is void where the rewrite did not copy it (it holds a conditional itself).
template <class Second = void> struct __ms_arm_first {
  template <class X, class A = std::remove_cvref_t<X>,
            enable_if_t<__ms_is_fp16<A> && !is_same_v<std::remove_cvref_t<Second>, A>, int> = 0>
  friend constexpr __ms_fp16_arm<A> operator,(__ms_arm_first, const X& x) { return {x}; }
};
template <class First> struct __ms_arm_second {
  using A = std::remove_cvref_t<First>;
  template <class X, class B = std::remove_cvref_t<X>,
            enable_if_t<(__ms_is_fp16<A> && is_integral_v<B>) || (is_same_v<A, float> && __ms_is_fp16<B>), int> = 0>
  friend constexpr auto operator,(__ms_arm_second, const X& x) {
    if constexpr (__ms_is_fp16<A>) return A(x);
    else return float(x);
  }
};

// Narrowing in a brace initializer of half or bfloat (`half a[2] = {x[i], 1.0f}`): built-in types on a Mac, where
// list-initialization refuses a non-constant float or integer and a constant the type does not hold, as it does for
// `int a[1] = {f}`; classes here, whose converting constructors the host compiler never checks. metalsim passes each
// element of such an initializer through __ms_braced_half or __ms_braced_bfloat (rewrite.cpp), which return it
// unchanged; diagnose_if makes the compile fail at the element's line. Other types (half, vectors) pass as they are.
// A multi-component swizzle of a half, bfloat or bool vector (a proxy object, below).
template <class T, int N, int... I> struct __swz;
template <class S> inline constexpr bool __is_swz = false;
template <class T, int N, int... I> inline constexpr bool __is_swz<__swz<T, N, I...>> = true;
constexpr bool __ms_finite(float v) { return v - v == 0; }
// A float constant fits unless it rounds past the largest finite value (65504, bfloat's 0x7f7f).
constexpr bool __ms_half_holds(float v) { return !__ms_finite(v) || (v < 65520.0f && v > -65520.0f); }
constexpr bool __ms_bfloat_holds(float v) {
  return !__ms_finite(v) || (v < __builtin_bit_cast(float, 0x7f7f8000u) && v > -__builtin_bit_cast(float, 0x7f7f8000u));
}
// An integer constant fits only if converting it back gives it again: at most `digits` significant bits.
template <class I> constexpr bool __ms_exact_in(I v, int digits, unsigned long long largest) {
  unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  if (m > largest) return false;
  while (m != 0 && (m & 1) == 0) m >>= 1;
  return m < (1ull << digits);
}
constexpr bool __ms_half_holds(bool) { return true; }
constexpr bool __ms_bfloat_holds(bool) { return true; }
template <class I, enable_if_t<is_integral_v<I>, int> = 0> constexpr bool __ms_half_holds(I v) {
  return __ms_exact_in(v, 11, 65504);
}
template <class I, enable_if_t<is_integral_v<I>, int> = 0> constexpr bool __ms_bfloat_holds(I v) {
  return __ms_exact_in(v, 8, ~0ull);
}
#define MS_BRACED(TO, FROM, NAME)                                                                                  \
  constexpr FROM __ms_braced_##TO(FROM v)                                                                          \
      __attribute__((diagnose_if(!__builtin_constant_p(v), "non-constant-expression cannot be narrowed from type '" \
                                 NAME "' to '" #TO "' in initializer list", "error")))                              \
      __attribute__((diagnose_if(__builtin_constant_p(v) && !__ms_##TO##_holds(v), "constant expression cannot be "  \
                                 "narrowed to type '" #TO "' in initializer list: " #TO " does not hold its value", \
                                 "error"))) {                                                                      \
    return v;                                                                                                      \
  }
#define MS_BRACED_FROM_ALL(TO)                                                                                     \
  MS_BRACED(TO, float, "float") MS_BRACED(TO, bool, "bool") MS_BRACED(TO, char, "char")                            \
  MS_BRACED(TO, signed char, "char") MS_BRACED(TO, unsigned char, "uchar") MS_BRACED(TO, short, "short")           \
  MS_BRACED(TO, unsigned short, "ushort") MS_BRACED(TO, int, "int") MS_BRACED(TO, unsigned int, "uint")            \
  MS_BRACED(TO, long, "long") MS_BRACED(TO, unsigned long, "ulong")                                                \
  template <class A> constexpr decltype(auto) __ms_braced_##TO(A&& a) {                                            \
    /* a swizzle (`half2 w = {v.zw}`) stands for the vector it reads */                                            \
    if constexpr (__is_swz<std::remove_cvref_t<A>>) return typename std::remove_cvref_t<A>::value_type(a);         \
    else return std::forward<A>(a);                                                                                \
  }
MS_BRACED_FROM_ALL(half)
MS_BRACED_FROM_ALL(bfloat)
#undef MS_BRACED_FROM_ALL
#undef MS_BRACED

template <class T> inline constexpr bool is_floating_point_v =
    std::is_floating_point_v<T> || is_same_v<remove_cv_t<T>, half> || is_same_v<remove_cv_t<T>, bfloat>;
template <class T> struct is_floating_point : std::integral_constant<bool, is_floating_point_v<T>> {};
template <class T> inline constexpr bool is_arithmetic_v = is_floating_point_v<T> || is_integral_v<T>;
template <class T> struct is_arithmetic : std::integral_constant<bool, is_arithmetic_v<T>> {};

// Bit copy between same-size types; unlike __builtin_bit_cast it accepts the class vectors,
// whose copy assignment is user-provided.
template <class To, class From> inline To __bits_as(const From& f) {
  To t;
  __builtin_memcpy(&t, &f, sizeof(To));
  return t;
}

// -------------------------------------------------------------------- vectors
// float and integer vectors are clang ext_vector types (native swizzles);
// half, bfloat and bool vectors are classes with component access only.
template <class T, int N> using __ev = T __attribute__((ext_vector_type(N)));

template <class T, int N> struct __cvec;

// A multi-component swizzle (`.xy`, `.zyx`, `.rgba`) of a class vector: a union member sharing the
// vector's storage, reading and writing the components I... .
// Orders the swizzles of one element type and length (see the converting constructor).
template <int N, int... I> constexpr int __swz_order() {
  int key = N;
  ((key = key * 5 + I + 1), ...);
  return key;
}
// Whether a swizzle names each component once, as one written to must (`v.xx = ...` is refused, as Metal does).
template <int... I> constexpr bool __swz_distinct() {
  constexpr int idx[] = {I...};
  for (int a = 0; a < (int)sizeof...(I); ++a)
    for (int b = a + 1; b < (int)sizeof...(I); ++b)
      if (idx[a] == idx[b]) return false;
  return true;
}
// `x OP= b` as `x = value_type(x) OP b`, for the stand-ins of a vector value (swizzles, packed vectors).
#define MS_COMPOUND_BY_VALUE(SELF)                                                         \
  template <class B> SELF& operator+=(const B& b) { return *this = value_type(*this) + b; } \
  template <class B> SELF& operator-=(const B& b) { return *this = value_type(*this) - b; } \
  template <class B> SELF& operator*=(const B& b) { return *this = value_type(*this) * b; } \
  template <class B> SELF& operator/=(const B& b) { return *this = value_type(*this) / b; }
template <class T, int N, int... I> struct __swz {
  T e[N];
  using value_type = __cvec<T, sizeof...(I)>;
  static constexpr int __idx[] = {I...};
  __swz() = default;
  // `c ? h.xy : g.zw` needs one operand converted to the other's type, and exactly one way (two would be
  // ambiguous): a swizzle converts to the one of higher __swz_order, holding the same component values.
  template <int N2, int... J,
            enable_if_t<sizeof...(J) == sizeof...(I) && (__swz_order<N2, J...>() < __swz_order<N, I...>()), int> = 0>
  __swz(const __swz<T, N2, J...>& o) : e{} {
    for (int k = 0; k < (int)sizeof...(I); ++k) e[__idx[k]] = o[k];
  }
  const T& operator[](int k) const { return e[__idx[k]]; }
  operator value_type() const {
    value_type r;
    for (int k = 0; k < (int)sizeof...(I); ++k) r[k] = e[__idx[k]];
    return r;
  }
  // By value: `h.wzyx = h` reads all of h before writing it.
  __swz& operator=(value_type v) {
    static_assert(__swz_distinct<I...>(), "vector is not assignable (contains duplicate components)");
    for (int k = 0; k < (int)sizeof...(I); ++k) e[__idx[k]] = v[k];
    return *this;
  }
  // Writes only the swizzled components (a default copy would copy the whole vector).
  __swz& operator=(const __swz& o) { return *this = value_type(o); }
  // An exact match, so that `h.xy = g.zw` does not weigh the converting constructor against value_type.
  template <int N2, int... J> __swz& operator=(const __swz<T, N2, J...>& o) { return *this = value_type(o); }
  MS_COMPOUND_BY_VALUE(__swz)
};
template <class T, int N> struct __packed;
template <class P> inline constexpr bool __is_packed = false;
template <class T, int N> inline constexpr bool __is_packed<__packed<T, N>> = true;
// The vector value of a swizzle or a packed vector.
template <class A> inline decltype(auto) __unswz(const A& a) {
  if constexpr (__is_swz<A> || __is_packed<A>) return typename A::value_type(a); else return (a);
}
// Function templates take `__plain` parameters: a swizzle argument goes to the overload that unwraps it
// (MS_UNSWIZZLE) instead of being deduced as the proxy type.
template <class A> concept __plain = !__is_swz<std::remove_cvref_t<A>>;
template <class A> inline decltype(auto) __unswz_arg(A&& a) {
  if constexpr (__is_swz<std::remove_cvref_t<A>>) return typename std::remove_cvref_t<A>::value_type(a);
  else return std::forward<A>(a);
}

// Swizzle members, generated by nesting one "for each component" macro per swizzle position
// (distinct macros per level: a macro cannot expand inside itself).
#define MS_A2(F, ...) F(__VA_ARGS__, 0, x, r) F(__VA_ARGS__, 1, y, g)
#define MS_A3(F, ...) MS_A2(F, __VA_ARGS__) F(__VA_ARGS__, 2, z, b)
#define MS_A4(F, ...) MS_A3(F, __VA_ARGS__) F(__VA_ARGS__, 3, w, a)
#define MS_B2(F, ...) F(__VA_ARGS__, 0, x, r) F(__VA_ARGS__, 1, y, g)
#define MS_B3(F, ...) MS_B2(F, __VA_ARGS__) F(__VA_ARGS__, 2, z, b)
#define MS_B4(F, ...) MS_B3(F, __VA_ARGS__) F(__VA_ARGS__, 3, w, a)
#define MS_C2(F, ...) F(__VA_ARGS__, 0, x, r) F(__VA_ARGS__, 1, y, g)
#define MS_C3(F, ...) MS_C2(F, __VA_ARGS__) F(__VA_ARGS__, 2, z, b)
#define MS_C4(F, ...) MS_C3(F, __VA_ARGS__) F(__VA_ARGS__, 3, w, a)
#define MS_D2(F, ...) F(__VA_ARGS__, 0, x, r) F(__VA_ARGS__, 1, y, g)
#define MS_D3(F, ...) MS_D2(F, __VA_ARGS__) F(__VA_ARGS__, 2, z, b)
#define MS_D4(F, ...) MS_D3(F, __VA_ARGS__) F(__VA_ARGS__, 3, w, a)
#define MS_SW2(i, xi, ri, j, xj, rj) __swz<T, __n, i, j> xi##xj, ri##rj;
#define MS_SW3(i, xi, ri, j, xj, rj, k, xk, rk) __swz<T, __n, i, j, k> xi##xj##xk, ri##rj##rk;
#define MS_SW4(i, xi, ri, j, xj, rj, k, xk, rk, l, xl, rl) \
  __swz<T, __n, i, j, k, l> xi##xj##xk##xl, ri##rj##rk##rl;
#define MS_SW2_J(B, ...) B(MS_SW2, __VA_ARGS__)
#define MS_SW3_K(C, ...) C(MS_SW3, __VA_ARGS__)
#define MS_SW3_J(B, C, ...) B(MS_SW3_K, C, __VA_ARGS__)
#define MS_SW4_L(D, ...) D(MS_SW4, __VA_ARGS__)
#define MS_SW4_K(C, D, ...) C(MS_SW4_L, D, __VA_ARGS__)
#define MS_SW4_J(B, C, D, ...) B(MS_SW4_K, C, D, __VA_ARGS__)
#define MS_SWIZZLES(N)                                                                     \
  MS_A##N(MS_SW2_J, MS_B##N) MS_A##N(MS_SW3_J, MS_B##N, MS_C##N)                            \
  MS_A##N(MS_SW4_J, MS_B##N, MS_C##N, MS_D##N)
// The user-provided copy assignment is required: the swizzle members' assignments are not trivial.
// A scalar converts to a vector of it (`half4 v = 0.0h;`, `v = 1;`, a half given for a half4 parameter), as in Metal.
#define MS_CVEC_COMMON(N)                                                                  \
  __cvec() = default;                                                                      \
  template <class S, enable_if_t<is_arithmetic_v<S>, int> = 0> __cvec(S s) {              \
    for (int i = 0; i < N; ++i) e[i] = T(s);                                               \
  }                                                                                        \
  /* a brace list gives the first components, zeros after them (`half2 v = {1.0f, x};`) */ \
  __cvec(std::initializer_list<T> list) : e{} {                                            \
    int i = 0;                                                                             \
    for (const T& v : list)                                                                \
      if (i < N) e[i++] = v;                                                               \
  }                                                                                        \
  T& operator[](int i) { return e[i]; }                                                    \
  const T& operator[](int i) const { return e[i]; }                                        \
  __cvec& operator=(const __cvec& o) {                                                     \
    for (int i = 0; i < N; ++i) e[i] = o.e[i];                                             \
    return *this;                                                                          \
  }                                                                                        \
  static constexpr int __n = N;
// Metal lays vectors out as their own alignment: two components align to twice the element, three and four to four
// times (a half3 takes 8 bytes, a bool3 4), as clang does for the float and integer vectors.
template <class T> struct alignas(2 * sizeof(T)) __cvec<T, 2> {
  MS_CVEC_COMMON(2)
  union { struct { T x, y; }; struct { T r, g; }; T e[2]; MS_SWIZZLES(2) };
};
template <class T> struct alignas(4 * sizeof(T)) __cvec<T, 3> {
  MS_CVEC_COMMON(3)
  union { struct { T x, y, z; }; struct { T r, g, b; }; T e[3]; MS_SWIZZLES(3) };
};
template <class T> struct alignas(4 * sizeof(T)) __cvec<T, 4> {
  MS_CVEC_COMMON(4)
  union { struct { T x, y, z, w; }; struct { T r, g, b, a; }; T e[4]; MS_SWIZZLES(4) };
};
#undef MS_CVEC_COMMON
#undef MS_SWIZZLES
#undef MS_SW4_J
#undef MS_SW4_K
#undef MS_SW4_L
#undef MS_SW3_J
#undef MS_SW3_K
#undef MS_SW2_J
#undef MS_SW4
#undef MS_SW3
#undef MS_SW2
#undef MS_A2
#undef MS_A3
#undef MS_A4
#undef MS_B2
#undef MS_B3
#undef MS_B4
#undef MS_C2
#undef MS_C3
#undef MS_C4
#undef MS_D2
#undef MS_D3
#undef MS_D4

template <class T> inline constexpr bool __is_class_elem =
    is_same_v<T, half> || is_same_v<T, bfloat> || is_same_v<T, bool>;
template <class T, int N> struct __vec_sel { using type = __ev<T, N>; };
template <int N> struct __vec_sel<half, N> { using type = __cvec<half, N>; };
template <int N> struct __vec_sel<bfloat, N> { using type = __cvec<bfloat, N>; };
template <int N> struct __vec_sel<bool, N> { using type = __cvec<bool, N>; };
template <class T, int N> using vec = typename __vec_sel<T, N>::type;

template <class V> struct __vt { using elem = V; static constexpr int n = 1; static constexpr bool is_vec = false; };
template <class T, int N> struct __vt<T __attribute__((ext_vector_type(N)))> {
  using elem = T; static constexpr int n = N; static constexpr bool is_vec = true;
};
template <class T, int N> struct __vt<__cvec<T, N>> {
  using elem = T; static constexpr int n = N; static constexpr bool is_vec = true;
};
template <class V> inline constexpr bool __is_vec = __vt<remove_cv_t<V>>::is_vec;
template <class V> using __elem_t = typename __vt<remove_cv_t<V>>::elem;
// Metal's geometric, relational and most math functions take floating types only: an integer argument does not build.
template <class A> concept __floating = __plain<A> && is_floating_point_v<__elem_t<std::remove_cvref_t<A>>>;

#define MS_VEC_TYPES(T)                                                             \
  typedef vec<T, 2> T##2; typedef vec<T, 3> T##3; typedef vec<T, 4> T##4;
MS_VEC_TYPES(float) MS_VEC_TYPES(half) MS_VEC_TYPES(bfloat) MS_VEC_TYPES(bool)
MS_VEC_TYPES(int) MS_VEC_TYPES(uint) MS_VEC_TYPES(short) MS_VEC_TYPES(ushort)
MS_VEC_TYPES(char) MS_VEC_TYPES(uchar) MS_VEC_TYPES(long) MS_VEC_TYPES(ulong)
#undef MS_VEC_TYPES

// Vector construction: Metal's float4(a, b, c, d), float4(x), float4(float2, float2),
// float4(int4) ... The rewriter turns `float4(`, casts to vector types and the constructors of vector aliases and
// template type parameters (`I4(f)` after `typedef int4 I4;`) into `__ms_make<float4>(`.
template <class E, class A> constexpr void __ms_put(E* buf, int& k, const A& a) {
  if constexpr (__is_swz<A>) {
    __ms_put(buf, k, __unswz(a));
  } else if constexpr (__is_vec<A>) {
    for (int i = 0; i < __vt<A>::n; ++i) buf[k++] = (E)(__elem_t<A>)a[i];
  } else {
    buf[k++] = (E)a;
  }
}
// The components an argument of a vector constructor gives.
template <class A> constexpr int __ms_components() {
  if constexpr (__is_swz<A> || __is_packed<A>) return __vt<typename A::value_type>::n;
  else return __vt<A>::n;
}
// constexpr: a kernel's `T(0)` for a template parameter T becomes one too (`constexpr T zero = T(0);`).
template <class V, class... A> constexpr V __ms_make(const A&... a) {
  if constexpr (!__is_vec<V>) {
    return V(a...);
  } else {
    using E = __elem_t<V>;
    constexpr int N = __vt<V>::n;
    // As in Metal: one scalar for every component, or components that fill the vector exactly (none: zeros).
    constexpr int given = (0 + ... + __ms_components<A>());
    static_assert(given >= N || sizeof...(A) == 0 || (sizeof...(A) == 1 && given == 1),
                  "too few elements in vector initialization");
    static_assert(given <= N, "excess elements in vector initialization");
    E buf[N + 4 * sizeof...(A)];
    int k = 0;
    (__ms_put(buf, k, a), ...);
    V v;
    if (k == 1) { for (int i = 0; i < N; ++i) v[i] = buf[0]; }
    else { for (int i = 0; i < N; ++i) v[i] = i < k ? buf[i] : E(0); }
    return v;
  }
}

// A comparison's value (metalsim wraps comparisons in it, comparisons.cpp): clang's comparison of ext vectors gives
// an int vector of -1/0, Metal's a bool vector; anything else passes through.
template <class T> constexpr auto __ms_bool(const T& v) {
  if constexpr (__is_vec<T> && !__is_class_elem<__elem_t<T>> && is_integral_v<__elem_t<T>>) {
    vec<bool, __vt<T>::n> r;
    for (int i = 0; i < __vt<T>::n; ++i) r[i] = v[i] != 0;
    return r;
  } else {
    return v;
  }
}

// Elementwise helpers
template <class V, class F> inline auto __map(const V& v, F f) {
  if constexpr (__is_vec<V>) {
    using R = decltype(f(__elem_t<V>{}));
    vec<R, __vt<V>::n> r;
    for (int i = 0; i < __vt<V>::n; ++i) r[i] = f((__elem_t<V>)v[i]);
    return r;
  } else {
    return f(v);
  }
}
template <class V, class F> inline V __map2(const V& a, const V& b, F f) {
  if constexpr (__is_vec<V>) {
    V r;
    for (int i = 0; i < __vt<V>::n; ++i) r[i] = f((__elem_t<V>)a[i], (__elem_t<V>)b[i]);
    return r;
  } else {
    return f(a, b);
  }
}
template <class V, class F> inline V __map3(const V& a, const V& b, const V& c, F f) {
  if constexpr (__is_vec<V>) {
    V r;
    for (int i = 0; i < __vt<V>::n; ++i)
      r[i] = f((__elem_t<V>)a[i], (__elem_t<V>)b[i], (__elem_t<V>)c[i]);
    return r;
  } else {
    return f(a, b, c);
  }
}

// A bool (boolN for vectors) from each pair of components, compared in float.
template <class V, class F> inline auto __map2_bool(const V& a, const V& b, F f) {
  if constexpr (__is_vec<V>) {
    vec<bool, __vt<V>::n> r;
    for (int i = 0; i < __vt<V>::n; ++i) r[i] = f(float((__elem_t<V>)a[i]), float((__elem_t<V>)b[i]));
    return r;
  } else {
    return (bool)f(float(a), float(b));
  }
}

// Operators for class vectors (half/bfloat/bool): elementwise, scalar broadcast.
#define MS_CVEC_OP(OP)                                                                   \
  template <class T, int N> inline __cvec<T, N> operator OP(__cvec<T, N> a, __cvec<T, N> b) { \
    for (int i = 0; i < N; ++i) a[i] = T(a[i] OP b[i]);                                   \
    return a;                                                                            \
  }                                                                                      \
  template <class T, int N, class S, enable_if_t<is_arithmetic_v<S>, int> = 0>           \
  inline __cvec<T, N> operator OP(__cvec<T, N> a, S b) {                                 \
    for (int i = 0; i < N; ++i) a[i] = T(a[i] OP T(b));                                   \
    return a;                                                                            \
  }                                                                                      \
  template <class T, int N, class S, enable_if_t<is_arithmetic_v<S>, int> = 0>           \
  inline __cvec<T, N> operator OP(S b, __cvec<T, N> a) {                                 \
    for (int i = 0; i < N; ++i) a[i] = T(T(b) OP a[i]);                                   \
    return a;                                                                            \
  }                                                                                      \
  template <class T, int N, class S>                                                     \
  inline __cvec<T, N>& operator OP##=(__cvec<T, N>& a, const S& b) { return a = a OP b; }
MS_CVEC_OP(+) MS_CVEC_OP(-) MS_CVEC_OP(*) MS_CVEC_OP(/)
#undef MS_CVEC_OP
template <class T, int N> inline __cvec<T, N> operator-(__cvec<T, N> a) {
  for (int i = 0; i < N; ++i) a[i] = -a[i];
  return a;
}
// A scalar operand is the vector's element type, as in the arithmetic operators (`h4 > 0.0h`, `h4 == 1`).
#define MS_CVEC_CMP2(OP)                                                                 \
  template <class T, int N> inline __cvec<bool, N> operator OP(__cvec<T, N> a, __cvec<T, N> b) { \
    __cvec<bool, N> r;                                                                   \
    for (int i = 0; i < N; ++i) r[i] = a[i] OP b[i];                                      \
    return r;                                                                            \
  }                                                                                      \
  template <class T, int N, class S, enable_if_t<is_arithmetic_v<S>, int> = 0>           \
  inline __cvec<bool, N> operator OP(__cvec<T, N> a, S b) { return a OP __cvec<T, N>(T(b)); } \
  template <class T, int N, class S, enable_if_t<is_arithmetic_v<S>, int> = 0>           \
  inline __cvec<bool, N> operator OP(S b, __cvec<T, N> a) { return __cvec<T, N>(T(b)) OP a; }
MS_CVEC_CMP2(<) MS_CVEC_CMP2(>) MS_CVEC_CMP2(<=) MS_CVEC_CMP2(>=) MS_CVEC_CMP2(==) MS_CVEC_CMP2(!=)
#undef MS_CVEC_CMP2
// Logical operators of bool vectors, componentwise (no short circuit, as in Metal).
template <int N> inline __cvec<bool, N> operator!(__cvec<bool, N> a) {
  for (int i = 0; i < N; ++i) a[i] = !a[i];
  return a;
}
#define MS_BVEC_LOGIC(OP)                                                                \
  template <int N> inline __cvec<bool, N> operator OP(__cvec<bool, N> a, const __cvec<bool, N>& b) { \
    for (int i = 0; i < N; ++i) a[i] = a[i] OP b[i];                                     \
    return a;                                                                            \
  }
MS_BVEC_LOGIC(&&) MS_BVEC_LOGIC(||) MS_BVEC_LOGIC(&) MS_BVEC_LOGIC(|) MS_BVEC_LOGIC(^)
#undef MS_BVEC_LOGIC
#define MS_BVEC_COMPOUND(OP)                                                             \
  template <int N> inline __cvec<bool, N>& operator OP##=(__cvec<bool, N>& a, const __cvec<bool, N>& b) { \
    return a = a OP b;                                                                   \
  }
MS_BVEC_COMPOUND(&) MS_BVEC_COMPOUND(|) MS_BVEC_COMPOUND(^)
#undef MS_BVEC_COMPOUND

// A swizzle or packed operand of an operator is its vector value.
#define MS_SWZ_OP(OP)                                                                    \
  template <class A, class B,                                                            \
            enable_if_t<__is_swz<A> || __is_swz<B> || __is_packed<A> || __is_packed<B>, int> = 0> \
  inline auto operator OP(const A& a, const B& b) { return __unswz(a) OP __unswz(b); }
MS_SWZ_OP(+) MS_SWZ_OP(-) MS_SWZ_OP(*) MS_SWZ_OP(/)
MS_SWZ_OP(<) MS_SWZ_OP(>) MS_SWZ_OP(<=) MS_SWZ_OP(>=) MS_SWZ_OP(==) MS_SWZ_OP(!=)
MS_SWZ_OP(&&) MS_SWZ_OP(||) MS_SWZ_OP(&) MS_SWZ_OP(|) MS_SWZ_OP(^)
#undef MS_SWZ_OP
template <class T, int N, int... I> inline auto operator-(const __swz<T, N, I...>& a) { return -__unswz(a); }
template <class T, int N, int... I> inline auto operator!(const __swz<T, N, I...>& a) { return !__unswz(a); }
template <class T, int N> inline auto operator-(const __packed<T, N>& a) { return -__unswz(a); }

// Comparisons of ext vectors give int vectors (-1/0); Metal's boolN accepts them.
template <__plain V> inline bool __truth(const V& v, int i) {
  if constexpr (__is_vec<V>) return v[i] != 0; else return v != 0;
}
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline bool all(const V& v) {
  for (int i = 0; i < __vt<V>::n; ++i) if (!v[i]) return false;
  return true;
}
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline bool any(const V& v) {
  for (int i = 0; i < __vt<V>::n; ++i) if (v[i]) return true;
  return false;
}
inline bool all(bool b) { return b; }
inline bool any(bool b) { return b; }

template <__plain T, class U> inline T select(T a, T b, U c) {
  if constexpr (__is_vec<T>) {
    T r;
    for (int i = 0; i < __vt<T>::n; ++i) r[i] = __truth(c, i) ? b[i] : a[i];
    return r;
  } else {
    return c ? b : a;
  }
}

// packed_ types: unaligned storage, convert to and from the aligned vector; components by index and, as in Metal
// 2.1, by name (`.x`, `.r`); arithmetic and comparisons are the aligned vector's.
template <class T, int N> struct __packed_components;
template <class T> struct __packed_components<T, 2> { union { T e[2]; struct { T x, y; }; struct { T r, g; }; }; };
template <class T> struct __packed_components<T, 3> {
  union { T e[3]; struct { T x, y, z; }; struct { T r, g, b; }; };
};
template <class T> struct __packed_components<T, 4> {
  union { T e[4]; struct { T x, y, z, w; }; struct { T r, g, b, a; }; };
};
template <class T, int N> struct __packed : __packed_components<T, N> {
  using value_type = vec<T, N>;
  using __packed_components<T, N>::e;
  __packed() = default;
  __packed(const value_type& v) { for (int i = 0; i < N; ++i) e[i] = v[i]; }
  // One scalar per component, as Metal takes `packed_float3 p = {1, 2, 3}` (and `packed_float3(1, 2, 3)`).
  template <class... S, enable_if_t<sizeof...(S) == N && (is_arithmetic_v<S> && ...), int> = 0>
  __packed(const S&... s) {
    const T components[] = {T(s)...};
    for (int i = 0; i < N; ++i) e[i] = components[i];
  }
  operator value_type() const { value_type v; for (int i = 0; i < N; ++i) v[i] = e[i]; return v; }
  T& operator[](int i) { return e[i]; }
  const T& operator[](int i) const { return e[i]; }
  MS_COMPOUND_BY_VALUE(__packed)
};
#undef MS_COMPOUND_BY_VALUE
template <class T, int N> struct __vt<__packed<T, N>> {
  using elem = T; static constexpr int n = N; static constexpr bool is_vec = true;
};
#define MS_PACKED(T)                                                                   \
  typedef __packed<T, 2> packed_##T##2; typedef __packed<T, 3> packed_##T##3;         \
  typedef __packed<T, 4> packed_##T##4;
MS_PACKED(float) MS_PACKED(half) MS_PACKED(bfloat) MS_PACKED(int) MS_PACKED(uint)
MS_PACKED(short) MS_PACKED(ushort) MS_PACKED(char) MS_PACKED(uchar)
#undef MS_PACKED

template <class To, class From> inline To as_type(const From& f) {
  if constexpr (__is_swz<From>) {
    return as_type<To>(__unswz(f));  // the swizzled components, not the whole vector's bytes
  } else {
    static_assert(sizeof(To) == sizeof(From), "as_type: sizes differ");
    return __bits_as<To>(f);
  }
}

// ----------------------------------------------------------------- arrays
// metal_array's array<T, N>: an aggregate (`array<float, 4> a = {1, 2, 3, 4};`), indexed and sized.
template <class T, size_t N> struct array {
  T __elems[N];
  static constexpr size_t size() { return N; }
  static constexpr bool empty() { return N == 0; }
  T& operator[](size_t i) { return __elems[i]; }
  constexpr const T& operator[](size_t i) const { return __elems[i]; }
};

// ----------------------------------------------------------------- limits
template <class T> struct numeric_limits;
// The std::numeric_limits members Metal's numeric_limits has (traits of the host's type for the integers).
#define MS_INT_LIMITS(T, MIN, MAX)                                                    \
  template <> struct numeric_limits<T> {                                              \
    static constexpr bool is_specialized = true, is_signed = std::numeric_limits<T>::is_signed; \
    static constexpr bool is_integer = true, is_exact = true, has_infinity = false;    \
    static constexpr bool has_quiet_NaN = false, has_signaling_NaN = false, is_bounded = true; \
    static constexpr int digits = std::numeric_limits<T>::digits, digits10 = std::numeric_limits<T>::digits10; \
    static constexpr int radix = 2;                                                   \
    static constexpr T min() { return MIN; }                                          \
    static constexpr T lowest() { return MIN; }                                       \
    static constexpr T max() { return MAX; }                                          \
    static constexpr T epsilon() { return 0; }                                        \
    static constexpr T round_error() { return 0; }                                    \
    static constexpr T infinity() { return 0; }                                       \
    static constexpr T quiet_NaN() { return 0; }                                      \
    static constexpr T signaling_NaN() { return 0; }                                  \
    static constexpr T denorm_min() { return 0; }                                     \
  };
MS_INT_LIMITS(char, -128, 127) MS_INT_LIMITS(uchar, 0, 255)
MS_INT_LIMITS(short, -32768, 32767) MS_INT_LIMITS(ushort, 0, 65535)
MS_INT_LIMITS(int, -2147483647 - 1, 2147483647) MS_INT_LIMITS(uint, 0, 4294967295u)
MS_INT_LIMITS(long, -9223372036854775807L - 1, 9223372036854775807L)
MS_INT_LIMITS(ulong, 0, 18446744073709551615ul)
MS_INT_LIMITS(signed char, -128, 127)
MS_INT_LIMITS(bool, false, true)
#undef MS_INT_LIMITS
// Floating types: every value from its bits. DIGITS counts the significand bits with the implicit one.
#define MS_FLOAT_LIMITS(T, BITS, DIGITS, DIGITS10, MAX_DIGITS10, MIN_EXP, MIN_EXP10, MAX_EXP, MAX_EXP10, \
                        MIN, MAX, EPSILON, INF, QNAN, SNAN, DENORM)                                       \
  template <> struct numeric_limits<T> {                                                                  \
    static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false;  \
    static constexpr bool has_infinity = true, has_quiet_NaN = true, has_signaling_NaN = true;            \
    static constexpr bool is_bounded = true, is_iec559 = true;                                            \
    static constexpr int digits = DIGITS, digits10 = DIGITS10, max_digits10 = MAX_DIGITS10, radix = 2;    \
    static constexpr int min_exponent = MIN_EXP, min_exponent10 = MIN_EXP10;                             \
    static constexpr int max_exponent = MAX_EXP, max_exponent10 = MAX_EXP10;                             \
    static T __b(BITS b) { return __bits_as<T>(b); }                                                      \
    static T min() { return __b(MIN); }                                                                   \
    static T max() { return __b(MAX); }                                                                   \
    static T lowest() { return -max(); }                                                                  \
    static T epsilon() { return __b(EPSILON); }                                                           \
    static T round_error() { return T(0.5f); }                                                            \
    static T infinity() { return __b(INF); }                                                              \
    static T quiet_NaN() { return __b(QNAN); }                                                            \
    static T signaling_NaN() { return __b(SNAN); }                                                        \
    static T denorm_min() { return __b(DENORM); }                                                         \
  };
MS_FLOAT_LIMITS(float, uint32_t, 24, 6, 9, -125, -37, 128, 38, 0x00800000u, 0x7f7fffffu, 0x34000000u,
                0x7f800000u, 0x7fc00000u, 0x7fa00000u, 0x00000001u)
MS_FLOAT_LIMITS(half, uint16_t, 11, 3, 5, -13, -4, 16, 4, 0x0400, 0x7bff, 0x1400, 0x7c00, 0x7e00, 0x7d00, 0x0001)
MS_FLOAT_LIMITS(bfloat, uint16_t, 8, 2, 4, -125, -37, 128, 38, 0x0080, 0x7f7f, 0x3c00, 0x7f80, 0x7fc0, 0x7fa0,
                0x0001)
#undef MS_FLOAT_LIMITS

// ------------------------------------------------------------------- math
// Metal's float, half and bfloat overloads of a math function are all built-in types: an integer argument converts to
// each as well as to the others, and the call is ambiguous (`sqrt(n)` with an int n, `exp(2)`). Here half and bfloat
// are classes, whose conversions rank below float's, so these two equally good templates make the call ambiguous
// instead of float. Declared only: no call can choose one.
#define MS_INTEGER_ARGUMENT_AMBIGUOUS1(NAME)                                           \
  template <class I, enable_if_t<is_integral_v<I>, int> = 0> half NAME(I);             \
  template <class I, enable_if_t<is_integral_v<I>, long> = 0> bfloat NAME(I);
#define MS_INTEGER_ARGUMENT_AMBIGUOUS2(NAME)                                                     \
  template <class I, class J, enable_if_t<is_integral_v<I> && is_integral_v<J>, int> = 0>        \
  half NAME(I, J);                                                                               \
  template <class I, class J, enable_if_t<is_integral_v<I> && is_integral_v<J>, long> = 0>       \
  bfloat NAME(I, J);
#define MS_INTEGER_ARGUMENT_AMBIGUOUS3(NAME)                                                     \
  template <class I, class J, class K,                                                           \
            enable_if_t<is_integral_v<I> && is_integral_v<J> && is_integral_v<K>, int> = 0>      \
  half NAME(I, J, K);                                                                            \
  template <class I, class J, class K,                                                           \
            enable_if_t<is_integral_v<I> && is_integral_v<J> && is_integral_v<K>, long> = 0>     \
  bfloat NAME(I, J, K);
#define MS_FMATH1(NAME, EXPR)                                                          \
  inline float NAME(float x) { return EXPR; }                                         \
  inline half NAME(half x) { return half(NAME(float(x))); }                           \
  inline bfloat NAME(bfloat x) { return bfloat(NAME(float(x))); }                     \
  MS_INTEGER_ARGUMENT_AMBIGUOUS1(NAME)                                                 \
  template <class V, enable_if_t<__is_vec<V>, int> = 0> inline V NAME(const V& v) {   \
    return __map2(v, v, [](auto a, auto) { return decltype(a)(NAME(a)); });            \
  }
MS_FMATH1(exp, __builtin_expf(x)) MS_FMATH1(exp2, __builtin_exp2f(x))
MS_FMATH1(exp10, __builtin_powf(10.0f, x))
MS_FMATH1(log, __builtin_logf(x)) MS_FMATH1(log2, __builtin_log2f(x))
MS_FMATH1(log10, __builtin_log10f(x)) MS_FMATH1(sqrt, __builtin_sqrtf(x))
MS_FMATH1(rsqrt, 1.0f / __builtin_sqrtf(x)) MS_FMATH1(sin, __builtin_sinf(x))
MS_FMATH1(cos, __builtin_cosf(x)) MS_FMATH1(tan, __builtin_tanf(x))
MS_FMATH1(asin, __builtin_asinf(x)) MS_FMATH1(acos, __builtin_acosf(x))
MS_FMATH1(atan, __builtin_atanf(x)) MS_FMATH1(sinh, __builtin_sinhf(x))
MS_FMATH1(cosh, __builtin_coshf(x)) MS_FMATH1(tanh, __builtin_tanhf(x))
MS_FMATH1(asinh, __builtin_asinhf(x)) MS_FMATH1(acosh, __builtin_acoshf(x))
MS_FMATH1(atanh, __builtin_atanhf(x)) MS_FMATH1(floor, __builtin_floorf(x))
MS_FMATH1(ceil, __builtin_ceilf(x)) MS_FMATH1(round, __builtin_roundf(x))
MS_FMATH1(rint, __builtin_rintf(x)) MS_FMATH1(trunc, __builtin_truncf(x))
MS_FMATH1(fabs, __builtin_fabsf(x))
// saturate is fmin(fmax(x, 0), 1): a NaN gives 0. sign keeps a zero's sign and gives 0 for a NaN.
MS_FMATH1(saturate, x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f)
MS_FMATH1(sign, x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : (x == 0.0f ? x : 0.0f)))
// log1p is MLX's (utils.h, which MLX includes in every custom kernel), not Metal's.
MS_FMATH1(log1p, __builtin_log1pf(x)) MS_FMATH1(cbrt, __builtin_cbrtf(x))
// In double after reducing x by whole periods (fmod is exact), with Metal's exact zeros where pi x is a multiple of
// pi (sinpi, tanpi; signed as x) or an odd multiple of pi / 2 (cospi): sin(2 pi) in double is 2.4e-16, not 0.
MS_FMATH1(cospi, __builtin_fmod(__builtin_fabs(double(x)), 1.0) == 0.5 ? 0.0f
                                                                        : (float)__builtin_cos(3.14159265358979323846 * __builtin_fmod(double(x), 2.0)))
MS_FMATH1(sinpi, __builtin_fmod(double(x), 1.0) == 0.0 ? __builtin_copysignf(0.0f, x)
                                                        : (float)__builtin_sin(3.14159265358979323846 * __builtin_fmod(double(x), 2.0)))
// tanpi as sinpi / cospi: an infinity at n + 1/2 (+ for an even n, - for an odd one), and at an integer n a zero
// signed as x for an even n and against it for an odd one.
inline float __tanpi(float x) {
  const double whole_turns = __builtin_fmod(double(x), 2.0), half_turns = __builtin_fmod(double(x), 1.0);
  if (half_turns == 0.0) return __builtin_fabs(whole_turns) == 1.0 ? -__builtin_copysignf(0.0f, x) : __builtin_copysignf(0.0f, x);
  if (__builtin_fabs(half_turns) == 0.5) return (int64_t)__builtin_floor(double(x)) % 2 == 0 ? __builtin_inff() : -__builtin_inff();
  return (float)__builtin_tan(3.14159265358979323846 * half_turns);
}
MS_FMATH1(tanpi, __tanpi(x))
#undef MS_FMATH1
// Metal's standard library has no erf or expm1 (MLX's own kernels bring erf.h and expm1f.h): a call that a kernel
// does not define itself builds neither on a Mac nor here. (A kernel's own `float erf(float)` is preferred to these.)
template <class T>
T erf(T) __attribute__((unavailable("Metal's standard library has no erf: define it in the kernel's header")));
template <class T>
T expm1(T) __attribute__((unavailable("Metal's standard library has no expm1: define it in the kernel's header")));

#define MS_FMATH2(NAME, EXPR)                                                          \
  inline float NAME(float x, float y) { return EXPR; }                                \
  inline half NAME(half x, half y) { return half(NAME(float(x), float(y))); }         \
  inline bfloat NAME(bfloat x, bfloat y) { return bfloat(NAME(float(x), float(y))); } \
  MS_INTEGER_ARGUMENT_AMBIGUOUS2(NAME)                                                 \
  template <class V, enable_if_t<__is_vec<V>, int> = 0>                               \
  inline V NAME(const V& a, const V& b) {                                             \
    return __map2(a, b, [](auto x, auto y) { return decltype(x)(NAME(x, y)); });       \
  }
MS_FMATH2(pow, __builtin_powf(x, y))
// powr is defined for x >= 0 only (exp2(y * log2(x))): NaN below.
MS_FMATH2(powr, x < 0.0f ? __builtin_nanf("") : __builtin_powf(x, y))
MS_FMATH2(atan2, __builtin_atan2f(x, y)) MS_FMATH2(fmod, __builtin_fmodf(x, y))
MS_FMATH2(fmax, __builtin_fmaxf(x, y)) MS_FMATH2(fmin, __builtin_fminf(x, y))
MS_FMATH2(copysign, __builtin_copysignf(x, y)) MS_FMATH2(step, y < x ? 0.0f : 1.0f)
MS_FMATH2(hypot, __builtin_hypotf(x, y)) MS_FMATH2(fdim, __builtin_fdimf(x, y))
MS_FMATH2(remainder, __builtin_remainderf(x, y))
#undef MS_FMATH2
#undef MS_INTEGER_ARGUMENT_AMBIGUOUS1
#undef MS_INTEGER_ARGUMENT_AMBIGUOUS2

// Exponent and fraction parts: each result is exact, so half and bfloat go through float. The out
// parameters are references, as in Metal (`thread int& exponent`); vectors take vectors of them.
template <class T> inline constexpr bool __is_fp_scalar = is_floating_point_v<T>;
template <class V> inline constexpr bool __is_fp_vec = __is_vec<V> && is_floating_point_v<__elem_t<V>>;
template <class V> using __int_vec_of = conditional_t<__is_vec<V>, vec<int, __vt<V>::n>, int>;
template <class T, enable_if_t<__is_fp_scalar<T>, int> = 0> inline T ldexp(T x, int e) {
  return T(__builtin_ldexpf(float(x), e));
}
template <class T, enable_if_t<__is_fp_scalar<T>, int> = 0> inline T frexp(T x, int& e) {
  return T(__builtin_frexpf(float(x), &e));
}
template <class T, enable_if_t<__is_fp_scalar<T>, int> = 0> inline T modf(T x, T& whole) {
  float w;
  T fraction = T(__builtin_modff(float(x), &w));
  whole = T(w);
  return fraction;
}
template <class T, enable_if_t<__is_fp_scalar<T>, int> = 0> inline T sincos(T x, T& cosval) {
  cosval = T(__builtin_cosf(float(x)));
  return T(__builtin_sinf(float(x)));
}
template <class V, enable_if_t<__is_fp_vec<V>, int> = 0> inline V ldexp(V x, const __int_vec_of<V>& e) {
  for (int i = 0; i < __vt<V>::n; ++i) x[i] = ldexp((__elem_t<V>)x[i], (int)e[i]);
  return x;
}
// The two-result functions, componentwise: f(x[i], out[i]) for each component.
#define MS_FMATH_OUT(NAME, OUT)                                                         \
  template <class V, enable_if_t<__is_fp_vec<V>, int> = 0> inline V NAME(V x, OUT& out) { \
    for (int i = 0; i < __vt<V>::n; ++i) {                                               \
      auto part = out[i];                                                                \
      x[i] = NAME((__elem_t<V>)x[i], part);                                              \
      out[i] = part;                                                                     \
    }                                                                                    \
    return x;                                                                            \
  }
MS_FMATH_OUT(frexp, __int_vec_of<V>) MS_FMATH_OUT(modf, V) MS_FMATH_OUT(sincos, V)
#undef MS_FMATH_OUT
// ilogb: the unbiased exponent as an int (intN for vectors); FP_ILOGB0 for 0, FP_ILOGBNAN for NaN.
template <__floating T> inline auto ilogb(T x) {
  return __map(x, [](auto a) { return (int)__builtin_ilogbf(float(a)); });
}
// The next representable value of x's own type towards y, by stepping its bits.
template <class T> inline T __next_toward(T x, T y) {
  if (__builtin_isnan(float(x)) || __builtin_isnan(float(y))) return T(float(x) + float(y));
  if (float(x) == float(y)) return y;
  using Bits = conditional_t<sizeof(T) == 4, uint32_t, uint16_t>;
  const Bits sign = Bits(Bits(1) << (sizeof(T) * 8 - 1));
  Bits b = __bits_as<Bits>(x);
  if ((b & Bits(~sign)) == 0) b = Bits(1 | (float(y) < float(x) ? sign : 0));  // smallest subnormal towards y
  else if ((float(x) < float(y)) == ((b & sign) == 0)) ++b;                      // away from zero
  else --b;
  return __bits_as<T>(b);
}
template <__floating T> inline T nextafter(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return __next_toward(a, b); });
}
// fract(x) = fmin(x - floor(x), the largest value below 1), as the MSL specification defines it.
template <__floating T> inline T fract(T x) {
  return __map2(x, x, [](auto a, auto) {
    using E = decltype(a);
    const E below_one = __next_toward(E(1.0f), E(0.0f));
    return E(__builtin_fminf(float(E(float(a) - __builtin_floorf(float(a)))), float(below_one)));
  });
}

inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
MS_INTEGER_ARGUMENT_AMBIGUOUS3(fma)
#undef MS_INTEGER_ARGUMENT_AMBIGUOUS3
// a * b + c rounded once to half or bfloat: the product is exact in double, so is the sum's rounding error (two-sum),
// and the sum rounded to odd where it is not exact rounds to the narrow type as the exact value would.
inline double __fma_round_odd(double a, double b, double c) {
  const double product = a * b;
  const double sum = product + c;
  const double c_part = sum - product;
  const double error = (product - (sum - c_part)) + (c - c_part);
  const uint64_t bits = __builtin_bit_cast(uint64_t, sum);
  if (error == 0 || !__builtin_isfinite(sum) || (bits & 1u)) return sum;
  return __builtin_bit_cast(double, bits + ((error > 0) == (sum > 0) ? 1u : -1ull));
}
inline half fma(half a, half b, half c) { return half(__fma_round_odd(float(a), float(b), float(c))); }
inline bfloat fma(bfloat a, bfloat b, bfloat c) { return bfloat(__fma_round_odd(float(a), float(b), float(c))); }
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline V fma(const V& a, const V& b, const V& c) {
  return __map3(a, b, c, [](auto x, auto y, auto z) { return decltype(x)(fma(x, y, z)); });
}

// min/max/clamp/abs for every scalar and vector type (NaN: fmax semantics).
template <__plain T> inline T __smax(T a, T b) {
  if constexpr (is_floating_point_v<T>) return T(__builtin_fmaxf(float(a), float(b)));
  else return a > b ? a : b;
}
template <__plain T> inline T __smin(T a, T b) {
  if constexpr (is_floating_point_v<T>) return T(__builtin_fminf(float(a), float(b)));
  else return a < b ? a : b;
}
template <__plain T> inline T max(T a, T b) {
  return __map2(a, b, [](auto x, auto y) { return __smax(x, y); });
}
template <__plain T> inline T min(T a, T b) {
  return __map2(a, b, [](auto x, auto y) { return __smin(x, y); });
}
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline V max(V a, __elem_t<V> b) { return max(a, __ms_make<V>(b)); }
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline V min(V a, __elem_t<V> b) { return min(a, __ms_make<V>(b)); }
template <__plain T> inline T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
template <class V, enable_if_t<__is_vec<V>, int> = 0> inline V clamp(V x, __elem_t<V> lo, __elem_t<V> hi) {
  return clamp(x, __ms_make<V>(lo), __ms_make<V>(hi));
}
template <__plain T> inline T abs(T x) {
  return __map2(x, x, [](auto a, auto) -> decltype(a) {
    if constexpr (is_floating_point_v<decltype(a)>) return decltype(a)(__builtin_fabsf(float(a)));
    else if constexpr (is_signed_v<decltype(a)>) return a < 0 ? decltype(a)(-a) : a;
    else return a;
  });
}
template <__plain T> inline T fmax3(T a, T b, T c) { return fmax(fmax(a, b), c); }
template <__plain T> inline T fmin3(T a, T b, T c) { return fmin(fmin(a, b), c); }
template <__plain T> inline T max3(T a, T b, T c) { return max(max(a, b), c); }
template <__plain T> inline T min3(T a, T b, T c) { return min(min(a, b), c); }
template <__plain T> inline T median3(T a, T b, T c) { return max(min(a, b), min(max(a, b), c)); }
template <__plain T> inline T fmedian3(T a, T b, T c) { return fmax(fmin(a, b), fmin(fmax(a, b), c)); }
template <__floating T, class U> inline T mix(T x, T y, U a) { return x + (y - x) * a; }
template <__floating T> inline T smoothstep(T e0, T e1, T x) {
  T t = clamp(T((x - e0) / (e1 - e0)), __ms_make<T>(0.0f), __ms_make<T>(1.0f));
  return t * t * (__ms_make<T>(3.0f) - __ms_make<T>(2.0f) * t);
}
template <__floating V> inline __elem_t<V> dot(const V& a, const V& b) {
  __elem_t<V> s = 0;
  for (int i = 0; i < __vt<V>::n; ++i) s += a[i] * b[i];
  return s;
}
template <__floating V> inline __elem_t<V> length(const V& a) { return sqrt(dot(a, a)); }
template <__floating V> inline __elem_t<V> length_squared(const V& a) { return dot(a, a); }
template <__floating V> inline __elem_t<V> distance(const V& a, const V& b) { return length(a - b); }
template <__floating V> inline __elem_t<V> distance_squared(const V& a, const V& b) { return length_squared(a - b); }
// N if the incident vector points against the reference normal, -N otherwise.
template <__floating V> inline V faceforward(const V& n, const V& incident, const V& nref) {
  return dot(nref, incident) < __elem_t<V>(0.0f) ? n : V(-n);
}
template <__floating V> inline V reflect(const V& incident, const V& n) {
  return incident - __elem_t<V>(2.0f) * dot(n, incident) * n;
}
// Refraction with the ratio of indices eta; the zero vector on total internal reflection.
template <__floating V> inline V refract(const V& incident, const V& n, __elem_t<V> eta) {
  using E = __elem_t<V>;
  const E n_dot_i = dot(n, incident);
  const E k = E(1.0f) - eta * eta * (E(1.0f) - n_dot_i * n_dot_i);
  if (k < E(0.0f)) return __ms_make<V>(E(0.0f));
  return eta * incident - (eta * n_dot_i + sqrt(k)) * n;
}
template <__floating V> inline V normalize(const V& a) { return a * rsqrt(dot(a, a)); }
template <__floating V> inline V cross(const V& a, const V& b) {
  return __ms_make<V>(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}
// Matrices: C columns of R-component vectors, column-major like Metal's floatCxR.
template <class T, int C, int R> struct matrix {
  using column = vec<T, R>;
  column columns[C];
  matrix() = default;
  explicit matrix(T diagonal) {  // Metal: a scalar fills the diagonal, zeros elsewhere
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r) columns[c][r] = r == c ? diagonal : T(0);
  }
  template <class... A, enable_if_t<sizeof...(A) == C && (sizeof...(A) > 1), int> = 0> matrix(const A&... cols) {
    int c = 0;
    ((columns[c++] = __ms_make<column>(cols)), ...);
  }
  // Metal: from a matrix of the same size and another element type (`half3x3(m)` of a float3x3), column by column.
  template <class U, enable_if_t<!is_same_v<U, T>, int> = 0> explicit matrix(const matrix<U, C, R>& other) {
    for (int c = 0; c < C; ++c) columns[c] = __ms_make<column>(other.columns[c]);
  }
  template <class... A, enable_if_t<sizeof...(A) == C * R && (C * R > C), int> = 0> matrix(const A&... scalars) {
    T flat[C * R] = {T(scalars)...};
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r) columns[c][r] = flat[c * R + r];
  }
  column& operator[](int c) { return columns[c]; }
  const column& operator[](int c) const { return columns[c]; }
};
template <class T, int C, int R> inline vec<T, R> operator*(const matrix<T, C, R>& m, const vec<T, C>& v) {
  vec<T, R> out = __ms_make<vec<T, R>>(T(0));
  for (int c = 0; c < C; ++c) out += m[c] * v[c];
  return out;
}
template <class T, int C, int R> inline vec<T, C> operator*(const vec<T, R>& v, const matrix<T, C, R>& m) {
  vec<T, C> out;
  for (int c = 0; c < C; ++c) out[c] = dot(v, m[c]);
  return out;
}
template <class T, int K, int C, int R> inline matrix<T, C, R> operator*(const matrix<T, K, R>& a, const matrix<T, C, K>& b) {
  matrix<T, C, R> out;
  for (int c = 0; c < C; ++c) out[c] = a * b[c];
  return out;
}
#define MS_MATRIX_ELEMENTWISE(OP)                                                                       \
  template <class T, int C, int R> inline matrix<T, C, R> operator OP(matrix<T, C, R> a, const matrix<T, C, R>& b) { \
    for (int c = 0; c < C; ++c) a[c] = a[c] OP b[c];                                                    \
    return a;                                                                                           \
  }                                                                                                     \
  template <class T, int C, int R> inline matrix<T, C, R>& operator OP##=(matrix<T, C, R>& a, const matrix<T, C, R>& b) { \
    return a = a OP b;                                                                                  \
  }
MS_MATRIX_ELEMENTWISE(+) MS_MATRIX_ELEMENTWISE(-)
#undef MS_MATRIX_ELEMENTWISE
template <class T, int C, int R> inline matrix<T, C, R> operator*(matrix<T, C, R> m, T s) {
  for (int c = 0; c < C; ++c) m[c] = m[c] * s;
  return m;
}
template <class T, int C, int R> inline matrix<T, C, R> operator*(T s, const matrix<T, C, R>& m) { return m * s; }
template <class T, int C, int R> inline matrix<T, C, R>& operator*=(matrix<T, C, R>& m, T s) { return m = m * s; }
template <class T, int C, int R> inline matrix<T, R, C> transpose(const matrix<T, C, R>& m) {
  matrix<T, R, C> t;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) t[r][c] = m[c][r];
  return t;
}
// The determinant of a square matrix (2x2, 3x3, 4x4; Metal's `determinant`): a 4x4 by cofactors along column 0.
template <class T> inline T determinant(const matrix<T, 2, 2>& m) { return m[0][0] * m[1][1] - m[1][0] * m[0][1]; }
template <class T> inline T determinant(const matrix<T, 3, 3>& m) { return dot(m[0], cross(m[1], m[2])); }
template <class T> inline T determinant(const matrix<T, 4, 4>& m) {
  T det = T(0);
  for (int r = 0; r < 4; ++r) {
    matrix<T, 3, 3> minor;
    for (int c = 1; c < 4; ++c)
      for (int k = 0, row = 0; k < 4; ++k)
        if (k != r) minor[c - 1][row++] = m[c][k];
    det += (r % 2 ? T(-1) : T(1)) * m[0][r] * determinant(minor);
  }
  return det;
}
#define MS_MATRIX_TYPES(T)                                                                 \
  typedef matrix<T, 2, 2> T##2x2; typedef matrix<T, 2, 3> T##2x3; typedef matrix<T, 2, 4> T##2x4; \
  typedef matrix<T, 3, 2> T##3x2; typedef matrix<T, 3, 3> T##3x3; typedef matrix<T, 3, 4> T##3x4; \
  typedef matrix<T, 4, 2> T##4x2; typedef matrix<T, 4, 3> T##4x3; typedef matrix<T, 4, 4> T##4x4;
MS_MATRIX_TYPES(float) MS_MATRIX_TYPES(half)
#undef MS_MATRIX_TYPES

template <__plain T> inline bool __isnan1(T x) { return __builtin_isnan(float(x)); }
template <__floating T> inline auto isnan(T x) { return __map(x, [](auto a) { return __isnan1(a); }); }
template <__floating T> inline auto isinf(T x) { return __map(x, [](auto a) { return (bool)__builtin_isinf(float(a)); }); }
template <__floating T> inline auto isfinite(T x) { return __map(x, [](auto a) { return (bool)__builtin_isfinite(float(a)); }); }
template <__floating T> inline auto signbit(T x) { return __map(x, [](auto a) { return (bool)__builtin_signbit(float(a)); }); }
// A half below 2^-14 is subnormal though its float is normal (bfloat's range is float's).
template <__floating T> inline auto isnormal(T x) {
  return __map(x, [](auto a) {
    if constexpr (is_same_v<decltype(a), half>) return ((a.bits >> 10) & 0x1fu) != 0 && ((a.bits >> 10) & 0x1fu) != 0x1fu;
    else return (bool)__builtin_isnormal(float(a));
  });
}
template <__floating T> inline auto isordered(T x, T y) { return __map2_bool(x, y, [](float a, float b) { return a == a && b == b; }); }
template <__floating T> inline auto isunordered(T x, T y) { return __map2_bool(x, y, [](float a, float b) { return a != a || b != b; }); }
inline float divide(float a, float b) { return a / b; }
template <class V, enable_if_t<__is_fp_vec<V>, int> = 0> inline V divide(const V& a, const V& b) { return a / b; }


// ----------------------------------------------------- integer intrinsics
template <__plain T> inline T clz(T x) {
  return __map(x, [](auto a) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    U u = (U)a;
    if (u == 0) return decltype(a)(sizeof(U) * 8);
    if constexpr (sizeof(U) == 8) return decltype(a)(__builtin_clzll(u));
    else return decltype(a)(__builtin_clz((uint32_t)u) - (32 - sizeof(U) * 8));
  });
}
template <__plain T> inline T ctz(T x) {
  return __map(x, [](auto a) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    U u = (U)a;
    if (u == 0) return decltype(a)(sizeof(U) * 8);
    if constexpr (sizeof(U) == 8) return decltype(a)(__builtin_ctzll(u));
    else return decltype(a)(__builtin_ctz((uint32_t)u));
  });
}
template <__plain T> inline T popcount(T x) {
  return __map(x, [](auto a) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    return decltype(a)(__builtin_popcountll((unsigned long long)(U)a));
  });
}
template <__plain T> inline T mulhi(T x, T y) {
  return __map2(x, y, [](auto a, auto b) -> decltype(a) {
    using A = decltype(a);
    if constexpr (sizeof(A) == 8) {
      if constexpr (is_signed_v<A>) return A(((__int128)a * (__int128)b) >> 64);
      else return A(((unsigned __int128)a * (unsigned __int128)b) >> 64);
    } else {
      if constexpr (is_signed_v<A>) return A(((int64_t)a * (int64_t)b) >> (sizeof(A) * 8));
      else return A(((uint64_t)a * (uint64_t)b) >> (sizeof(A) * 8));
    }
  });
}
template <__plain T> inline T extract_bits(T x, uint offset, uint bits) {
  return __map(x, [=](auto a) -> decltype(a) {
    using A = decltype(a);
    using U = std::make_unsigned_t<A>;
    constexpr uint W = sizeof(A) * 8;
    if (bits == 0) return A(0);
    U v = (U)((U)a << (W - offset - bits));
    if constexpr (is_signed_v<A>) return A((A)v >> (W - bits));
    else return A(v >> (W - bits));
  });
}
template <__plain T> inline T insert_bits(T base, T ins, uint offset, uint bits) {
  return __map2(base, ins, [=](auto a, auto b) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    U mask = bits >= sizeof(U) * 8 ? U(~U(0)) : U(((U(1) << bits) - 1) << offset);
    return decltype(a)(((U)a & ~mask) | (((U)b << offset) & mask));
  });
}
template <__plain T> inline T reverse_bits(T x) {
  return __map(x, [](auto a) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    U u = (U)a, r = 0;
    for (uint i = 0; i < sizeof(U) * 8; ++i) r = U((r << 1) | ((u >> i) & 1));
    return decltype(a)(r);
  });
}
template <__plain T> inline T rotate(T x, T s) {
  return __map2(x, s, [](auto a, auto b) -> decltype(a) {
    using U = std::make_unsigned_t<decltype(a)>;
    constexpr uint W = sizeof(U) * 8;
    uint k = (uint)((U)b % W);
    return decltype(a)(k == 0 ? (U)a : U(((U)a << k) | ((U)a >> (W - k))));
  });
}
// The arithmetic functions below compute exactly in 128 bits, then wrap (absdiff, hadd, rhadd,
// madhi) or saturate (addsat, subsat, madsat) to the operands' type.
template <class A> inline A __saturate_to(__int128 v) {
  const __int128 lo = (__int128)numeric_limits<A>::min(), hi = (__int128)numeric_limits<A>::max();
  return A(v < lo ? lo : v > hi ? hi : v);
}
template <__plain T> inline T absdiff(T x, T y) {
  return __map2(x, y, [](auto a, auto b) {
    __int128 d = (__int128)a - (__int128)b;
    return decltype(a)(d < 0 ? -d : d);
  });
}
template <__plain T> inline T hadd(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return decltype(a)(((__int128)a + (__int128)b) >> 1); });
}
template <__plain T> inline T rhadd(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return decltype(a)(((__int128)a + (__int128)b + 1) >> 1); });
}
template <__plain T> inline T addsat(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return __saturate_to<decltype(a)>((__int128)a + (__int128)b); });
}
template <__plain T> inline T subsat(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return __saturate_to<decltype(a)>((__int128)a - (__int128)b); });
}
template <__plain T> inline T madsat(T x, T y, T z) {
  return __map3(x, y, z, [](auto a, auto b, auto c) -> decltype(a) {
    using A = decltype(a);
    if constexpr (sizeof(A) == 8 && is_unsigned_v<A>) {  // the product can exceed 128 signed bits
      A r;
      if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r)) return numeric_limits<A>::max();
      return r;
    } else {
      return __saturate_to<A>((__int128)a * (__int128)b + (__int128)c);
    }
  });
}
template <__plain T> inline T madhi(T x, T y, T z) { return T(mulhi(x, y) + z); }
// mul24 and mad24: products of 24-bit operands; MSL leaves the result of others to the implementation (here the
// product modulo 2^32, computed without the host's signed overflow).
template <__plain T> inline T mul24(T x, T y) {
  return __map2(x, y, [](auto a, auto b) { return decltype(a)((unsigned long long)(long long)a * (unsigned long long)(long long)b); });
}
template <__plain T> inline T mad24(T x, T y, T z) {
  return __map3(x, y, z, [](auto a, auto b, auto c) {
    return decltype(a)((unsigned long long)(long long)a * (unsigned long long)(long long)b + (unsigned long long)(long long)c);
  });
}

// ------------------------------------------------------------ pack, unpack
// Normalized integers (MSL "Pack and unpack functions"): unorm c of n bits is c / (2^n - 1), snorm is
// max(-1, c / (2^(n-1) - 1)); packing clamps to [0, 1] or [-1, 1], scales and rounds to nearest even
// (NaN packs as 0). Component 0 takes the least significant bits.
inline float __linear_to_srgb(float c) {
  return c <= 0.0031308f ? c * 12.92f : 1.055f * __builtin_powf(c, 1.0f / 2.4f) - 0.055f;
}
inline float __srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : __builtin_powf((c + 0.055f) / 1.055f, 2.4f);
}
inline float __norm_scale(int bits, bool is_signed) { return float((1u << (is_signed ? bits - 1 : bits)) - 1u); }
template <int N, class V> inline uint32_t __pack_norm(const V& v, const int (&bits)[N], bool is_signed, bool srgb = false) {
  uint32_t packed = 0;
  for (int i = 0, shift = 0; i < N; shift += bits[i], ++i) {
    float f = float(v[i]);
    if (f != f) continue;
    f = __builtin_fminf(__builtin_fmaxf(f, is_signed ? -1.0f : 0.0f), 1.0f);
    if (srgb && i < 3) f = __linear_to_srgb(f);
    const uint32_t code = (uint32_t)(int32_t)__builtin_rintf(f * __norm_scale(bits[i], is_signed));
    packed |= (code & ((1u << bits[i]) - 1u)) << shift;
  }
  return packed;
}
template <class R, int N> inline R __unpack_norm(uint32_t packed, const int (&bits)[N], bool is_signed, bool srgb = false) {
  R r;
  for (int i = 0, shift = 0; i < N; shift += bits[i], ++i) {
    const uint32_t code = (packed >> shift) & ((1u << bits[i]) - 1u);
    const float scale = __norm_scale(bits[i], is_signed);
    float f = is_signed ? __builtin_fmaxf(-1.0f, float((int32_t)(code << (32 - bits[i])) >> (32 - bits[i])) / scale)
                        : float(code) / scale;
    if (srgb && i < 3) f = __srgb_to_linear(f);
    r[i] = __elem_t<R>(f);
  }
  return r;
}
inline constexpr int __bits_4x8[4] = {8, 8, 8, 8}, __bits_2x16[2] = {16, 16}, __bits_10a2[4] = {10, 10, 10, 2},
                     __bits_565[3] = {5, 6, 5};
#define MS_PACK(NAME, VEC, BITS, SIGNED, SRGB) \
  inline uint NAME(VEC v) { return __pack_norm(v, BITS, SIGNED, SRGB); }
#define MS_UNPACK(NAME, VEC, BITS, SIGNED, SRGB) \
  inline VEC NAME(uint packed) { return __unpack_norm<VEC>(packed, BITS, SIGNED, SRGB); }
#define MS_PACK_BOTH(SUFFIX, N, BITS, SIGNED, SRGB)                                                  \
  MS_PACK(pack_float_to_##SUFFIX, float##N, BITS, SIGNED, SRGB)                                      \
  MS_PACK(pack_half_to_##SUFFIX, half##N, BITS, SIGNED, SRGB)
#define MS_UNPACK_BOTH(PREFIX, N, BITS, SIGNED, SRGB)                                                \
  MS_UNPACK(unpack_##PREFIX##_to_float, float##N, BITS, SIGNED, SRGB)                                \
  MS_UNPACK(unpack_##PREFIX##_to_half, half##N, BITS, SIGNED, SRGB)
MS_PACK_BOTH(unorm4x8, 4, __bits_4x8, false, false) MS_PACK_BOTH(snorm4x8, 4, __bits_4x8, true, false)
MS_PACK_BOTH(srgb_unorm4x8, 4, __bits_4x8, false, true) MS_PACK_BOTH(unorm2x16, 2, __bits_2x16, false, false)
MS_PACK_BOTH(snorm2x16, 2, __bits_2x16, true, false) MS_PACK_BOTH(unorm10a2, 4, __bits_10a2, false, false)
MS_UNPACK_BOTH(unorm4x8, 4, __bits_4x8, false, false) MS_UNPACK_BOTH(snorm4x8, 4, __bits_4x8, true, false)
MS_UNPACK_BOTH(unorm4x8_srgb, 4, __bits_4x8, false, true) MS_UNPACK_BOTH(unorm2x16, 2, __bits_2x16, false, false)
MS_UNPACK_BOTH(snorm2x16, 2, __bits_2x16, true, false) MS_UNPACK_BOTH(unorm10a2, 4, __bits_10a2, false, false)
MS_UNPACK_BOTH(unorm565, 3, __bits_565, false, false)
inline ushort pack_float_to_unorm565(float3 v) { return (ushort)__pack_norm(v, __bits_565, false); }
inline ushort pack_half_to_unorm565(half3 v) { return (ushort)__pack_norm(v, __bits_565, false); }
#undef MS_PACK_BOTH
#undef MS_UNPACK_BOTH
#undef MS_PACK
#undef MS_UNPACK

// ---------------------------------------------------------------- barriers
enum class mem_flags : uint32_t {
  mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4, mem_threadgroup_imageblock = 8,
  mem_object_data = 16
};
inline mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags((uint32_t)a | (uint32_t)b); }
inline void threadgroup_barrier(mem_flags f, MS_SITE) { metalsim_rt->threadgroup_barrier((uint32_t)f, __site.v); }
// simdgroup_barrier synchronises the SIMD group: an exchange with no payload.
inline void simdgroup_barrier(mem_flags f, MS_SITE) {
  (void)f;
  metalsim_rt->simd_exchange(nullptr, 0, __site.v);
  metalsim_rt->exchange_done();
}

// ----------------------------------------------------- SIMD-group functions
template <class T> struct __xchg {
  ms_exchange x;
  uint32_t site;
  __xchg(const T& v, __site_t s) : site(s.v) {
    static_assert(sizeof(T) <= METALSIM_SLOT_BYTES, "value too large for a SIMD-group function");
    x = metalsim_rt->simd_exchange(&v, sizeof(T), site);
  }
  ~__xchg() { metalsim_rt->exchange_done(); }
  bool active(uint32_t l) const { return l < 64 && ((x.active >> l) & 1); }
  T at(uint32_t l) const { return __bits_as<T>(*(const __attribute__((aligned(1))) __packed_bytes*)(x.slots + l * METALSIM_SLOT_BYTES)); }
  struct __packed_bytes { unsigned char b[sizeof(T)]; };
};
// What SIMD-group functions take (MSL, "SIMD-Group Functions"): scalars and vectors; the reductions and prefix
// operations no bool ones (Metal has no bool sum or and: MLX reduces bools with simd_all / simd_any). Anything else, a
// struct above all, meets an unavailable overload (MS_SIMD_REFUSED, below).
template <class T> concept __simd_value = !__is_swz<T> && (is_arithmetic_v<__elem_t<T>> || __is_packed<T>);
template <class T> concept __simd_number = __simd_value<T> && !is_same_v<__elem_t<T>, bool>;
template <class T, class F> inline T __reduce(const __xchg<T>& e, uint32_t lo, uint32_t hi, F f) {
  bool first = true;
  T acc{};
  for (uint32_t l = lo; l < hi; ++l)
    if (e.active(l)) { acc = first ? e.at(l) : f(acc, e.at(l)); first = false; }
  return acc;
}
#define MS_SIMD_REDUCE(NAME, QNAME, F)                                                 \
  template <__simd_number T> inline T NAME(T v, MS_SITE) {                              \
    __xchg<T> e(v, __site);                                                           \
    return __reduce(e, 0, 64, F);                                                      \
  }                                                                                   \
  template <__simd_number T> inline T QNAME(T v, MS_SITE) {                             \
    __xchg<T> e(v, __site);                                                           \
    uint32_t q = e.x.lane & ~3u;                                                      \
    return __reduce(e, q, q + 4, F);                                                   \
  }
MS_SIMD_REDUCE(simd_sum, quad_sum, [](T a, T b) { return T(a + b); })
MS_SIMD_REDUCE(simd_product, quad_product, [](T a, T b) { return T(a * b); })
MS_SIMD_REDUCE(simd_max, quad_max, [](T a, T b) { return max(a, b); })
MS_SIMD_REDUCE(simd_min, quad_min, [](T a, T b) { return min(a, b); })
MS_SIMD_REDUCE(simd_and, quad_and, [](T a, T b) { return T(a & b); })
MS_SIMD_REDUCE(simd_or, quad_or, [](T a, T b) { return T(a | b); })
MS_SIMD_REDUCE(simd_xor, quad_xor, [](T a, T b) { return T(a ^ b); })
#undef MS_SIMD_REDUCE

#define MS_SIMD_PREFIX(NAME, QNAME, INCL, ID, F)                                      \
  template <__simd_number T> inline T NAME(T v, MS_SITE) {                              \
    __xchg<T> e(v, __site);                                                           \
    return __prefix<INCL>(e, 0, T(ID), F);                                            \
  }                                                                                   \
  template <__simd_number T> inline T QNAME(T v, MS_SITE) {                             \
    __xchg<T> e(v, __site);                                                           \
    return __prefix<INCL>(e, e.x.lane & ~3u, T(ID), F);                               \
  }
template <bool Incl, class T, class F> inline T __prefix(const __xchg<T>& e, uint32_t lo, T identity, F f) {
  uint32_t end = Incl ? e.x.lane + 1 : e.x.lane;
  bool first = true;
  T acc{};
  for (uint32_t l = lo; l < end; ++l)
    if (e.active(l)) { acc = first ? e.at(l) : f(acc, e.at(l)); first = false; }
  return first ? identity : acc;
}
MS_SIMD_PREFIX(simd_prefix_inclusive_sum, quad_prefix_inclusive_sum, true, 0, [](T a, T b) { return T(a + b); })
MS_SIMD_PREFIX(simd_prefix_exclusive_sum, quad_prefix_exclusive_sum, false, 0, [](T a, T b) { return T(a + b); })
MS_SIMD_PREFIX(simd_prefix_inclusive_product, quad_prefix_inclusive_product, true, 1, [](T a, T b) { return T(a * b); })
MS_SIMD_PREFIX(simd_prefix_exclusive_product, quad_prefix_exclusive_product, false, 1, [](T a, T b) { return T(a * b); })
#undef MS_SIMD_PREFIX

// Lane `src`'s value. Reading a lane that is not active at the call (exited, in another branch, past a partial SIMD
// group's last thread) or past the SIMD group's 32 lanes is undefined in Metal: the runtime reports it and gives the
// bytes an uninitialized read finds (RunOptions::undefined_fill), so ksearch-metalsim can tell whether they reach the
// outputs. (shuffle_up/down keep the caller's own value at their edges: Metal's documented result, not a read.)
template <__plain T> inline T __lane(const __xchg<T>& e, uint32_t src, const char* function) {
  if (src < 32 && e.active(src)) return e.at(src);
  T undefined;
  __builtin_memset(&undefined, metalsim_rt->undefined_lane(function, e.x.active, src, e.site), sizeof(T));
  return undefined;
}
template <__simd_value T> inline T simd_shuffle(T v, ushort lane, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, lane, "simd_shuffle");
}
template <__simd_value T> inline T simd_broadcast(T v, ushort lane, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, lane, "simd_broadcast");
}
template <__simd_value T> inline T simd_broadcast_first(T v, MS_SITE) {
  __xchg<T> e(v, __site); return e.at((uint32_t)__builtin_ctzll(e.x.active));
}
template <__simd_value T> inline T simd_shuffle_up(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); uint32_t l = e.x.lane;
  return l >= d ? __lane(e, l - d, "simd_shuffle_up") : e.at(l);
}
template <__simd_value T> inline T simd_shuffle_down(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); uint32_t src = e.x.lane + d;
  return src < 32 ? __lane(e, src, "simd_shuffle_down") : e.at(e.x.lane);
}
template <__simd_value T> inline T simd_shuffle_xor(T v, ushort m, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, e.x.lane ^ m, "simd_shuffle_xor");
}
// Rotations wrap around the SIMD group's 32 lanes (its execution width), not its running threads: in a partial group
// the lanes past its last thread are read, which is undefined.
template <__simd_value T> inline T simd_shuffle_rotate_down(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane + d) % 32u, "simd_shuffle_rotate_down");
}
template <__simd_value T> inline T simd_shuffle_rotate_up(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane + 32u - d % 32u) % 32u, "simd_shuffle_rotate_up");
}
template <class T> struct __pair { T a, b; };
template <__simd_value T> inline T simd_shuffle_and_fill_down(T data, T fill, ushort d, ushort modulo, MS_SITE) {
  __xchg<__pair<T>> e(__pair<T>{data, fill}, __site);
  uint32_t l = e.x.lane, base = l - l % modulo, i = l % modulo + d;
  __pair<T> p = __lane(e, i < modulo ? base + i : base + i - modulo, "simd_shuffle_and_fill_down");
  return i < modulo ? p.a : p.b;
}
template <__simd_value T> inline T simd_shuffle_and_fill_down(T data, T fill, ushort d, MS_SITE) {
  return simd_shuffle_and_fill_down(data, fill, d, (ushort)32, __site);
}
template <__simd_value T> inline T simd_shuffle_and_fill_up(T data, T fill, ushort d, ushort modulo, MS_SITE) {
  __xchg<__pair<T>> e(__pair<T>{data, fill}, __site);
  uint32_t l = e.x.lane, base = l - l % modulo, i = l % modulo;
  if (i >= d) return __lane(e, base + i - d, "simd_shuffle_and_fill_up").a;
  return __lane(e, base + i + modulo - d, "simd_shuffle_and_fill_up").b;
}
template <__simd_value T> inline T simd_shuffle_and_fill_up(T data, T fill, ushort d, MS_SITE) {
  return simd_shuffle_and_fill_up(data, fill, d, (ushort)32, __site);
}

struct simd_vote {
  typedef uint64_t vote_t;
  vote_t v;
  explicit constexpr simd_vote(vote_t x = 0) : v(x) {}
  explicit operator vote_t() const { return v; }
  bool all() const { return v == __all_mask; }
  bool any() const { return v != 0; }
  vote_t __all_mask = 0;
};
inline simd_vote simd_ballot(bool c, MS_SITE) {
  __xchg<bool> e(c, __site);
  uint64_t m = 0;
  for (uint32_t l = 0; l < 64; ++l) if (e.active(l) && e.at(l)) m |= 1ull << l;
  simd_vote v(m); v.__all_mask = e.x.active;
  return v;
}
inline simd_vote simd_active_threads_mask(MS_SITE) { return simd_ballot(true, __site); }
inline bool simd_all(bool c, MS_SITE) { return simd_ballot(c, __site).all(); }
inline bool simd_any(bool c, MS_SITE) { return simd_ballot(c, __site).any(); }
inline bool simd_is_first(MS_SITE) {
  __xchg<bool> e(true, __site); return e.x.lane == (uint32_t)__builtin_ctzll(e.x.active);
}
template <__simd_value T> inline T quad_shuffle(T v, ushort l, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane & ~3u) + (l & 3u), "quad_shuffle");
}
template <__simd_value T> inline T quad_broadcast(T v, ushort l, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane & ~3u) + (l & 3u), "quad_broadcast");
}
template <__simd_value T> inline T quad_shuffle_xor(T v, ushort m, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane & ~3u) + ((e.x.lane ^ m) & 3u), "quad_shuffle_xor");
}
template <__simd_value T> inline T quad_shuffle_up(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); uint32_t i = e.x.lane & 3u;
  return i >= d ? __lane(e, e.x.lane - d, "quad_shuffle_up") : e.at(e.x.lane);
}
template <__simd_value T> inline T quad_shuffle_down(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); uint32_t i = e.x.lane & 3u;
  return i + d < 4 ? __lane(e, e.x.lane + d, "quad_shuffle_down") : e.at(e.x.lane);
}
template <__simd_value T> inline T quad_shuffle_rotate_down(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane & ~3u) + (((e.x.lane & 3u) + d) & 3u), "quad_shuffle_rotate_down");
}
template <__simd_value T> inline T quad_shuffle_rotate_up(T v, ushort d, MS_SITE) {
  __xchg<T> e(v, __site); return __lane(e, (e.x.lane & ~3u) + (((e.x.lane & 3u) + 4u - (d & 3u)) & 3u), "quad_shuffle_rotate_up");
}
template <__simd_value T> inline T quad_shuffle_and_fill_down(T data, T fill, ushort d, MS_SITE) {
  return simd_shuffle_and_fill_down(data, fill, d, (ushort)4, __site);
}
template <__simd_value T> inline T quad_shuffle_and_fill_up(T data, T fill, ushort d, MS_SITE) {
  return simd_shuffle_and_fill_up(data, fill, d, (ushort)4, __site);
}
struct quad_vote {
  typedef uint16_t vote_t;
  vote_t v, m;
  explicit operator vote_t() const { return v; }
  bool all() const { return v == m; }
  bool any() const { return v != 0; }
};
inline quad_vote quad_ballot(bool c, MS_SITE) {
  __xchg<bool> e(c, __site);
  uint32_t q = e.x.lane & ~3u;
  quad_vote r{0, 0};
  for (uint32_t i = 0; i < 4; ++i)
    if (e.active(q + i)) { r.m |= 1u << i; if (e.at(q + i)) r.v |= 1u << i; }
  return r;
}
inline bool quad_all(bool c, MS_SITE) { return quad_ballot(c, __site).all(); }
inline bool quad_any(bool c, MS_SITE) { return quad_ballot(c, __site).any(); }
inline quad_vote quad_active_threads_mask(MS_SITE) { return quad_ballot(true, __site); }
inline bool quad_is_first(MS_SITE) {
  quad_vote q = quad_ballot(true, __site);
  __xchg<bool> e(true, __site);
  return (e.x.lane & 3u) == (uint32_t)__builtin_ctz(q.m);
}

// ----------------------------------------------------------------- atomics
enum memory_order {
  memory_order_relaxed = 0, memory_order_acquire = 2, memory_order_release = 3, memory_order_acq_rel = 4,
  memory_order_seq_cst = 5
};
enum thread_scope { thread_scope_thread = 0, thread_scope_simdgroup = 1, thread_scope_threadgroup = 2, thread_scope_device = 3 };
// Orders this thread's own memory operations on the host; the race checks do not count a fence as
// ordering two threads (docs/METALSIM.md, "Data races").
inline void atomic_thread_fence(mem_flags, memory_order order, thread_scope = thread_scope_threadgroup) {
  if (order != memory_order_relaxed) __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
template <class T> struct atomic {
  static_assert(sizeof(T) == 4 || is_same_v<T, bool>, "Metal's atomics hold int, uint, float or bool");
  T __v;
};
typedef atomic<int> atomic_int;
typedef atomic<uint> atomic_uint;
typedef atomic<float> atomic_float;
typedef atomic<bool> atomic_bool;
// The integer an atomic's value is operated on as: 32 bits, or the byte of a bool.
template <class T> using __atomic_word = conditional_t<is_same_v<T, bool>, uint8_t, uint32_t>;

// kind: METALSIM_ACCESS_ATOMIC_POLL for the operations a spin-wait repeats (load, exchange, compare-exchange).
// Inlined into the atomic functions, which are calls of their own: the return address is the kernel's call.
template <class T>
MS_NOSAN __attribute__((always_inline)) inline void __atomic_check(volatile atomic<T>* p, int kind = METALSIM_ACCESS_ATOMIC) {
  if (__builtin_expect(metalsim_checking, 0)) metalsim_rt->access((const void*)p, sizeof(T), kind, __builtin_return_address(0));
}
template <class T> MS_NOSAN_CALL T atomic_load_explicit(volatile atomic<T>* p, memory_order) {
  __atomic_check(p, METALSIM_ACCESS_ATOMIC_POLL);
  __atomic_word<T> u = __atomic_load_n((volatile __atomic_word<T>*)&p->__v, __ATOMIC_RELAXED);
  return __builtin_bit_cast(T, u);
}
// The value operand is a type of its own, converted to T, as in Metal's metal_atomic (`template <typename T, typename U>
// ... U operand`): `atomic_fetch_add_explicit(&count, 1, ...)` on an atomic_uint or atomic_float compiles there.
template <class T, class U> using __atomic_operand = enable_if_t<std::is_convertible_v<U, T>, int>;
template <class T, class U, __atomic_operand<T, U> = 0>
MS_NOSAN_CALL void atomic_store_explicit(volatile atomic<T>* p, U desired, memory_order) {
  const T v = T(desired);
  __atomic_check(p, METALSIM_ACCESS_ATOMIC_STORE);
  __atomic_store_n((volatile __atomic_word<T>*)&p->__v, __builtin_bit_cast(__atomic_word<T>, v), __ATOMIC_RELAXED);
}
template <class T, class U, __atomic_operand<T, U> = 0>
MS_NOSAN_CALL T atomic_exchange_explicit(volatile atomic<T>* p, U desired, memory_order) {
  const T v = T(desired);
  __atomic_check(p, METALSIM_ACCESS_ATOMIC_POLL);
  return __builtin_bit_cast(T, __atomic_exchange_n((volatile __atomic_word<T>*)&p->__v,
                                                   __builtin_bit_cast(__atomic_word<T>, v), __ATOMIC_RELAXED));
}
template <class T, class U, __atomic_operand<T, U> = 0> MS_NOSAN_CALL bool atomic_compare_exchange_weak_explicit(
    volatile atomic<T>* p, T* expected, U desired, memory_order, memory_order) {
  __atomic_check(p, METALSIM_ACCESS_ATOMIC_POLL);
  __atomic_word<T> e = __builtin_bit_cast(__atomic_word<T>, *expected);
  bool ok = __atomic_compare_exchange_n((volatile __atomic_word<T>*)&p->__v, &e,
                                        __builtin_bit_cast(__atomic_word<T>, T(desired)), false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
  *expected = __builtin_bit_cast(T, e);
  return ok;
}
template <class T, class U, __atomic_operand<T, U> = 0> MS_NOSAN inline bool atomic_compare_exchange_strong_explicit(
    volatile atomic<T>* p, T* expected, U desired, memory_order a, memory_order b) {
  return atomic_compare_exchange_weak_explicit(p, expected, desired, a, b);
}
template <class T, class F> MS_NOSAN_CALL T __atomic_rmw(volatile atomic<T>* p, F f) {
  static_assert(!is_same_v<T, bool>, "an atomic bool takes load, store, exchange and compare-exchange only");
  __atomic_check(p);
  volatile uint32_t* q = (volatile uint32_t*)&p->__v;
  uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(q, &old, __builtin_bit_cast(uint32_t, f(__builtin_bit_cast(T, old))),
                                      true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return __builtin_bit_cast(T, old);
}
#define MS_ATOMIC_RMW(NAME, EXPR)                                                                  \
  template <class T, class U, __atomic_operand<T, U> = 0>                                            \
  MS_NOSAN inline T NAME(volatile atomic<T>* p, U operand, memory_order) {                          \
    const T v = T(operand);                                                                          \
    return __atomic_rmw(p, [v](T o) { return T(EXPR); });                                            \
  }
MS_ATOMIC_RMW(atomic_fetch_add_explicit, o + v)
MS_ATOMIC_RMW(atomic_fetch_sub_explicit, o - v)
MS_ATOMIC_RMW(atomic_fetch_and_explicit, o & v)
MS_ATOMIC_RMW(atomic_fetch_or_explicit, o | v)
MS_ATOMIC_RMW(atomic_fetch_xor_explicit, o ^ v)
MS_ATOMIC_RMW(atomic_fetch_min_explicit, o < v ? o : v)
MS_ATOMIC_RMW(atomic_fetch_max_explicit, o > v ? o : v)
#undef MS_ATOMIC_RMW
// Metal's atomic min and max take int and uint only (MLX's atomic.h emulates float ones with compare-exchange).
// (The template takes an operand of another type, which the generic one would otherwise accept.)
#define MS_NO_FLOAT_ATOMIC(NAME)                                                                       \
  float NAME(volatile atomic<float>*, float, memory_order) __attribute__((unavailable(                 \
      "Metal has no " #NAME " for atomic<float> (int and uint only): use a compare-exchange loop")));   \
  template <class U> float NAME(volatile atomic<float>*, U, memory_order) __attribute__((unavailable(  \
      "Metal has no " #NAME " for atomic<float> (int and uint only): use a compare-exchange loop")));
MS_NO_FLOAT_ATOMIC(atomic_fetch_min_explicit) MS_NO_FLOAT_ATOMIC(atomic_fetch_max_explicit)
#undef MS_NO_FLOAT_ATOMIC

// ------------------------------------------------------- simdgroup_matrix
// Every lane holds the whole 8x8 matrix (the SIMD group's values agree), so loads and multiplies need
// no exchange. A store writes only the two elements the lane owns in Metal's layout, so the 32 lanes
// together write the tile once. thread_elements() hands out the lane's two elements; after a lane may
// have written them (`owned_written`), the next use gathers every lane's two into the whole matrix.
// Lane l owns row (q & 4) + ((l >> 1) & 3), columns (q & 2) * 2 + (l & 1) * 2 + {0, 1}, q = l / 4.
inline int __sg_row(uint32_t lane) { return (int)(((lane >> 2) & 4u) + ((lane >> 1) & 3u)); }
inline int __sg_col(uint32_t lane) { return (int)(((lane >> 2) & 2u) * 2u + (lane & 1u) * 2u); }
template <class T, int R, int C> struct simdgroup_matrix {
  static_assert(R == 8 && C == 8, "only 8x8 simdgroup matrices exist");
  alignas(2 * sizeof(T)) mutable T m[8][8];
  mutable bool owned_written = false;
  simdgroup_matrix() = default;
  // Metal: a diagonal matrix with `diagonal` on the diagonal, zeros elsewhere.
  explicit simdgroup_matrix(T diagonal) {
    for (int i = 0; i < 8; ++i) for (int j = 0; j < 8; ++j) m[i][j] = i == j ? diagonal : T(0.0f);
  }
  vec<T, 2>& thread_elements() {
    owned_written = true;
    uint32_t lane = __lane();
    return *reinterpret_cast<vec<T, 2>*>(&m[__sg_row(lane)][__sg_col(lane)]);
  }
  vec<T, 2> thread_elements() const {
    uint32_t lane = __lane();
    return *reinterpret_cast<const vec<T, 2>*>(&m[__sg_row(lane)][__sg_col(lane)]);
  }
  static uint32_t __lane() {
    ms_exchange me = metalsim_rt->simd_exchange(nullptr, 0, 0xffffffffu);
    metalsim_rt->exchange_done();
    return me.lane;
  }
  // Collects every lane's two elements (lanes missing from a partial SIMD group keep this lane's values).
  const simdgroup_matrix& whole() const {
    if (!owned_written) return *this;
    const uint32_t lane = __lane();
    ms_exchange x = metalsim_rt->simd_exchange(&m[__sg_row(lane)][__sg_col(lane)], 2 * sizeof(T), 0xffffffffu);
    for (uint32_t l = 0; l < x.width; ++l)
      if ((x.active >> l) & 1) __builtin_memcpy(&m[__sg_row(l)][__sg_col(l)], x.slots + l * METALSIM_SLOT_BYTES, 2 * sizeof(T));
    metalsim_rt->exchange_done();
    owned_written = false;
    return *this;
  }
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;
typedef simdgroup_matrix<bfloat, 8, 8> simdgroup_bfloat8x8;

template <class T, int R, int C> inline simdgroup_matrix<T, R, C> make_filled_simdgroup_matrix(T v) {
  simdgroup_matrix<T, R, C> r;
  for (int i = 0; i < 8; ++i) for (int j = 0; j < 8; ++j) r.m[i][j] = v;
  return r;
}
// An access check from a shim function: never inlined, so that the return address is in its caller's code (the
// kernel's line where that function was inlined into it).
MS_NOSAN_CALL inline void __ms_check(const void* p, uint32_t bytes, int kind) {
  metalsim_rt->access(p, bytes, kind, __builtin_return_address(0));
}
inline void __ms_check_rows(const void* p, ulong stride_bytes, uint32_t row_bytes) {
  if (!__builtin_expect(metalsim_checking, 0)) return;
  for (int i = 0; i < 8; ++i) __ms_check((const char*)p + i * stride_bytes, row_bytes, METALSIM_ACCESS_READ);
}
template <class T, class S> MS_NOSAN inline void simdgroup_load(simdgroup_matrix<T, 8, 8>& d, const S* src,
    ulong elements_per_row = 8, ulong2 origin = ulong2(0), bool transpose = false) {
  const S* p = src + origin.y * elements_per_row + origin.x;
  __ms_check_rows(p, elements_per_row * sizeof(S), 8 * sizeof(S));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      d.m[transpose ? j : i][transpose ? i : j] = T(p[i * elements_per_row + j]);
  d.owned_written = false;
}
template <class T, class S> MS_NOSAN inline void simdgroup_store(const simdgroup_matrix<T, 8, 8>& a, S* dst,
    ulong elements_per_row = 8, ulong2 origin = ulong2(0), bool transpose = false) {
  uint32_t l = simdgroup_matrix<T, 8, 8>::__lane();
  int row = __sg_row(l), col = __sg_col(l);
  S* p = dst + origin.y * elements_per_row + origin.x;
  for (int k = 0; k < 2; ++k) {
    int i = row, j = col + k;
    S* q2 = transpose ? p + j * elements_per_row + i : p + i * elements_per_row + j;
    if (__builtin_expect(metalsim_checking, 0)) __ms_check(q2, sizeof(S), METALSIM_ACCESS_WRITE);
    *q2 = S(a.m[i][j]);
  }
}
// d = a * b + c, in float, rounded to d's type; a, b, c and d may have different element types
// (e.g. half inputs, a float accumulator).
template <class D, class A, class B, class C> MS_NOSAN inline void simdgroup_multiply_accumulate(
    simdgroup_matrix<D, 8, 8>& d, const simdgroup_matrix<A, 8, 8>& a, const simdgroup_matrix<B, 8, 8>& b,
    const simdgroup_matrix<C, 8, 8>& c) {
  const auto& wa = a.whole();
  const auto& wb = b.whole();
  const auto& wc = c.whole();
  float fa[8][8], fb[8][8], r[8][8];
  for (int i = 0; i < 8; ++i) for (int j = 0; j < 8; ++j) { fa[i][j] = float(wa.m[i][j]); fb[i][j] = float(wb.m[i][j]); r[i][j] = float(wc.m[i][j]); }
  for (int i = 0; i < 8; ++i) for (int k = 0; k < 8; ++k) for (int j = 0; j < 8; ++j) r[i][j] += fa[i][k] * fb[k][j];
  for (int i = 0; i < 8; ++i) for (int j = 0; j < 8; ++j) d.m[i][j] = D(r[i][j]);
  d.owned_written = false;
}
template <class D, class A, class B> inline void simdgroup_multiply(simdgroup_matrix<D, 8, 8>& d,
    const simdgroup_matrix<A, 8, 8>& a, const simdgroup_matrix<B, 8, 8>& b) {
  simdgroup_multiply_accumulate(d, a, b, make_filled_simdgroup_matrix<D, 8, 8>(D(0.0f)));
}

// ---------------------------------------------------------- threadgroup memory
// Functions overloaded by address space only (`float load(device const float* p)` beside `float load(threadgroup
// const float* p)`): the rewrite gives each a leading tag parameter naming its parameters' spaces (METALSIM_SPACE_*, 0
// for one that is no pointer or reference; space_overloads.cpp) and makes each call `__ms_space_call<tags...>("load",
// __MS_SPACE_CALLEE(load))(args...)`, which passes the tag whose spaces the arguments' memory has, as Metal picks the
// overload by the arguments' types. A call that no tagged overload accepts goes to the name's others (`load(1.0f)`).
template <int... S> struct __ms_spaces {
  static constexpr int at(std::size_t k) {
    constexpr int wanted[] = {S..., 0};
    return k < sizeof...(S) ? wanted[k] : 0;
  }
};
template <class A> inline int __ms_space_of(const A& a) {
  if constexpr (std::is_pointer_v<A>) return metalsim_rt->address_space((const void*)a);
  else return metalsim_rt->address_space((const void*)__builtin_addressof(a));
}
template <class Tag, class... A> inline bool __ms_spaces_take(const A&... a) {
  std::size_t k = 0;
  bool ok = true;
  ((ok = ok && (Tag::at(k) == 0 || Tag::at(k) == __ms_space_of(a)), ++k), ...);
  return ok;
}
// No overload takes the arguments' spaces, which Metal's compiler refuses: the runtime reports it, naming each
// pointer or reference argument's space (the overloads' indirect parameters are the same: only spaces differ).
template <class Tag, class... A>
__attribute__((noinline)) void __ms_no_space_overload(const char* name, const A&... a) {
  int spaces[sizeof...(A) + 1] = {};
  std::size_t k = 0;
  ((spaces[k] = Tag::at(k) ? __ms_space_of(a) : 0, ++k), ...);
  metalsim_rt->unmatched_overload(name, spaces, (uint32_t)sizeof...(A), __builtin_return_address(0));
}
// Inlined into the call, so that a finding's return address names the kernel's line.
template <class F, class Tag, class... Rest, class... A>
__attribute__((always_inline)) inline decltype(auto) __ms_space_pick(const char* name, F& f, A&&... a) {
  if constexpr (sizeof...(Rest) > 0) {
    if (!__ms_spaces_take<Tag>(a...)) return __ms_space_pick<F, Rest...>(name, f, static_cast<A&&>(a)...);
  } else {
    if (!__ms_spaces_take<Tag>(a...)) __ms_no_space_overload<Tag>(name, a...);  // does not return
  }
  return f(Tag{}, static_cast<A&&>(a)...);
}
template <class F, class... Tags> struct __ms_space_overloaded {
  const char* name;
  F f;
  template <class... A> __attribute__((always_inline)) decltype(auto) operator()(A&&... a) {
    if constexpr ((std::is_invocable_v<F&, Tags, A&&...> && ...))
      return __ms_space_pick<F, Tags...>(name, f, static_cast<A&&>(a)...);
    else
      return f(static_cast<A&&>(a)...);
  }
};
template <class... Tags, class F> inline __ms_space_overloaded<F, Tags...> __ms_space_call(const char* name, F f) {
  return {name, f};
}
// `threadgroup T name[N];` is rewritten to `auto& name = __ms_tg<T[N], id, "name">();`. The alias names the type in
// -fsanitize=array-bounds' report of an index past it, which the runtime leaves to the access check: that one names
// the variable, and its red zones catch the access a pointer makes too.
template <class X> using __ms_tg_array = X;
// A variable's name as a template argument, so that its declaration's entry (below) can hold it.
template <uint32_t L> struct __ms_tg_name {
  char text[L];
  constexpr __ms_tg_name(const char (&s)[L]) {
    for (uint32_t i = 0; i < L; ++i) text[i] = s[i];
  }
};
// Saturated: a 4 GiB array must not pass as an empty one.
template <class X> constexpr uint32_t __ms_tg_bytes = sizeof(X) > 0xffffffffu ? 0xffffffffu : uint32_t(sizeof(X));
// A variable's alignment: its type's, or more where the declaration asks (`alignas(16) threadgroup float tile[256];`).
template <class X, std::size_t Asked> constexpr uint32_t __ms_tg_align = uint32_t(Asked > alignof(X) ? Asked : alignof(X));
template <class X, uint32_t Id, __ms_tg_name Name, std::size_t Align> constexpr ms_tg_decl __ms_tg_entry() {
  ms_tg_decl d{Id, __ms_tg_bytes<X>, __ms_tg_align<X, Align>, {}};
  for (uint32_t i = 0; i + 1 < sizeof d.name && i < sizeof Name.text; ++i) d.name[i] = Name.text[i];
  return d;
}
// Every declaration the compiler instantiates has an entry in the metalsim_tg section, whether a thread reaches it or
// not: Metal sizes a kernel's threadgroup memory from all of them, which the runtime checks before a launch.
template <class X, uint32_t Id, __ms_tg_name Name, std::size_t Align> struct __ms_tg_declaration {
  [[gnu::used, gnu::section("metalsim_tg")]] static constexpr ms_tg_decl entry = __ms_tg_entry<X, Id, Name, Align>();
};
template <class X, uint32_t Id, __ms_tg_name Name, std::size_t Align = 1> inline __ms_tg_array<X>& __ms_tg() {
  (void)&__ms_tg_declaration<X, Id, Name, Align>::entry;
  return *(X*)metalsim_rt->threadgroup_alloc(Id, __ms_tg_bytes<X>, __ms_tg_align<X, Align>, Name.text);
}

// ------------------------------------------------ swizzle arguments
// A swizzle of a half/bfloat/bool vector (`h.xy`) is a proxy object; a call with one as an argument goes to
// this overload, which passes its vector value on (the function templates above take `__plain` types only).
// enable_if, not a requires-clause: clang 14 substitutes the return type before checking constraints.
#define MS_UNSWIZZLE(NAME)                                                                     \
  template <class... A, enable_if_t<(__is_swz<std::remove_cvref_t<A>> || ...), int> = 0>        \
  inline auto NAME(A&&... a) -> decltype(NAME(__unswz_arg(std::forward<A>(a))...)) {          \
    return NAME(__unswz_arg(std::forward<A>(a))...);                                           \
  }
#define MS_UNSWIZZLE_EACH(...) MS_FOR_EACH(MS_UNSWIZZLE, __VA_ARGS__)
#define MS_FOR_EACH(F, ...) __VA_OPT__(MS_FE_EXPAND(MS_FE_HELPER(F, __VA_ARGS__)))
#define MS_FE_HELPER(F, a1, ...) F(a1) __VA_OPT__(MS_FE_AGAIN MS_FE_PARENS(F, __VA_ARGS__))
#define MS_FE_AGAIN() MS_FE_HELPER
#define MS_FE_PARENS ()
#define MS_FE_EXPAND(...) MS_FE_EXPAND4(MS_FE_EXPAND4(MS_FE_EXPAND4(MS_FE_EXPAND4(__VA_ARGS__))))
#define MS_FE_EXPAND4(...) MS_FE_EXPAND3(MS_FE_EXPAND3(MS_FE_EXPAND3(MS_FE_EXPAND3(__VA_ARGS__))))
#define MS_FE_EXPAND3(...) MS_FE_EXPAND2(MS_FE_EXPAND2(MS_FE_EXPAND2(MS_FE_EXPAND2(__VA_ARGS__))))
#define MS_FE_EXPAND2(...) __VA_ARGS__
#define MS_MATH_FUNCTIONS                                                                            \
  exp, exp2, exp10, log, log2, log10, sqrt, rsqrt, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh,  \
  asinh, acosh, atanh, floor, ceil, round, rint, trunc, fabs, fract, saturate, sign, log1p, cbrt,        \
  cospi, sinpi, tanpi, pow, powr, atan2, fmod, fmax, fmin, copysign, hypot, fdim, remainder,      \
  ldexp, frexp, modf, sincos, ilogb, nextafter, fma, fmax3, fmin3, fmedian3, divide, abs, max, min,     \
  clamp, max3, min3, median3, mix, step, smoothstep, dot, length, length_squared, distance,             \
  distance_squared, normalize, cross
MS_UNSWIZZLE_EACH(MS_MATH_FUNCTIONS)
MS_UNSWIZZLE_EACH(faceforward, reflect, refract, isnan, isinf, isfinite, isnormal, signbit, isordered,
                  isunordered, select, all, any, clz, ctz, popcount, mulhi, madhi, mul24, mad24, extract_bits,
                  insert_bits, reverse_bits, rotate, absdiff, hadd, rhadd, addsat, subsat, madsat,
                  pack_half_to_unorm4x8, pack_half_to_snorm4x8, pack_half_to_srgb_unorm4x8,
                  pack_half_to_unorm2x16, pack_half_to_snorm2x16, pack_half_to_unorm10a2, pack_half_to_unorm565)
// SIMD-group functions: the call site stays the caller's (MS_SITE), so one overload per argument list.
#define MS_UNSWIZZLE_SIMD(NAME)                                                                  \
  template <class S> requires __is_swz<S> inline auto NAME(const S& v, MS_SITE) {               \
    return NAME(__unswz(v), __site);                                                            \
  }                                                                                             \
  template <class S> requires __is_swz<S> inline auto NAME(const S& v, ushort k, MS_SITE) {     \
    return NAME(__unswz(v), k, __site);                                                         \
  }                                                                                             \
  template <class S, class F> requires(__is_swz<S> || __is_swz<F>)                              \
  inline auto NAME(const S& data, const F& fill, ushort k, MS_SITE) {                          \
    return NAME(__unswz(data), __unswz(fill), k, __site);                                       \
  }                                                                                             \
  template <class S, class F> requires(__is_swz<S> || __is_swz<F>)                              \
  inline auto NAME(const S& data, const F& fill, ushort k, ushort modulo, MS_SITE) {           \
    return NAME(__unswz(data), __unswz(fill), k, modulo, __site);                               \
  }
MS_FOR_EACH(MS_UNSWIZZLE_SIMD, simd_sum, simd_product, simd_max, simd_min, simd_and, simd_or, simd_xor,
            quad_sum, quad_product, quad_max, quad_min, quad_and, quad_or, quad_xor, simd_prefix_inclusive_sum,
            simd_prefix_exclusive_sum, simd_prefix_inclusive_product, simd_prefix_exclusive_product,
            quad_prefix_inclusive_sum, quad_prefix_exclusive_sum, quad_prefix_inclusive_product,
            quad_prefix_exclusive_product, simd_shuffle, simd_broadcast, simd_broadcast_first, simd_shuffle_up,
            simd_shuffle_down, simd_shuffle_xor, simd_shuffle_rotate_up, simd_shuffle_rotate_down,
            simd_shuffle_and_fill_up, simd_shuffle_and_fill_down, quad_shuffle, quad_broadcast, quad_shuffle_xor,
            quad_shuffle_up, quad_shuffle_down, quad_shuffle_rotate_up, quad_shuffle_rotate_down,
            quad_shuffle_and_fill_up, quad_shuffle_and_fill_down)
#undef MS_UNSWIZZLE_SIMD
// The SIMD-group functions' other arguments (a struct, a bool sum): an error naming the call, as on a Mac, where the
// templates above leave the host compiler's "no matching function".
#define MS_SIMD_REFUSED(TAKES, MESSAGE, NAME)                                                     \
  template <class T, class... Rest> requires(!TAKES<T> && !__is_swz<T>)                           \
  T NAME(T, Rest...) __attribute__((unavailable(MESSAGE)));
#define MS_REDUCTION_REFUSED(NAME)                                                                \
  MS_SIMD_REFUSED(__simd_number, "Metal's SIMD-group reductions take scalars and vectors of numbers, not bool values " \
                  "or structs (reduce a bool with simd_all / simd_any, or count it as uint(b))", NAME)
#define MS_SHUFFLE_REFUSED(NAME)                                                                  \
  MS_SIMD_REFUSED(__simd_value, "Metal's SIMD-group shuffles and broadcasts take scalars and vectors, not structs " \
                  "(exchange a struct member by member)", NAME)
MS_FOR_EACH(MS_REDUCTION_REFUSED, simd_sum, simd_product, simd_max, simd_min, simd_and, simd_or, simd_xor, quad_sum,
            quad_product, quad_max, quad_min, quad_and, quad_or, quad_xor, simd_prefix_inclusive_sum,
            simd_prefix_exclusive_sum, simd_prefix_inclusive_product, simd_prefix_exclusive_product,
            quad_prefix_inclusive_sum, quad_prefix_exclusive_sum, quad_prefix_inclusive_product,
            quad_prefix_exclusive_product)
MS_FOR_EACH(MS_SHUFFLE_REFUSED, simd_shuffle, simd_broadcast, simd_broadcast_first, simd_shuffle_up, simd_shuffle_down,
            simd_shuffle_xor, simd_shuffle_rotate_up, simd_shuffle_rotate_down, simd_shuffle_and_fill_up,
            simd_shuffle_and_fill_down, quad_shuffle, quad_broadcast, quad_shuffle_xor, quad_shuffle_up,
            quad_shuffle_down, quad_shuffle_rotate_up, quad_shuffle_rotate_down, quad_shuffle_and_fill_up,
            quad_shuffle_and_fill_down)
#undef MS_SHUFFLE_REFUSED
#undef MS_REDUCTION_REFUSED
#undef MS_SIMD_REFUSED
#undef MS_UNSWIZZLE_EACH
#undef MS_UNSWIZZLE

// fast:: and precise:: variants of the math functions: the host libm for both (at least as accurate as
// Metal's precise::). Declared after every overload above, which a using-declaration must see.
#define MS_USING(NAME) using metal::NAME;
namespace fast {
MS_FOR_EACH(MS_USING, MS_MATH_FUNCTIONS)
}  // namespace fast
namespace precise {
MS_FOR_EACH(MS_USING, MS_MATH_FUNCTIONS)
}  // namespace precise
#undef MS_USING
#undef MS_MATH_FUNCTIONS
#undef MS_FOR_EACH
#undef MS_FE_HELPER
#undef MS_FE_AGAIN
#undef MS_FE_PARENS
#undef MS_FE_EXPAND
#undef MS_FE_EXPAND4
#undef MS_FE_EXPAND3
#undef MS_FE_EXPAND2

}  // namespace metal

using namespace metal;

// ------------------------------------------------------------ Metal constants
// MAXFLOAT is the largest finite float, as in OpenCL C and C's math.h (kernels use -MAXFLOAT as a mask value
// whose differences stay finite); HUGE_VALF and INFINITY are +inf.
#define MAXFLOAT 0x1.fffffep+127f
#define HUGE_VALF __builtin_inff()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define FLT_MAX 0x1.fffffep+127f
#define FLT_MIN 0x1p-126f
#define FLT_EPSILON 0x1p-23f
#define HALF_MAX 65504.0f
#define MAXHALF HALF_MAX
#define HUGE_VALH half(__builtin_inff())
#define HALF_MIN 0x1p-14f
#define HALF_EPSILON 0x1p-10f
#define M_LOG10E_F 0.43429448190325182765f
#define M_PI_2_F 1.57079632679489661923f
#define M_PI_4_F 0.78539816339744830962f
#define M_2_PI_F 0.63661977236758134308f
#define M_2_SQRTPI_F 1.12837916709551257390f
#define M_SQRT1_2_F 0.70710678118654752440f
#define M_PI_F 3.14159265358979323846f
#define M_E_F 2.71828182845904523536f
#define M_LOG2E_F 1.44269504088896340736f
#define M_LN2_F 0.69314718055994530942f
#define M_LN10_F 2.30258509299404568402f
#define M_SQRT2_F 1.41421356237309504880f
#define M_1_PI_F 0.31830988618379067154f
// The half forms (Metal writes them as half literals)
#define M_E_H half(M_E_F)
#define M_LOG2E_H half(M_LOG2E_F)
#define M_LOG10E_H half(M_LOG10E_F)
#define M_LN2_H half(M_LN2_F)
#define M_LN10_H half(M_LN10_F)
#define M_PI_H half(M_PI_F)
#define M_PI_2_H half(M_PI_2_F)
#define M_PI_4_H half(M_PI_4_F)
#define M_1_PI_H half(M_1_PI_F)
#define M_2_PI_H half(M_2_PI_F)
#define M_2_SQRTPI_H half(M_2_SQRTPI_F)
#define M_SQRT2_H half(M_SQRT2_F)
#define M_SQRT1_2_H half(M_SQRT1_2_F)

// ------------------------------------------------------ MLX utils equivalents
typedef half float16_t;
typedef bfloat bfloat16_t;

// MLX's Limits: for floating types max/min are +-infinity and finite_max/finite_min the largest finite values,
// for integers the type's range. Constant-initialized from bits, so they are read-only data (a dynamic initializer
// would make writable variables with guards, which metalsim refuses in kernels as mutable state).
template <class U> constexpr U __mlx_limit(bool infinite, bool negative) {
  if constexpr (metal::is_floating_point_v<U>) {
    using Bits = conditional_t<sizeof(U) == 4, uint32_t, uint16_t>;
    constexpr bool f32 = sizeof(U) == 4, f16 = is_same_v<U, half>;
    const Bits inf = f32 ? 0x7f800000u : f16 ? 0x7c00u : 0x7f80u;
    const Bits largest = f32 ? 0x7f7fffffu : f16 ? 0x7bffu : 0x7f7fu;
    const Bits sign = f32 ? 0x80000000u : 0x8000u;
    return __builtin_bit_cast(U, Bits((infinite ? inf : largest) | (negative ? sign : 0)));
  } else {
    return negative ? metal::numeric_limits<U>::min() : metal::numeric_limits<U>::max();
  }
}
template <class U> struct Limits {
  static constexpr U max = __mlx_limit<U>(true, false);
  static constexpr U min = __mlx_limit<U>(true, true);
  static constexpr U finite_max = __mlx_limit<U>(false, false);
  static constexpr U finite_min = __mlx_limit<U>(false, true);
};

template <typename IdxT = int64_t>
inline IdxT elem_to_loc(uint elem, const int* shape, const int64_t* strides, int ndim) {
  IdxT loc = 0;
  for (int i = ndim - 1; i >= 0 && elem > 0; --i) {
    loc += (IdxT)(elem % shape[i]) * IdxT(strides[i]);
    elem /= shape[i];
  }
  return loc;
}
template <typename IdxT = int64_t>
inline IdxT elem_to_loc(uint3 elem, const int* shape, const int64_t* strides, int ndim) {
  IdxT loc = (IdxT)elem.x * IdxT(strides[ndim - 1]) + (IdxT)elem.y * IdxT(strides[ndim - 2]);
  for (int d = ndim - 3; d >= 0; --d) {
    loc += (IdxT)(elem.z % shape[d]) * IdxT(strides[d]);
    elem.z /= shape[d];
  }
  return loc;
}
template <typename IdxT = int64_t> inline IdxT elem_to_loc_1(uint elem, const int64_t& stride) {
  return (IdxT)elem * IdxT(stride);
}
template <typename IdxT = int64_t> inline IdxT elem_to_loc_2(uint2 elem, const int64_t strides[2]) {
  return (IdxT)elem.x * IdxT(strides[1]) + (IdxT)elem.y * IdxT(strides[0]);
}
template <typename IdxT = int64_t> inline IdxT elem_to_loc_3(uint3 elem, const int64_t strides[3]) {
  return (IdxT)elem.x * IdxT(strides[2]) + (IdxT)elem.y * IdxT(strides[1]) + (IdxT)elem.z * IdxT(strides[0]);
}
template <typename T, typename U> inline T ceildiv(T N, U M) { return (N + M - 1) / M; }
// Elements a thread of MLX's elementwise kernels takes: 8 bytes' worth.
template <typename U> struct WorkPerThread {
  static_assert(sizeof(U) <= 8, "Type too large");
  static constexpr int n = 8 / sizeof(U);
};
// MLX's stand-in for std::conditional.
template <bool condition, typename T, typename U> struct ConditionalType { using type = U; };
template <typename T, typename U> struct ConditionalType<true, T, U> { using type = T; };
// A conversion; to bool, a float or bfloat is true unless it is a zero of either sign (NaN too is true).
template <typename U, typename T> inline U cast_to(T val) { return static_cast<U>(val); }
template <> inline bool cast_to<bool, float>(float val) { return (as_type<uint32_t>(val) & 0x7fffffffu) != 0; }
template <> inline bool cast_to<bool, bfloat>(bfloat val) { return (as_type<uint16_t>(val) & 0x7fffu) != 0; }
inline uint16_t bfloat16_to_uint16(const bfloat16_t x) { return as_type<uint16_t>(x); }
inline bfloat16_t uint16_to_bfloat16(const uint16_t x) { return as_type<bfloat16_t>(x); }
// Locations of one element in two or three arrays of the same shape and their own strides: x and y step the two
// innermost dimensions, z the others together.
template <typename IdxT, int N>
inline vec<IdxT, N> __elem_to_loc_nd(uint3 elem, const int* shape, const int64_t* const (&strides)[N], int ndim) {
  vec<IdxT, N> loc;
  for (int k = 0; k < N; ++k)
    loc[k] = IdxT(elem.x * IdxT(strides[k][ndim - 1])) + IdxT(elem.y * IdxT(strides[k][ndim - 2]));
  for (int d = ndim - 3; d >= 0; --d) {
    const uint l = elem.z % shape[d];
    for (int k = 0; k < N; ++k) loc[k] += l * IdxT(strides[k][d]);
    elem.z /= shape[d];
  }
  return loc;
}
template <typename IdxT = int64_t>
inline vec<IdxT, 2> elem_to_loc_2_nd(uint3 elem, const int* shape, const int64_t* a_strides, const int64_t* b_strides,
                                     int ndim) {
  return __elem_to_loc_nd<IdxT, 2>(elem, shape, {a_strides, b_strides}, ndim);
}
template <typename IdxT = int64_t>
inline vec<IdxT, 3> elem_to_loc_3_nd(uint3 elem, const int* shape, const int64_t* a_strides, const int64_t* b_strides,
                                     const int64_t* c_strides, int ndim) {
  return __elem_to_loc_nd<IdxT, 3>(elem, shape, {a_strides, b_strides, c_strides}, ndim);
}
// MLX's defines.h, part of every custom kernel's source too: its constants (a kernel defining one of them again does
// not compile on a Mac either), `constant` as MTL_CONST and the macro that instantiates a kernel template.
#define MTL_CONST const
static constexpr int MAX_REDUCE_SPECIALIZED_DIMS = 4;
static constexpr int REDUCE_N_READS = 4;
static constexpr int REDUCE_N_WRITES = 4;
static constexpr int SOFTMAX_N_READS = 4;
static constexpr int RMS_N_READS = 4;
static constexpr int RMS_LOOPED_LIMIT = 4096;
static constexpr int CROSS_ENTROPY_N_READS = 4;
#define instantiate_kernel(name, func, ...) template decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;
// MLX's logging.h: a kernel's log calls, which print nothing here.
namespace mlx {
struct os_log {
  constexpr os_log(const char*, const char*) {}
  template <typename... Args> void log_debug(const char*, Args...) const {}
};
}  // namespace mlx
