// expect: passes
// What Metal accepts of half, bfloat and bool vectors beside scalars (comparisons with a scalar, a scalar converting
// to a vector in an initializer, an assignment and an argument, &= and |= of bool vectors), matrix compound
// assignments, a comparison inside a macro and in a brace list, and values rounded once as the MSL specification
// defines them: fma and literals of half, an int converted to bfloat (2^60 + 2^52 + 1 too: above a tie that a double
// would round onto), sign of -0, saturate of NaN, tanpi's poles, isnormal of a half subnormal, a swizzle assigned the
// vector it names.
#define POSITIVE(v) float4((v) > 0.0f)
half pair_sum(half4 v) { return v.x + v.y; }
// --- body ---
uint i = thread_position_in_grid.x;
half4 h = half4(1.0h, 2.0h, 3.0h, 4.0h);
bool4 below = h < 3.0h;
below &= bool4(true);
below |= bool4(false, false, false, true);
half4 filled = 0.0h;
filled = 2;
float2x2 m = float2x2(1.0f);
m += float2x2(1.0f);
m -= float2x2(0.5f);
m *= 2.0f;
float4 positive = POSITIVE(float4(-1.0f, 2.0f, 0.0f, 3.0f));
half4 reversed = h;
reversed.wzyx = reversed;
const float nan_value = as_type<float>(0x7fc00000u);
bool4 signs[2] = {positive > 0.5f, {positive < 0.5f}};
bool ok = all(h > 0.0h) && any(h == 2) && all(below == bool4(true, true, false, true)) && float(filled.y) == 2.0f &&
          float(pair_sum(half(1.5h))) == 3.0f && m[0][0] == 3.0f && m[1][0] == 0.0f &&
          all(positive == float4(0.0f, 1.0f, 0.0f, 1.0f)) && float(reversed.x) == 4.0f && float(reversed.w) == 1.0f &&
          float(fma(1.5h, 0.6669921875h, 5.9604644775390625e-8h)) == 1.0009765625f &&
          float(fma(bfloat(0.875f), bfloat(1.15625f), bfloat(-5.9604644775390625e-8f))) == 1.0078125f &&
          float(1.000488281251h) == 1.0009765625f && float(2049.0000001h) == 2050.0f &&
          float(bfloat(33685505)) == 33816576.0f && float(bfloat(long(1152921504606846976 + 4503599627370497))) ==
          1161928703861587968.0f && signbit(sign(-0.0f)) && saturate(nan_value) == 0.0f &&
          isinf(tanpi(0.5f)) && tanpi(0.5f) > 0.0f && tanpi(1.5f) < 0.0f && !isnormal(half(1.0e-5f)) &&
          isnormal(half(1.0f)) && all(float4(signs[0]) == float4(0.0f, 1.0f, 0.0f, 1.0f)) && float(signs[1].x) == 1.0f;
o[i] = ok ? 2.0f * a[i] : -1000.0f;
