// The MSL standard library beyond the basics (corpus/msl_*.metal): integer functions and pack/unpack
// bit for bit, math/relational/geometric functions, swizzle arguments, simdgroup matrix elements;
// each checked against a reference computed here.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "helpers.hpp"

using namespace mstest;

namespace {

// A one-dimensional launch of corpus/<name>.metal.
KernelSpec library_kernel(const std::string& name, std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs,
                          int threads, int threadgroup) {
  KernelSpec s;
  s.name = name;
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  s.source = corpus(name + ".metal");
  s.grid = {threads, 1, 1};
  s.threadgroup = {threadgroup, 1, 1};
  return s;
}

template <class T> T saturate_to(__int128 v) {
  return static_cast<T>(std::clamp<__int128>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}
template <class T> T mulhi(T a, T b) {
  return static_cast<T>((static_cast<__int128>(a) * static_cast<__int128>(b)) >> (8 * sizeof(T)));
}
template <class T> T floor_half_sum(T a, T b, int plus) {
  return static_cast<T>((static_cast<__int128>(a) + b + plus) >> 1);
}
template <class T> T absdiff(T a, T b) {
  return static_cast<T>(a > b ? static_cast<__int128>(a) - b : static_cast<__int128>(b) - a);
}
uint32_t norm_code(float f, int bits, bool is_signed) {
  if (std::isnan(f)) return 0;
  const float scale = static_cast<float>((1u << (is_signed ? bits - 1 : bits)) - 1u);
  f = std::clamp(f, is_signed ? -1.0f : 0.0f, 1.0f);
  return static_cast<uint32_t>(static_cast<int32_t>(std::nearbyint(f * scale))) & ((1u << bits) - 1u);
}
uint32_t pack(std::initializer_list<float> values, int bits, bool is_signed) {
  uint32_t r = 0;
  int shift = 0;
  for (float f : values) r |= norm_code(f, bits, is_signed) << shift, shift += bits;
  return r;
}
float unpack(uint32_t packed, int index, int bits, bool is_signed) {
  const uint32_t code = (packed >> (index * bits)) & ((1u << bits) - 1u);
  if (!is_signed) return static_cast<float>(code) / static_cast<float>((1u << bits) - 1u);
  const int32_t v = static_cast<int32_t>(code << (32 - bits)) >> (32 - bits);
  return std::max(-1.0f, static_cast<float>(v) / static_cast<float>((1u << (bits - 1)) - 1u));
}
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST(MetalsimMslLibrary, IntegerAndPackFunctionsAreBitExact) {
  constexpr int n = 64;
  const KernelSpec s = library_kernel("msl_integer_pack", {tensor("xs", Dtype::uint32, {n}), tensor("ys", Dtype::uint32, {n})},
                                      {tensor("out", Dtype::uint32, {16 * n})}, n, 32);
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<uint32_t> xs(n), ys(n), out(16 * n);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  const uint32_t edges[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x7f7f7f7fu, 0x80808080u, 0x00ff00ffu};
  for (int i = 0; i < n; ++i) {
    xs[i] = i < 8 ? edges[i] : next();
    ys[i] = i < 8 ? edges[7 - i] : (i < 16 ? edges[i - 8] : next());
  }
  run_ok(so, s, {buf(s.inputs[0], xs), buf(s.inputs[1], ys)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < n; ++i) {
    const uint32_t x = xs[i], y = ys[i];
    const int32_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y);
    const uint32_t* o = &out[16 * i];
    EXPECT_EQ(o[0], static_cast<uint32_t>(mulhi(sx, sy) + 7) ^ (mulhi(x, y) + 3u)) << i;
    EXPECT_EQ(o[1], static_cast<uint32_t>(saturate_to<int32_t>(static_cast<__int128>(sx >> 16) * (sy >> 12) + sx))) << i;
    EXPECT_EQ(o[2], saturate_to<uint32_t>(static_cast<__int128>(y) * x + y)) << i;
    EXPECT_EQ(o[3], static_cast<uint32_t>(saturate_to<int32_t>(static_cast<__int128>(sx) + sy)) ^
                        (saturate_to<uint32_t>(static_cast<__int128>(x) - y) << 1)) << i;
    EXPECT_EQ(o[4], static_cast<uint32_t>(saturate_to<int32_t>(static_cast<__int128>(sx) - sy)) ^
                        saturate_to<uint32_t>(static_cast<__int128>(x) + y)) << i;
    EXPECT_EQ(o[5], static_cast<uint32_t>(floor_half_sum(sx, sy, 0)) ^ floor_half_sum(x, y, 1)) << i;
    EXPECT_EQ(o[6], static_cast<uint32_t>(floor_half_sum(sx, sy, 1)) ^ floor_half_sum(y, x, 0)) << i;
    EXPECT_EQ(o[7], static_cast<uint32_t>(absdiff(sx, sy)) ^ absdiff(x, y)) << i;
    const auto short_sat = static_cast<uint16_t>(saturate_to<int16_t>(static_cast<int16_t>(sx) + static_cast<int16_t>(sy)));
    const auto uchar_sat = saturate_to<uint8_t>(static_cast<int>(x & 0xff) - static_cast<int>(y & 0xff));
    const auto char_sat = static_cast<uint8_t>(saturate_to<int8_t>(static_cast<int8_t>(sx) * static_cast<int8_t>(sy) + 3));
    EXPECT_EQ(o[8], short_sat | (uint32_t{uchar_sat} << 16) | (uint32_t{char_sat} << 24)) << i;
    float f[4] = {static_cast<float>(sx), static_cast<float>(sy), static_cast<float>(static_cast<int32_t>(x >> 3)),
                  static_cast<float>(static_cast<int32_t>(y >> 5))};
    for (float& v : f) v = v * 1e-9f - 0.5f;
    EXPECT_EQ(o[9], pack({f[0], f[1], f[2], f[3]}, 8, false) ^
                        pack({f[0] * 2.5f, f[1] * 2.5f, f[2] * 2.5f, f[3] * 2.5f}, 8, true)) << i;
    EXPECT_EQ(o[10], pack({f[0], f[1]}, 16, false) ^ pack({half_round(f[2]), half_round(f[3])}, 16, true)) << i;
    float u[4];
    for (int k = 0; k < 4; ++k) u[k] = unpack(x, k, 8, false) + unpack(y, k, 8, true);
    EXPECT_EQ(o[11], bits(u[0] + u[1] * 3.0f + u[2] * 5.0f + u[3] * 7.0f)) << i;
    const float s0 = unpack(x, 0, 16, true) - half_round(unpack(y, 0, 16, false));
    const float s1 = unpack(x, 1, 16, true) - half_round(unpack(y, 1, 16, false));
    EXPECT_EQ(o[12], bits(s0 + s1 * 3.0f)) << i;
    const uint32_t p10a2 = norm_code(f[0] + 0.5f, 10, false) | norm_code(f[1] + 0.5f, 10, false) << 10 |
                           norm_code(f[2] + 0.5f, 10, false) << 20 | norm_code(f[3] + 0.5f, 2, false) << 30;
    const uint32_t p565 = norm_code(f[0] + 0.5f, 5, false) | norm_code(f[1] + 0.5f, 6, false) << 5 |
                          norm_code(f[2] + 0.5f, 5, false) << 11;
    EXPECT_EQ(o[13], p10a2 ^ p565) << i;
    const uint32_t clz16 = static_cast<uint32_t>(std::countl_zero(static_cast<uint16_t>(y)));
    EXPECT_EQ(o[14], static_cast<uint32_t>(std::popcount(x)) + (std::countl_zero(y) << 8) + (std::countr_zero(x) << 16) +
                         (clz16 << 24)) << i;
    const uint32_t mask = ((1u << 11) - 1u) << 7;
    EXPECT_EQ(o[15], ((x >> 3) & 0x1ffu) ^ ((y & ~mask) | ((x << 7) & mask)) ^ std::bit_cast<uint32_t>(
                         [&] { uint32_t r = 0; for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b); return r; }()) ^
                         std::rotl(y, static_cast<int>(x & 31u))) << i;
  }
}

TEST(MetalsimMslLibrary, MathRelationalGeometricAndSwizzleArguments) {
  constexpr int n = 64;
  const KernelSpec s = library_kernel("msl_math_swizzles", {tensor("a", Dtype::float32, {n})},
                                      {tensor("out", Dtype::float32, {16 * n})}, n, n);
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(n), out(16 * n);
  for (int i = 0; i < n; ++i) a[i] = 0.37f * i - 5.3f;
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < n; ++i) {
    const float x = a[i], hx = half_round(x);
    const float* o = &out[16 * i];
    EXPECT_NEAR(o[0], std::sin(x) * 10.0f + std::cos(x), 1e-5f) << i;
    int e3 = 0;
    const float m3 = std::frexp(3.0f * x, &e3);
    EXPECT_FLOAT_EQ(o[1], m3 * 100.0f + e3 + std::ilogb(x) * 1000.0f) << i;
    float whole = 0;
    const float frac = std::modf(-x, &whole);
    EXPECT_FLOAT_EQ(o[2], frac * 10.0f + whole) << i;
    EXPECT_EQ(o[3], (x > 0 && x < 10 ? 1.0f : -1.0f) + (hx > 0 ? -10.0f : 10.0f)) << i;  // one step of the type's bits
    const float fract_h = std::min(half_round(hx - std::floor(hx)), 0.99951171875f);
    if (x < 0) EXPECT_TRUE(std::isnan(o[4])) << i << ": powr of a negative base";
    else EXPECT_NEAR(o[4], fract_h + x * x * 10.0f, 1e-4f * (1 + x * x)) << i;
    const float nl = std::sqrt(1.0f + x * x + 4.0f), nv[3] = {1.0f / nl, x / nl, 2.0f / nl}, v[3] = {x, 1.0f, -1.0f};
    const float n_dot_v = nv[0] * v[0] + nv[1] * v[1] + nv[2] * v[2];
    EXPECT_NEAR(o[5], v[1] - 2.0f * n_dot_v * nv[1] + (n_dot_v < 0 ? nv[0] : -nv[0]) * 10.0f, 1e-4f) << i;
    const float vl = std::sqrt(x * x + 2.0f), nd = n_dot_v / vl, k = 1.0f - 0.25f * (1.0f - nd * nd);
    const float refract_z = k < 0 ? 0.0f : 0.5f * (-1.0f / vl) - (0.5f * nd + std::sqrt(k)) * nv[2];
    float dist2 = 0;
    for (int c = 0; c < 3; ++c) dist2 += (v[c] - nv[c]) * (v[c] - nv[c]);
    EXPECT_NEAR(o[6], refract_z + dist2 * 10.0f, 1e-4f * (1 + dist2)) << i;
    EXPECT_EQ(o[7], 7.0f) << i;
    EXPECT_EQ(o[8], (x > 0 ? 2.0f : 0.0f) + 4.0f) << i;
    EXPECT_NEAR(o[9], hx * 2.0f + 1.0f, 0.01f * (1 + std::fabs(hx))) << i;
    EXPECT_EQ(o[10], std::min(hx, 2.0f) + std::max(-hx, 0.0f) * 10.0f) << i;
    EXPECT_EQ(o[11], (x > 0 ? hx : 2.0f) + std::min(-hx, 2.0f) * 10.0f) << i;
    float lane_sum = 0;
    for (int l = i / 32 * 32; l < i / 32 * 32 + 32; ++l) lane_sum -= half_round(a[l]);
    EXPECT_NEAR(o[12], lane_sum + std::clamp(-hx, -1.0f, 1.0f) * 100.0f, 1.0f) << i;  // a half sum near 400
    EXPECT_NEAR(o[13], (hx > 0.5f ? 1.0f : 0.0f) + (-hx > 1.0f ? 2.0f : 0.0f) + std::sqrt(5.0f) * 4.0f, 0.01f) << i;
    EXPECT_EQ(o[14], 1.0f + 11.0f * 10.0f) << i;  // denorm_min has bits 1; half has 11 digits
    EXPECT_EQ(o[15], std::nearbyint(x) + std::copysign(2.0f, x) * 10.0f + std::clamp(hx, 0.25f, 0.5f)) << i;
  }
}

TEST(MetalsimMslLibrary, SimdgroupMatrixThreadElementsAndMixedTypes) {
  const KernelSpec s = library_kernel("msl_simdgroup_elements", {tensor("a", Dtype::float16, {64}), tensor("b", Dtype::float16, {64})},
                                      {tensor("out", Dtype::float32, {128}), tensor("out_lanes", Dtype::float32, {64})}, 32, 32);
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<uint16_t> a(64), b(64);
  float fa[8][8], fb[8][8];
  for (int i = 0; i < 64; ++i) {
    fa[i / 8][i % 8] = 0.125f * i - 3.0f;
    fb[i % 8][i / 8] = static_cast<float>(i % 9) - 4.0f;  // loaded transposed
    a[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(0.125f * i - 3.0f));
    b[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(static_cast<float>(i % 9) - 4.0f));
  }
  std::vector<float> out(128), lanes(64);
  run_ok(so, s, {buf(s.inputs[0], a), buf(s.inputs[1], b)}, {buf(s.outputs[0], out), buf(s.outputs[1], lanes)});
  float c[8][8], p[8][8];
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 8; ++col) c[r][col] = r == col ? 2.0f : 0.0f;
  auto owned_row = [](int l) { return ((l >> 2) & 4) + ((l >> 1) & 3); };
  auto owned_col = [](int l) { return ((l >> 2) & 2) * 2 + (l & 1) * 2; };
  for (int l = 0; l < 32; ++l) c[owned_row(l)][owned_col(l) + 1] = static_cast<float>(l);
  for (int r = 0; r < 8; ++r)
    for (int col = 0; col < 8; ++col) {
      p[r][col] = 0;
      for (int k = 0; k < 8; ++k) p[r][col] += fa[r][k] * fb[k][col];
      EXPECT_EQ(out[r * 8 + col], p[r][col] + c[r][col]) << r << "," << col;
      EXPECT_EQ(out[64 + col * 8 + r], p[r][col]) << r << "," << col;
    }
  for (int l = 0; l < 32; ++l) {
    EXPECT_EQ(lanes[2 * l], p[owned_row(l)][owned_col(l)]) << l;
    EXPECT_EQ(lanes[2 * l + 1], p[owned_row(l)][owned_col(l) + 1]) << l;
  }
}
