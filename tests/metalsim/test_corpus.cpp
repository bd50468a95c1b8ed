// The kernel corpus: each kernel runs under metalsim and is checked against a
// C++ reference computed here.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "helpers.hpp"

using namespace mstest;

namespace {

// bfloat16 round to nearest even, as the shim does.
float bf16_round(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  x += 0x7fffu + ((x >> 16) & 1u);
  return std::bit_cast<float>(x & 0xffff0000u);
}
float half_bits_to_float(uint16_t b) { return static_cast<float>(std::bit_cast<_Float16>(b)); }
float bf16_bits_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
uint16_t half_bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }


}  // namespace

TEST(MetalsimCorpus, ElementwiseTemplateAndScalarInput) {
  KernelSpec s;
  s.name = "elementwise";
  s.inputs = {tensor("a", Dtype::float32, {1000}), tensor("scale", Dtype::float32, {}),
              tensor("n_elems", Dtype::uint32, {})};
  s.outputs = {tensor("out", Dtype::float32, {1000})};
  s.source = corpus("elementwise.metal");
  s.template_args = {TemplateArg::type("T", Dtype::float32)};
  s.grid = {1024, 1, 1};
  s.threadgroup = {256, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(1000), out(1000, -1.0f), scale{3.0f};
  std::vector<uint32_t> n{1000};
  for (int i = 0; i < 1000; ++i) a[i] = std::sin(i * 0.37f) * 3.0f;
  run_ok(so, s, {buf(s.inputs[0], a), buf(s.inputs[1], scale), buf(s.inputs[2], n)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 1000; ++i)
    ASSERT_NEAR(out[i], std::exp(a[i]) * 0.5f + std::sqrt(std::fabs(a[i])) + std::tanh(a[i]) * 3.0f, 1e-4f * (1 + std::exp(a[i])))
        << i;
}

TEST(MetalsimCorpus, HalfAndBfloatRounding) {
  KernelSpec s;
  s.name = "half_bfloat";
  s.inputs = {tensor("a", Dtype::float32, {64})};
  s.outputs = {tensor("out_h", Dtype::float16, {64}), tensor("out_b", Dtype::bfloat16, {64}),
               tensor("out_f", Dtype::float32, {64})};
  s.source = corpus("half_bfloat.metal");
  s.grid = {64, 1, 1};
  s.threadgroup = {32, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(64), of(64);
  std::vector<uint16_t> oh(64), ob(64);
  for (int i = 0; i < 64; ++i) a[i] = 0.1234567f * i - 2.0f + (i == 63 ? 70000.0f : 0.0f);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], oh), buf(s.outputs[1], ob), buf(s.outputs[2], of)});
  for (int i = 0; i < 64; ++i) {
    float h = half_round(half_round(half_round(a[i]) * 3.0f) + 1.0f);
    float b = bf16_round(bf16_round(a[i]) + 0.5f);
    EXPECT_EQ(half_bits_to_float(oh[i]), h) << i;
    EXPECT_EQ(bf16_bits_to_float(ob[i]), b) << i;
    EXPECT_FLOAT_EQ(of[i], h + b + std::max(h, 0.25f)) << i;
  }
  EXPECT_TRUE(std::isinf(half_bits_to_float(oh[63])));  // 70000 overflows half
}

TEST(MetalsimCorpus, VectorsSwizzlesPacked) {
  KernelSpec s;
  s.name = "vectors";
  s.inputs = {tensor("a", Dtype::float32, {128})};
  s.outputs = {tensor("out", Dtype::float32, {32})};
  s.source = corpus("vectors.metal");
  s.grid = {32, 1, 1};
  s.threadgroup = {32, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(128), out(32);
  for (int i = 0; i < 128; ++i) a[i] = (i % 7) * 0.25f;
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 32; ++i) {
    float v[4] = {a[4 * i + 1], a[4 * i], a[4 * i + 2], a[4 * i + 3]};
    float w[3] = {v[2], v[1], v[0]};
    float p[2] = {w[0] + 1, v[3] + 1};
    int q[2] = {int(p[0]) * 2 + 1, int(p[1]) * 2 - 1};
    float u = float(uint32_t(q[0]) + uint32_t(q[1]) + 7u);
    float h0 = half_round(v[0]);
    bool b[4];
    float sel = 0;
    bool all = true;
    for (int k = 0; k < 4; ++k) b[k] = v[k] > 0.5f, sel += b[k] ? v[k] : 0.0f, all = all && b[k];
    float expect = v[0] + 2 * v[1] + 3 * v[2] + 4 * v[3] + w[0] + p[1] + u + 2.0f + h0 + w[2] * 2.0f + sel +
                   (all ? 10000.0f : 0.0f) + 5.0f + w[0] + 3.0f;
    EXPECT_NEAR(out[i], expect, 1e-3f) << i;
  }
}

// A kernel that views memory through vectors (a device half3* over half data, a threadgroup array of bool3) strides
// it as Metal does.
TEST(MetalsimCorpus, VectorTypesTakeMetalsSizesAndAlignments) {
  KernelSpec s;
  s.name = "vector_layout";
  s.inputs = {tensor("a", Dtype::float32, {1})};
  s.outputs = {tensor("out", Dtype::uint32, {16})};
  s.source = corpus("vector_layout.metal");
  s.grid = {1, 1, 1};
  s.threadgroup = {1, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(1);
  std::vector<uint32_t> out(16);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  const std::vector<uint32_t> metal = {4, 8, 8, 2, 4, 4, 8, 16, 8, 4, 6, 12, 8, 4, 16, 4};
  EXPECT_EQ(out, metal);
}

TEST(MetalsimCorpus, IntegerIntrinsics) {
  KernelSpec s;
  s.name = "intrinsics";
  s.inputs = {tensor("xs", Dtype::uint32, {64})};
  s.outputs = {tensor("out", Dtype::uint32, {64 * 12})};
  s.source = corpus("intrinsics.metal");
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<uint32_t> xs(64), out(64 * 12);
  for (uint32_t i = 0; i < 64; ++i) xs[i] = i == 0 ? 0 : (i * 2654435761u) >> (i % 13);
  run_ok(so, s, {buf(s.inputs[0], xs)}, {buf(s.outputs[0], out)});
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t x = xs[i];
    int sx = int(x) - 500;
    const uint32_t* o = &out[i * 12];
    EXPECT_EQ(o[0], x ? uint32_t(std::countl_zero(x)) : 32u);
    EXPECT_EQ(o[1], x ? uint32_t(std::countr_zero(x)) : 32u);
    EXPECT_EQ(o[2], uint32_t(std::popcount(x)));
    EXPECT_EQ(o[3], uint32_t((uint64_t(x) * 0x9E3779B9ull) >> 32));
    EXPECT_EQ(o[4], (x >> 3) & 31u);
    float f = float(x) * 0.25f;
    EXPECT_EQ(o[5], std::bit_cast<uint32_t>(f));
    EXPECT_EQ(o[6], uint32_t(sx > 0 ? 1 : -1));
    EXPECT_EQ(o[7], uint32_t(std::clamp(sx, -100, 100)));
    EXPECT_EQ(o[8], std::bit_cast<uint32_t>((f + (2.0f * f - f) * 0.25f) + std::fma(f, f, 1.0f)));
    int c = int(int8_t(sx)), uc = int(uint8_t(x)), sh = int(int16_t(sx * 7)), us = int(uint16_t(x * 3u));
    EXPECT_EQ(o[9], uint32_t(c + uc + sh + us));
    EXPECT_EQ(o[10], uint32_t(int64_t(sx) * 100000 / 7 + int64_t((uint64_t(x) * 1000000ull) >> 3)));
    EXPECT_EQ(o[11], uint32_t((int32_t(uint32_t(sx) << 24)) >> 26));
  }
}

TEST(MetalsimCorpus, StructsTemplatesHeader) {
  KernelSpec s;
  s.name = "structs";
  s.inputs = {tensor("a", Dtype::float32, {36})};
  s.outputs = {tensor("out", Dtype::float32, {96})};
  s.header = corpus("structs_header.metal");
  s.source = corpus("structs_body.metal");
  s.template_args = {TemplateArg::integer("N", 4), TemplateArg::boolean("FLAG", true),
                     TemplateArg::type("U", Dtype::float16)};
  s.grid = {32, 1, 1};
  s.threadgroup = {32, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(36), out(96);
  for (int i = 0; i < 36; ++i) a[i] = float(i) * 0.5f;
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  const float w[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  for (int i = 0; i < 32; ++i) {
    float acc = 0;
    for (int k = 0; k < 4; ++k) acc += a[i + k] * w[k];
    float hi = a[i] + 1.0f + acc;
    EXPECT_FLOAT_EQ(out[3 * i], a[i]);
    EXPECT_FLOAT_EQ(out[3 * i + 1], hi);
    EXPECT_FLOAT_EQ(out[3 * i + 2], (hi - a[i]) * 2.0f);
  }
}

TEST(MetalsimCorpus, ThreadgroupReductionWithBarriers) {
  KernelSpec s;
  s.name = "tg_reduce";
  s.inputs = {tensor("a", Dtype::float32, {6, 1000}), tensor("cols", Dtype::uint32, {})};
  s.outputs = {tensor("out", Dtype::float32, {6})};
  s.source = corpus("tg_reduce.metal");
  s.grid = {128, 6, 1};
  s.threadgroup = {128, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(6000), out(6);
  std::vector<uint32_t> cols{1000};
  for (int i = 0; i < 6000; ++i) a[i] = float((i * 37) % 101) * 0.01f;
  run_ok(so, s, {buf(s.inputs[0], a), buf(s.inputs[1], cols)}, {buf(s.outputs[0], out)});
  for (int r = 0; r < 6; ++r) {
    double ref = 0;
    for (int j = 0; j < 1000; ++j) ref += a[r * 1000 + j];
    EXPECT_NEAR(out[r], ref, 1e-3) << r;
  }
}

TEST(MetalsimCorpus, AllSimdAndQuadFunctions) {
  KernelSpec s;
  s.name = "simd_ops";
  s.inputs = {tensor("x", Dtype::float32, {64})};
  s.outputs = {tensor("out", Dtype::float32, {64 * 40})};
  s.source = corpus("simd_ops.metal");
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> x(64), out(64 * 40);
  for (int i = 0; i < 64; ++i) x[i] = float((i * 11) % 64);
  run_ok(so, s, {buf(s.inputs[0], x)}, {buf(s.outputs[0], out)});
  for (int t = 0; t < 64; ++t) {
    const int base = t / 32 * 32, lane = t % 32, qb = t / 4 * 4, ql = t % 4;
    const float* o = &out[t * 40];
    auto X = [&](int l) { return x[base + l]; };
    float sum = 0, mx = -1e9f, mn = 1e9f, incl = 0, excl = 0, pin = 1, pex = 1;
    int iand = -1, ior = 0, ixor = 0, isum = 0;
    uint32_t ballot = 0;
    bool all = true, any = false;
    for (int l = 0; l < 32; ++l) {
      sum += X(l), mx = std::max(mx, X(l)), mn = std::min(mn, X(l));
      int iv = int(uint32_t(base + l) * 7u % 13u);
      iand &= iv | 16, ior |= iv, ixor ^= iv, isum += base + l;
      if (l <= lane) incl += X(l), pin *= (l % 5 == 0 ? 2.0f : 1.0f);
      if (l < lane) excl += X(l), pex *= (l % 5 == 0 ? 2.0f : 1.0f);
      if (X(l) > 20) ballot |= 1u << l;
      all = all && X(l) >= 0, any = any || X(l) > 60;
    }
    EXPECT_FLOAT_EQ(o[0], sum) << t;
    EXPECT_FLOAT_EQ(o[1], 2.0f);
    EXPECT_FLOAT_EQ(o[2], mx);
    EXPECT_FLOAT_EQ(o[3], mn);
    EXPECT_FLOAT_EQ(o[4], float(iand));
    EXPECT_FLOAT_EQ(o[5], float(ior));
    EXPECT_FLOAT_EQ(o[6], float(ixor));
    EXPECT_FLOAT_EQ(o[7], incl) << t;
    EXPECT_FLOAT_EQ(o[8], excl) << t;
    EXPECT_FLOAT_EQ(o[9], pin);
    EXPECT_FLOAT_EQ(o[10], pex);
    EXPECT_FLOAT_EQ(o[11], X(lane * 5 % 32));
    EXPECT_FLOAT_EQ(o[12], lane >= 3 ? X(lane - 3) : X(lane));
    EXPECT_FLOAT_EQ(o[13], lane + 3 < 32 ? X(lane + 3) : X(lane));
    EXPECT_FLOAT_EQ(o[14], X(lane ^ 5));
    EXPECT_FLOAT_EQ(o[15], lane >= 2 ? X(lane - 2) : -X(lane + 30));
    EXPECT_FLOAT_EQ(o[16], lane + 2 < 32 ? X(lane + 2) : -X(lane - 30));
    EXPECT_FLOAT_EQ(o[17], X(7));
    EXPECT_FLOAT_EQ(o[18], float(ballot));
    EXPECT_FLOAT_EQ(o[19], all ? 1.0f : 0.0f);
    EXPECT_FLOAT_EQ(o[20], any ? 1.0f : 0.0f);
    EXPECT_FLOAT_EQ(o[21], lane == 0 ? 1.0f : 0.0f);
    EXPECT_FLOAT_EQ(o[22], X(0));
    EXPECT_FLOAT_EQ(o[23], X((lane + 1) % 32));
    EXPECT_FLOAT_EQ(o[24], X((lane + 31) % 32));
    float qs = 0, qmx = -1e9f, qmn = 1e9f, qin = 0, qex = 0;
    uint32_t qballot = 0;
    bool qall = true, qany = false;
    for (int k = 0; k < 4; ++k) {
      float v = x[qb + k];
      qs += v, qmx = std::max(qmx, v), qmn = std::min(qmn, v);
      if (k <= ql) qin += v;
      if (k < ql) qex += v;
      if (int(v) % 2 == 0) qballot |= 1u << k;
      qall = qall && v >= 0, qany = qany || v > 62;
    }
    EXPECT_FLOAT_EQ(o[25], qs);
    EXPECT_FLOAT_EQ(o[26], qmx);
    EXPECT_FLOAT_EQ(o[27], qmn);
    EXPECT_FLOAT_EQ(o[28], qin);
    EXPECT_FLOAT_EQ(o[29], qex);
    EXPECT_FLOAT_EQ(o[30], x[qb + 2]);
    EXPECT_FLOAT_EQ(o[31], ql >= 1 ? x[t - 1] : x[t]);
    EXPECT_FLOAT_EQ(o[32], ql + 1 < 4 ? x[t + 1] : x[t]);
    EXPECT_FLOAT_EQ(o[33], x[qb + (ql ^ 1)]);
    EXPECT_FLOAT_EQ(o[34], x[qb + 3]);
    EXPECT_FLOAT_EQ(o[35], float(qballot));
    EXPECT_FLOAT_EQ(o[36], qall ? 1.0f : 0.0f);
    EXPECT_FLOAT_EQ(o[37], qany ? 1.0f : 0.0f);
    EXPECT_FLOAT_EQ(o[38], 2.0f);
    EXPECT_FLOAT_EQ(o[39], float(isum));
  }
}

TEST(MetalsimCorpus, CollectivesCoverOnlyActiveLanes) {
  KernelSpec s;
  s.name = "simd_divergent";
  s.inputs = {tensor("x", Dtype::float32, {64}), tensor("n_valid", Dtype::uint32, {})};
  s.outputs = {tensor("out", Dtype::float32, {128})};
  s.source = corpus("simd_divergent.metal");
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> x(64), out(128, -1.0f);
  std::vector<uint32_t> n{50};
  for (int i = 0; i < 64; ++i) x[i] = float(i);
  run_ok(so, s, {buf(s.inputs[0], x), buf(s.inputs[1], n)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 64; ++i) {
    if (i >= 50) {
      EXPECT_EQ(out[2 * i], -1.0f);
      continue;
    }
    int base = i / 32 * 32, lane = i % 32, hi = std::min(base + 32, 50);
    float total = 0, low = 0, mx = 0;
    for (int k = base; k < hi; ++k) {
      total += x[k];
      if (k - base < 8) low += x[k];
      else mx = std::max(mx, x[k]);
    }
    EXPECT_FLOAT_EQ(out[2 * i], total) << i;
    EXPECT_FLOAT_EQ(out[2 * i + 1], lane < 8 ? low : mx) << i;
  }
}

TEST(MetalsimCorpus, DeviceAndThreadgroupAtomics) {
  KernelSpec s;
  s.name = "atomics";
  s.inputs = {tensor("keys", Dtype::uint32, {1000})};
  s.outputs = {tensor("hist", Dtype::uint32, {14})};
  s.source = corpus("atomics.metal");
  s.atomic_outputs = true;
  s.init_value = 0.0f;
  s.grid = {1000, 1, 1};
  s.threadgroup = {128, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<uint32_t> keys(1000), hist(14, 77);
  for (uint32_t i = 0; i < 1000; ++i) keys[i] = (i * 7919u) % 1009u + 1u;
  // hist[9] holds a minimum: init_value 0 would win, so the test seeds it via a second pass below.
  run_ok(so, s, {buf(s.inputs[0], keys)}, {buf(s.outputs[0], hist)});
  std::vector<uint32_t> ref(14, 0);
  uint32_t orbits = 0;
  for (auto k : keys) ref[k % 8]++, ref[8] = std::max(ref[8], k), orbits |= 1u << (k % 32u);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(hist[b], ref[b]) << b;
  EXPECT_EQ(hist[8], ref[8]);
  EXPECT_EQ(hist[9], 0u);
  EXPECT_EQ(hist[10], orbits);
  EXPECT_EQ(hist[11], 2000u);
  EXPECT_EQ(hist[12], 1000u);
  // 7 full threadgroups of 128 add 64 each; the last (104 threads) adds 52.
  EXPECT_EQ(hist[13], 7u * 64u + 52u);
}

TEST(MetalsimCorpus, SimdSoftmaxRows) {
  KernelSpec s;
  s.name = "softmax";
  s.inputs = {tensor("x", Dtype::float32, {8, 1000})};
  s.outputs = {tensor("out", Dtype::float32, {8, 1000})};
  s.source = corpus("softmax.metal");
  s.template_args = {TemplateArg::type("T", Dtype::float32), TemplateArg::integer("N", 1000)};
  s.grid = {8 * 256, 1, 1};
  s.threadgroup = {256, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> x(8000), out(8000);
  for (int i = 0; i < 8000; ++i) x[i] = std::sin(i * 0.013f) * 4.0f;
  run_ok(so, s, {buf(s.inputs[0], x)}, {buf(s.outputs[0], out)});
  for (int r = 0; r < 8; ++r) {
    float m = *std::max_element(&x[r * 1000], &x[r * 1000] + 1000);
    double z = 0;
    for (int j = 0; j < 1000; ++j) z += std::exp(x[r * 1000 + j] - m);
    for (int j = 0; j < 1000; ++j) ASSERT_NEAR(out[r * 1000 + j], std::exp(x[r * 1000 + j] - m) / z, 1e-6) << r << "," << j;
  }
}

TEST(MetalsimCorpus, SimdgroupMatrixMatmul) {
  for (bool transpose : {false, true}) {
    for (Dtype dt : {Dtype::float32, Dtype::float16}) {
      const int M = 16, K = 24, N = 32;
      KernelSpec s;
      s.name = "matmul_simdgroup";
      s.inputs = {tensor("A", dt, {M, K}), tensor("B", dt, {K, N})};
      s.outputs = {tensor("C", dt, {M, N})};
      s.source = corpus("matmul_simdgroup.metal");
      s.template_args = {TemplateArg::type("T", dt), TemplateArg::integer("K", K), TemplateArg::integer("N", N),
                         TemplateArg::boolean("TRANSPOSE_B", transpose)};
      s.grid = {32 * (N / 8), M / 8, 1};
      s.threadgroup = {32, 1, 1};
      auto so = build(s);
      ASSERT_FALSE(so.empty());
      std::vector<float> a(M * K), b(K * N), c(M * N);
      for (int i = 0; i < M * K; ++i) a[i] = half_round(float((i * 5) % 9) * 0.25f - 1.0f);
      for (int i = 0; i < K * N; ++i) b[i] = half_round(float((i * 3) % 7) * 0.5f - 1.5f);
      std::vector<uint16_t> ah(M * K), bh(K * N), ch(M * N);
      for (int i = 0; i < M * K; ++i) ah[i] = half_bits(a[i]);
      for (int i = 0; i < K * N; ++i) bh[i] = half_bits(b[i]);
      if (dt == Dtype::float32) {
        run_ok(so, s, {buf(s.inputs[0], a), buf(s.inputs[1], b)}, {buf(s.outputs[0], c)});
      } else {
        run_ok(so, s, {buf(s.inputs[0], ah), buf(s.inputs[1], bh)}, {buf(s.outputs[0], ch)});
        for (int i = 0; i < M * N; ++i) c[i] = half_bits_to_float(ch[i]);
      }
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          float ref = 0;
          for (int k = 0; k < K; ++k) ref += a[i * K + k] * b[k * N + j];
          ASSERT_NEAR(c[i * N + j], ref, dt == Dtype::float32 ? 1e-4f : 0.05f) << i << "," << j;
        }
    }
  }
}

TEST(MetalsimCorpus, ThreadAttributesWithPartialThreadgroups) {
  KernelSpec s;
  s.name = "positions";
  const int gx = 10, gy = 5, gz = 3;
  s.outputs = {tensor("out", Dtype::uint32, {gx * gy * gz * 8})};
  s.source = corpus("positions.metal");
  s.grid = {gx, gy, gz};
  s.threadgroup = {4, 2, 2};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<uint32_t> out(gx * gy * gz * 8);
  run_ok(so, s, {}, {buf(s.outputs[0], out)});
  for (int z = 0; z < gz; ++z)
    for (int y = 0; y < gy; ++y)
      for (int x = 0; x < gx; ++x) {
        const uint32_t* o = &out[((z * gy + y) * gx + x) * 8];
        uint32_t tx = std::min(4, gx - x / 4 * 4), ty = std::min(2, gy - y / 2 * 2), tz = std::min(2, gz - z / 2 * 2);
        uint32_t lx = x % 4, ly = y % 2, lz = z % 2;
        uint32_t idx = lx + tx * (ly + ty * lz);
        EXPECT_EQ(o[0], lx + 100 * ly + 10000 * lz);
        EXPECT_EQ(o[1], uint32_t(x / 4 + 100 * (y / 2) + 10000 * (z / 2)));
        EXPECT_EQ(o[2], tx + 100 * ty + 10000 * tz) << x << y << z;
        EXPECT_EQ(o[3], 3u + 100u * 3u + 10000u * 2u);
        EXPECT_EQ(o[4], idx);
        EXPECT_EQ(o[5], idx / 32 * 1000 + idx % 32);
        EXPECT_EQ(o[6], 32u + 400u);
        EXPECT_EQ(o[7], idx / 4 * 10 + idx % 4);
      }
}

TEST(MetalsimCorpus, ShapeStridesAndElemToLoc) {
  KernelSpec s;
  s.name = "shapes";
  s.inputs = {tensor("a", Dtype::float32, {6, 10})};
  s.outputs = {tensor("out", Dtype::float32, {60})};
  s.source = corpus("shapes.metal");
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(60), out(60);
  std::iota(a.begin(), a.end(), 0.0f);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 60; ++i) EXPECT_FLOAT_EQ(out[i], a[i] + 2000.0f + 3.0f);
}

TEST(MetalsimCorpus, FlashAttentionSimdgroupMatrix) {
  const int H = 2, L = 32, D = 16;
  KernelSpec s;
  s.name = "flash_attention";
  s.inputs = {tensor("Q", Dtype::float32, {H, L, D}), tensor("K", Dtype::float32, {H, L, D}),
              tensor("V", Dtype::float32, {H, L, D}), tensor("scale", Dtype::float32, {})};
  s.outputs = {tensor("out", Dtype::float32, {H, L, D})};
  s.source = corpus("flash_attention.metal");
  s.template_args = {TemplateArg::integer("L", L), TemplateArg::integer("D", D)};
  s.grid = {32 * (L / 8), H, 1};
  s.threadgroup = {32, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> q(H * L * D), k(H * L * D), v(H * L * D), out(H * L * D), scale{0.25f};
  for (int i = 0; i < H * L * D; ++i) {
    q[i] = std::sin(i * 0.1f);
    k[i] = std::cos(i * 0.07f);
    v[i] = std::sin(i * 0.03f + 1.0f);
  }
  run_ok(so, s, {buf(s.inputs[0], q), buf(s.inputs[1], k), buf(s.inputs[2], v), buf(s.inputs[3], scale)},
         {buf(s.outputs[0], out)});
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < L; ++i) {
      std::vector<double> p(L);
      double mx = -1e30, z = 0;
      for (int j = 0; j < L; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += q[(h * L + i) * D + d] * k[(h * L + j) * D + d];
        p[j] = dot * 0.25;
        mx = std::max(mx, p[j]);
      }
      for (int j = 0; j < L; ++j) z += p[j] = std::exp(p[j] - mx);
      for (int d = 0; d < D; ++d) {
        double ref = 0;
        for (int j = 0; j < L; ++j) ref += p[j] / z * v[(h * L + j) * D + d];
        ASSERT_NEAR(out[(h * L + i) * D + d], ref, 1e-4) << h << "," << i << "," << d;
      }
    }
}

TEST(MetalsimCorpus, MiscIntrinsicsMasksPointers) {
  KernelSpec s;
  s.name = "misc";
  s.outputs = {tensor("out", Dtype::float32, {32 * 12})};
  s.source = corpus("misc.metal");
  s.init_value = -5.0f;
  s.grid = {32, 1, 1};
  s.threadgroup = {32, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> out(32 * 12);
  run_ok(so, s, {}, {buf(s.outputs[0], out)});
  for (uint32_t t = 0; t < 32; ++t) {
    const float* o = &out[t * 12];
    EXPECT_EQ(o[0], float(1 + t % 31));
    EXPECT_EQ(o[1], float((0xF0F0u & ~0xF0u) | ((t << 4) & 0xF0u)));
    uint32_t rev = 0;
    for (int b = 0; b < 32; ++b) rev |= ((t >> b) & 1u) << (31 - b);
    EXPECT_EQ(o[2], float(rev >> 26));
    uint8_t u = uint8_t(t + 1);
    EXPECT_EQ(o[3], float(uint8_t((u << 3) | (u >> 5))));
    uint32_t i = t % 8 + 3;
    EXPECT_EQ(o[4], i < 8 ? float(t + 3) : -1.0f) << t;
    EXPECT_EQ(o[5], t % 4 == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(o[6], 1.0f);
    EXPECT_EQ(o[7], float(t % 3) + 1.0f);
    EXPECT_EQ(o[8], 1.0f);
    EXPECT_EQ(o[9], bf16_round(float(t) + 0.3f));
    EXPECT_EQ(o[10], t < 20 ? float((1u << 20) - 1) : -5.0f);
    EXPECT_EQ(o[11], t < 20 ? 15.0f : -5.0f);
  }
}

TEST(MetalsimCorpus, ClassVectorSwizzles) {
  KernelSpec s;
  s.name = "swizzles";
  s.inputs = {tensor("a", Dtype::float32, {8})};
  s.outputs = {tensor("out", Dtype::float32, {16})};
  s.source = corpus("class_vector_swizzles.metal");
  s.grid = {2, 1, 1};
  s.threadgroup = {2, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  // Exactly representable in half and bfloat.
  std::vector<float> a{0.5f, 1.5f, 2.0f, 3.0f, -1.0f, 0.25f, 4.0f, 1.25f}, out(16);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int r = 0; r < 2; ++r) {
    float x = a[4 * r], y = a[4 * r + 1], z = a[4 * r + 2], w = a[4 * r + 3];
    // g.xz = h.zx; g.yw = g.wy; g.rg *= 2
    float g[4] = {2 * z, 2 * w, x, y};
    const float* o = &out[8 * r];
    for (int k = 0; k < 4; ++k) EXPECT_EQ(o[k], g[k]) << r << " " << k;
    EXPECT_EQ(o[4], (x + z + w) + (y + w + w));
    EXPECT_EQ(o[5], x - z);
    EXPECT_EQ(o[6], z * 10 + y);
    EXPECT_EQ(o[7], float(w > 1) + 2 * float(x > 1) + half_round(x * y));
  }
}

TEST(MetalsimCorpus, Matrices) {
  KernelSpec s;
  s.name = "matrices";
  s.inputs = {tensor("a", Dtype::float32, {4})};
  s.outputs = {tensor("out", Dtype::float32, {32})};
  s.source = corpus("matrices.metal");
  s.grid = {4, 1, 1};
  s.threadgroup = {4, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a{0.0f, 1.0f, -2.0f, 0.5f}, out(32);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 4; ++i) {
    float x = a[i];
    const float* o = &out[8 * i];
    // columns (1, 2) and (3, x)
    EXPECT_EQ(o[0], 1 * x + 3) << i;
    EXPECT_EQ(o[1], 2 * x + x) << i;
    EXPECT_EQ(o[2], 3 * x + x) << i;
    EXPECT_EQ(o[3], (1 * 3 + 3 * x) + 2 * 2) << i;  // (m*m)[1][0] + transpose(m)[1][0] * 2
    EXPECT_EQ(o[4], x) << i;
    EXPECT_EQ(o[5], 3 * x + 6) << i;
    EXPECT_EQ(o[6], 6.0f) << i;
    EXPECT_EQ(o[7], half_round(2 * half_round(x)) + half_round(0.5f * half_round(x))) << i;
  }
}

TEST(MetalsimCorpus, MatrixConversionsAndMetalArrays) {
  KernelSpec s;
  s.name = "matrix_conversions_arrays";
  s.inputs = {tensor("a", Dtype::float32, {4})};
  s.outputs = {tensor("out", Dtype::float32, {16})};
  s.source = corpus("matrix_conversions_arrays.metal");
  s.header = corpus("matrix_conversions_arrays_header.metal");
  s.grid = {4, 1, 1};
  s.threadgroup = {4, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a{0.0f, 1.0f, -2.0f, 0.5f}, out(16);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 4; ++i) {
    const float x = a[i];
    const float* o = &out[4 * i];
    EXPECT_EQ(o[0], half_round(0.1f) + 3.0f) << i;  // hm[0][1] is 0.1 rounded to half
    EXPECT_EQ(o[1], half_round(x) + 0.5f) << i;
    EXPECT_EQ(o[2], 6.0f + x + 0.0f + 2.0f) << i;
    EXPECT_EQ(o[3], 0.5f * x + 0.25f * x * x + 1.0f + 2.0f) << i;
  }
}

TEST(MetalsimCorpus, DeterminantsAndTwentyFourBitProducts) {
  KernelSpec s;
  s.name = "determinants_mul24";
  s.inputs = {tensor("a", Dtype::float32, {8})};
  s.outputs = {tensor("out", Dtype::float32, {32})};
  s.source = corpus("determinants_mul24.metal");
  s.grid = {8, 1, 1};
  s.threadgroup = {8, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a{-2.0f, -0.5f, 0.0f, 0.25f, 1.0f, 1.5f, 3.0f, 7.0f}, out(32);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  for (int i = 0; i < 8; ++i) {
    const float x = a[i];
    const float* o = &out[4 * i];
    EXPECT_FLOAT_EQ(o[0], x * x - 2.0f) << i;         // rows (x, 2), (1, x)
    EXPECT_FLOAT_EQ(o[1], 2.0f * x * x - 2.0f) << i;  // rows (x, 0, 1), (0, 2, 0), (1, 0, x)
    EXPECT_FLOAT_EQ(o[2], 6.0f * x + x * x) << i;     // row 1 is (0, 1, 0, 0): 1 times the triangular minor's x * 2 * 3
    const int k = i - 4;
    EXPECT_EQ(o[3], static_cast<float>(1000 * k - 3 * k + 7 - 3 * k) + static_cast<float>((4096u * i + 5u) % 1000u)) << i;
  }
}

TEST(MetalsimCorpus, MathExtraAndMetalQualifiedConstructors) {
  KernelSpec s;
  s.name = "math_extra";
  s.inputs = {tensor("a", Dtype::float32, {8})};
  s.outputs = {tensor("out", Dtype::float32, {8 * 12})};
  s.source = corpus("math_extra.metal");
  s.grid = {8, 1, 1};
  s.threadgroup = {8, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a{-2.5f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f, 1.75f, 6.0f}, out(8 * 12);
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < 8; ++i) {
    float x = a[i];
    const float* o = &out[12 * i];
    EXPECT_NEAR(o[0], std::cos(pi * x), 1e-6) << x;
    EXPECT_NEAR(o[1], std::sin(pi * x), 1e-6) << x;
    EXPECT_NEAR(o[2], std::tan(pi * x * 0.125), 1e-6) << x;
    EXPECT_FLOAT_EQ(o[3], std::cbrt(x)) << x;
    EXPECT_EQ(o[4], std::fdim(x, 0.5f)) << x;
    EXPECT_EQ(o[5], std::remainder(x, 0.75f)) << x;
    EXPECT_EQ(o[6], x * 8 + x / 2) << x;
    int e;
    float m = std::frexp(x, &e);
    EXPECT_EQ(o[7], m * 100 + e) << x;
    float w;
    float f = std::modf(x, &w);
    EXPECT_EQ(o[8], f * 100 + w + f * 1000 + w * 10000) << x;
    EXPECT_EQ(o[9], std::clamp(x, 0.0f, 1.0f) + std::clamp(x, -1.0f, 0.25f) * 10) << x;
    EXPECT_EQ(o[10], std::min(x, 1.0f) + std::max(x, 0.5f) * 10) << x;
    EXPECT_EQ(o[11], x + 30 + 400) << x;
  }
}

// MAXFLOAT is the largest finite float (a -MAXFLOAT mask keeps its differences finite, where -INFINITY's are NaN);
// HUGE_VALF, HUGE_VALH and the remaining M_*_F, HALF_* constants of Metal's math header exist.
TEST(MetalsimCorpus, MathConstants) {
  KernelSpec s;
  s.name = "math_constants";
  s.outputs = {tensor("out", Dtype::float32, {2 * 8})};
  s.source = corpus("math_constants.metal");
  s.grid = {2, 1, 1};
  s.threadgroup = {2, 1, 1};
  auto so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> out(2 * 8);
  run_ok(so, s, {}, {buf(s.outputs[0], out)});
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < 2; ++i) {
    const float* o = &out[8 * i];
    EXPECT_EQ(o[0], 1.0f);
    EXPECT_EQ(o[1], 1.0f);
    EXPECT_EQ(o[2], 1.0f);
    EXPECT_EQ(o[3], 65505.0f);
    EXPECT_NEAR(o[4], 2 * pi, 1e-6);
    EXPECT_NEAR(o[5], 0.5 + 2 / std::sqrt(pi) + 2 / pi + std::log10(std::exp(1.0)), 1e-6);
    EXPECT_FLOAT_EQ(o[6], std::ldexp(1.0f, -14) + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -126) + std::ldexp(1.0f, -23));
    EXPECT_EQ(o[7], float(i));
  }
}
