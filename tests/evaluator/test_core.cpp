#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "backends/rules.hpp"
#include "core/build_cache.hpp"
#include "core/dtype.hpp"
#include "core/stats.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/pattern.hpp"
#include "core/text.hpp"
#include "evaluator/compare.hpp"
#include "tasks/expr.hpp"

using ksearch::backends::RuleSet;
using ksearch::backends::load_rules;
using ksearch::evaluator::Comparison;
using ksearch::evaluator::compare_output;
using ksearch::tasks::Tolerance;
using ksearch::tasks::evaluate_expression;
using ksearch::tasks::validate_expression;
using ksearch::tasks::expression_names;

using namespace ksearch;

TEST(DType, HalfAndBfloatRoundTrip) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f}) {
    EXPECT_EQ(half_to_float(float_to_half(v)), v) << v;
  }
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 4096), float_to_half(1.0f));  // rounds to nearest even
  for (float v : {0.0f, 1.0f, -3.0f, 1.2676506e30f, 0.01171875f}) EXPECT_EQ(bfloat_to_float(float_to_bfloat(v)), v) << v;
  EXPECT_TRUE(std::isnan(bfloat_to_float(float_to_bfloat(NAN))));
  EXPECT_THROW(parse_dtype("float128"), Error);
}

TEST(DType, LoadStoreThroughDouble) {
  unsigned char buffer[16] = {};
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32, DType::i64, DType::u8}) {
    store_from_double(buffer, 1, t, 3.0);
    EXPECT_EQ(load_as_double(buffer, 1, t), 3.0) << dtype_name(t);
  }
}

TEST(Expressions, ArithmeticConditionalsAndErrors) {
  EXPECT_EQ(evaluate_expression("4 * b * (causal ? lq * (lq + 1) / 2 : lq * lk)", {{"b", 2}, {"causal", 1}, {"lq", 3}, {"lk", 3}}), 48);
  EXPECT_EQ(evaluate_expression("max(a, 7)", {{"a", 3}}), 7);
  // bitwise operators of ported launch sizes, as C++'s on integers; NaN for a fraction
  EXPECT_EQ(evaluate_expression("bitand(a, 10) + 100 * bitor(a, 10) + 10000 * bitxor(a, 10)", {{"a", 12}}), 8 + 1400 + 60000);
  EXPECT_EQ(evaluate_expression("bitand(-a, 255)", {{"a", 7}}), 249);
  EXPECT_EQ(evaluate_expression("bitand(n, n - 1) == 0", {{"n", 64}}), 1);
  EXPECT_TRUE(std::isnan(evaluate_expression("bitand(a, 1)", {{"a", 2.5}})));
  // GCC's bit counts of a ported launch size (a next power of two: 2^(32 - clz32(n - 1))), of the value converted to
  // the width as C++ converts it; NaN for a fraction, a value outside the width, and the zeros of 0
  EXPECT_EQ(evaluate_expression("2 ^ (32 - clz32(n - 1))", {{"n", 300}}), 512);
  EXPECT_EQ(evaluate_expression("clz32(-1) + 10 * clz64(1) + 1000 * ctz32(12) + 10000 * ctz64(2 ^ 40)", {}), 0 + 630 + 2000 + 400000);
  EXPECT_EQ(evaluate_expression("popcount32(-1) + 100 * popcount64(-1) + 10000 * popcount32(0)", {}), 32 + 6400);
  for (const char* undefined : {"clz32(0)", "ctz64(0)", "clz32(2.5)", "clz32(2 ^ 32)", "clz32(-2 ^ 31 - 1)", "popcount64(2 ^ 63)"})
    EXPECT_TRUE(std::isnan(evaluate_expression(undefined, {}))) << undefined;
  // an element of a table (a constant array a ported launch size reads); NaN for an index out of range or fractional
  EXPECT_EQ(evaluate_expression("pick(a - 1, 32, 64, 128) + pick(0, a)", {{"a", 3}}), 128 + 3);
  for (const char* index : {"-1", "3", "1.5"})
    EXPECT_TRUE(std::isnan(evaluate_expression(std::string("pick(") + index + ", 32, 64, 128)", {}))) << index;
  // infinity, an init_value for a maximum: a constant, no name the expression reads
  EXPECT_EQ(evaluate_expression("-_inf", {}), -HUGE_VAL);
  EXPECT_EQ(expression_names("max(-_inf, rows) * _pi"), std::set<std::string>{"rows"});
  EXPECT_THROW(evaluate_expression("rows * cols", {{"rows", 2}}), Error);
  EXPECT_FALSE(validate_expression("rows *", {{"rows", 2}}).empty());
}

TEST(Stats, MedianQuantilesAndSpread) {
  auto s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_NEAR(s.spread(), (s.p90 - s.p10) / 3, 1e-12);
  EXPECT_NEAR(geometric_mean({2, 8}), 4, 1e-12);
}

TEST(Stats, RatioIntervalIsATIntervalOnTheLogs) {
  // Five measured speedups: the geometric mean 1.995, t(0.975, 4 dof) = 2.7764 on the logs' standard error.
  const RatioInterval r = ratio_interval({1.8, 2.2, 2.0, 1.9, 2.1});
  EXPECT_EQ(r.samples, 5);
  EXPECT_NEAR(r.estimate, 1.99498, 1e-4);
  EXPECT_NEAR(r.low, 1.80787, 1e-4);
  EXPECT_NEAR(r.high, 2.20146, 1e-4);
  EXPECT_TRUE(r.contains(2.0));
  EXPECT_FALSE(r.contains(1.7));
  // A wider confidence gives a wider interval; identical measurements, none.
  EXPECT_LT(ratio_interval({1.8, 2.2, 2.0, 1.9, 2.1}, 0.99).low, r.low);
  const RatioInterval exact = ratio_interval({3, 3, 3});
  EXPECT_DOUBLE_EQ(exact.low, 3);
  EXPECT_DOUBLE_EQ(exact.high, 3);
  // One measurement has no interval.
  const RatioInterval one = ratio_interval({1.5});
  EXPECT_EQ(one.samples, 1);
  EXPECT_DOUBLE_EQ(one.low, one.high);
  EXPECT_TRUE(r.overlaps(ratio_interval({2.15, 2.3, 2.25})));
  EXPECT_FALSE(r.overlaps(ratio_interval({2.5, 2.6, 2.55})));
}

// core/pattern: ECMAScript's reading of the patterns the rules files hold (anchors at the text's ends only, groups,
// lookahead and lookbehind), syntax errors with their offset, and a time limit instead of a crash or a hang.
TEST(Pattern, MatchesAsTheRulesFilesExpectAndStopsOnTextBuiltToBacktrack) {
  const ksearch::Pattern anchored("^static");
  EXPECT_TRUE(anchored.found_in("static int a;"));
  EXPECT_FALSE(anchored.found_in("int a;\nstatic int b;")) << "^ is the text's start, not a line's";
  const ksearch::Pattern grouped(R"((?:^|[^\w])\s*(\bstd\s*::\s*(thread|async))\b)");
  const auto match = grouped.search("auto t = std :: thread(f);");
  ASSERT_TRUE(match);
  EXPECT_EQ(grouped.group_count(), 2u);
  EXPECT_EQ(match->str(1), "std :: thread");
  EXPECT_EQ(match->position(1), 9u);
  EXPECT_EQ(match->str(2), "thread");
  EXPECT_TRUE(ksearch::Pattern("(?<!const )static").found_in("int static x;"));
  EXPECT_FALSE(ksearch::Pattern("(?<!const )static").found_in("const static x;"));
  EXPECT_TRUE(ksearch::Pattern("ASM", /*ignore_case=*/true).found_in("asm volatile"));
  try {
    ksearch::Pattern("(unclosed");
    ADD_FAILURE() << "a syntax error must throw";
  } catch (const ksearch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("at offset 9"), std::string::npos) << e.what();
  }
  // Every position starts a match that fails only at the text's end: quadratic work, stopped by the time limit.
  std::string text;
  for (int i = 0; i < 30000; ++i) text += "a ";
  text += " ;";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(ksearch::Pattern(R"(\w(?:\s*\w)*;)").search(text), ksearch::PatternLimitError);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  // A run of a million characters is one match, not a million stack frames.
  EXPECT_EQ(ksearch::Pattern("x+").search(std::string(1'000'000, 'x'))->groups[0].length, 1'000'000u);
}

TEST(Rules, CommentsAndStringsDoNotTriggerRules) {
  const RuleSet rules = load_rules(profiles_dir() / "cpu.rules.toml");
  EXPECT_TRUE(rules.check("// we never fork() here\n/* system(\"x\") */\nconst char* s = \"fork()\";\n").empty());
  auto v = rules.check("#include <cmath>\nint f() { return fork(); }\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "process-creation");
  EXPECT_EQ(v[0].line, 2);
}

TEST(Rules, IncludeAllowlistAndStaticState) {
  const RuleSet rules = load_rules(profiles_dir() / "cpu.rules.toml");
  EXPECT_EQ(rules.check("#include <unistd.h>\n").size(), 1u);
  EXPECT_EQ(rules.check("#include \"other.h\"\n").size(), 1u);
  EXPECT_TRUE(rules.check("#include <immintrin.h>\n#include <omp.h>\n").empty());
  EXPECT_TRUE(rules.check("static const float kTable[2] = {1, 2};\nstatic constexpr int kN = 4;\n"
                          "static inline float sq(float x) { return x * x; }\nint y = static_cast<int>(2.0);\n").empty());
  // East const and a const function pointer are constants too; a pointer to const is not.
  EXPECT_TRUE(rules.check("static float const kZero = 0.0f;\nstatic int64_t const kN[2] = {1, 2};\n"
                          "static float* const kNone = nullptr;\nstatic float (*const kExp)(float) = nullptr;\n").empty());
  EXPECT_FALSE(rules.check("static float const* last = nullptr;\n").empty());
  EXPECT_FALSE(rules.check("static float (*hook)(float) = nullptr;\n").empty());
  EXPECT_FALSE(rules.check("void f() { static float cache[64]; }\n").empty());
  EXPECT_FALSE(rules.check("static const float* last = nullptr;\n").empty());
  EXPECT_FALSE(rules.check("thread_local int calls;\n").empty());
}

// A few lines of macros that double their text at every level expand to gigabytes, which ksearch would read and scan
// (std::bad_alloc ended it at 1 GB): the preprocessor stops at 64 MiB, the outcome says so and its folder is gone.
TEST(Preprocess, OutputPastItsLimitIsStoppedReportedAndRemoved) {
  std::string source = "#define A0 " + std::string(1000, 'x') + "+\n";
  for (int level = 1; level <= 17; ++level)
    source += "#define A" + std::to_string(level) + " A" + std::to_string(level - 1) + " A" + std::to_string(level - 1) + "\n";
  source += "int bomb() { return A17 0; }\n";  // 128 MiB of text
  BuildRequest request;
  request.kind = "test-preprocess";
  request.files = {{"bomb.cpp", source}};
  request.command = {"g++", "bomb.cpp", "-o", "{out}"};
  const auto start = std::chrono::steady_clock::now();
  const PreprocessOutcome outcome = preprocess_uncached(request);
  EXPECT_FALSE(outcome.ok);
  EXPECT_TRUE(outcome.text.empty());
  EXPECT_NE(outcome.log.find("[ksearch] the preprocessed source reached 64 MiB and was stopped"), std::string::npos)
      << outcome.log;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache_subdir("preprocess"), ec))
    EXPECT_EQ(entry.path().filename().string().rfind("test-preprocess", 0), std::string::npos) << entry.path();
}

TEST(Compare, ToleranceNanAndConstantOutputs) {
  const Tolerance tol{1e-3, 1e-8};
  std::vector<double> ref = {1e-6, 2e-6, 3e-6, 0.5};
  float good[4] = {1e-6f, 2e-6f, 3e-6f, 0.5f};
  EXPECT_TRUE(compare_output("y", good, DType::f32, ref, tol, 4).ok);
  float nan_out[4] = {1e-6f, NAN, 3e-6f, 0.5f};
  auto c = compare_output("y", nan_out, DType::f32, ref, tol, 4);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("element 1"), std::string::npos);
  // Tiny reference values with a loose absolute tolerance: all zeros would sit inside it.
  std::vector<double> tiny = {1e-9, 2e-9, 3e-9};
  float zeros[3] = {0, 0, 0};
  auto z = compare_output("y", zeros, DType::f32, tiny, Tolerance{1e-3, 1e-6}, 3);
  EXPECT_FALSE(z.ok);
  EXPECT_NE(z.message.find("constant"), std::string::npos);
  float off[4] = {1e-6f, 2e-6f, 3e-6f, 0.51f};
  EXPECT_FALSE(compare_output("y", off, DType::f32, ref, tol, 4).ok);
}

// Where the reference is infinite, an output passes only with the same infinity: the opposite sign or NaN fails.
TEST(Compare, InfiniteReferencesNeedTheSameInfinity) {
  const Tolerance tol{1e-3, 1e-8};
  const std::vector<double> ref = {-INFINITY, 1.0, INFINITY, 2.0};
  const float same[4] = {-INFINITY, 1.0f, INFINITY, 2.0f};
  EXPECT_TRUE(compare_output("y", same, DType::f32, ref, tol, 4).ok);
  const float flipped[4] = {INFINITY, 1.0f, INFINITY, 2.0f};
  const Comparison c = compare_output("y", flipped, DType::f32, ref, tol, 4);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("element 0"), std::string::npos) << c.message;
  const float nan_for_inf[4] = {-INFINITY, 1.0f, NAN, 2.0f};
  EXPECT_FALSE(compare_output("y", nan_for_inf, DType::f32, ref, tol, 4).ok);
}

// A bool element the candidate never wrote keeps the evaluator's poison byte (0xA5), which converts to true:
// it must not pass where the reference is true. Integer outputs compare exactly by default.
TEST(Compare, BoolOutputsCompareTheirBytesAndIntegersExactly) {
  const Tolerance exact{0, 0};
  const std::vector<double> ref = {1, 0, 1, 1};
  const unsigned char written[4] = {1, 0, 1, 1};
  EXPECT_TRUE(compare_output("mask", written, DType::boolean, ref, exact, 4).ok);
  const unsigned char unwritten[4] = {1, 0, 0xA5, 1};
  const Comparison c = compare_output("mask", unwritten, DType::boolean, ref, exact, 4);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("element 2: got 165, expected 1"), std::string::npos) << c.message;
  const int32_t off_by_one[3] = {1000000, 7, -3};
  EXPECT_FALSE(compare_output("idx", off_by_one, DType::i32, {1000001, 7, -3}, exact, 3).ok);
}

// Every element within the elementwise tolerance, but the whole of one row off by 80% of it: the
// signature of computing in a lower precision than the task's. Rows elsewhere stay exact.
TEST(Compare, NormWiseRowCheckCatchesUniformLowPrecision) {
  const Tolerance tol{1e-3, 1e-8};
  const size_t rows = 3, cols = 64;
  std::vector<double> ref(rows * cols);
  std::vector<float> out(rows * cols);
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = 0.5 + 0.25 * std::sin(double(i));
    const bool degraded = i / cols == 1;
    out[i] = float(ref[i] * (degraded ? 1 + 0.8e-3 * ((i % 2) ? 1 : -1) : 1));
  }
  const Comparison c = compare_output("y", out.data(), DType::f32, ref, tol, cols);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 0u) << "each element is within the elementwise tolerance";
  EXPECT_NE(c.message.find("row 1"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("1 of 3 rows"), std::string::npos) << c.message;
  // Errors of an honest fp32 kernel (a few ulps) pass, and a task may loosen the bound.
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::nextafter(float(ref[i]), 2.0f);
  EXPECT_TRUE(compare_output("y", out.data(), DType::f32, ref, tol, cols).ok);
  Tolerance loose = tol;
  loose.norm_rtol = 1e-3;
  for (size_t i = 0; i < out.size(); ++i) out[i] = float(ref[i] * (1 + 0.8e-3 * ((i % 2) ? 1 : -1)));
  EXPECT_TRUE(compare_output("y", out.data(), DType::f32, ref, loose, cols).ok);
}

// Softmax-like rows: a few large elements carry each row's norm. Rounding only the small ones to 10 significant bits
// keeps every element within the elementwise tolerance and every row within the norm-wise one, but the errors average
// more than a quarter of the elements' tolerances; an honest kernel's few ulps, and a task's looser norm_rtol, pass.
TEST(Compare, AverageErrorInToleranceUnitsCatchesLowPrecisionOnTheSmallElements) {
  const Tolerance tol{1e-3, 1e-8};
  const size_t rows = 8, cols = 512;
  std::vector<double> ref(rows * cols);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = i % 64 == 0 ? 0.2 : 1e-3 * (1.5 + std::sin(double(i)));
  auto ten_bits = [](double v) {  // truncated to 11 significant bits: a relative error up to 2^-10
    int exponent = 0;
    const double mantissa = std::frexp(v, &exponent);
    return std::ldexp(std::floor(mantissa * 2048) / 2048, exponent);
  };
  std::vector<float> out(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) out[i] = float(i % 64 == 0 ? ref[i] : ten_bits(ref[i]));
  const Comparison c = compare_output("y", out.data(), DType::f32, ref, tol, cols);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 0u) << "each element is within the elementwise tolerance";
  EXPECT_NE(c.message.find("average (RMS)"), std::string::npos) << c.message;
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::nextafter(std::nextafter(float(ref[i]), 2.0f), 2.0f);
  EXPECT_TRUE(compare_output("y", out.data(), DType::f32, ref, tol, cols).ok);
  for (size_t i = 0; i < out.size(); ++i) out[i] = float(i % 64 == 0 ? ref[i] : ten_bits(ref[i]));
  Tolerance loose = tol;
  loose.norm_rtol = 1e-3;
  EXPECT_TRUE(compare_output("y", out.data(), DType::f32, ref, loose, cols).ok);
}

// Large outputs are compared on every core: the report must not depend on which chunk finished first.
TEST(Compare, LargeOutputsReportTheFirstBadElementAndRowAndExactCounts) {
  const Tolerance tol{1e-3, 1e-8};
  const size_t cols = 1000, rows = 3000;  // 3M elements: dozens of chunks
  std::vector<double> ref(rows * cols);
  std::vector<float> out(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) out[i] = float(ref[i] = 1.0 + 1e-3 * double(i % 977));
  for (size_t bad : {size_t(2'900'001), size_t(1'500'000), size_t(700'123)}) out[bad] = float(ref[bad] * 1.1);
  const Comparison c = compare_output("y", out.data(), DType::f32, ref, tol, cols);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_NE(c.message.find("element 700123:"), std::string::npos) << c.message;
  EXPECT_NEAR(c.max_rel_err, 0.1, 1e-6);
  // Within each element's tolerance, off norm-wise in rows 2999 and 1234: the first is named.
  for (size_t i = 0; i < ref.size(); ++i) out[i] = float(ref[i]);
  for (size_t row : {size_t(2999), size_t(1234)})
    for (size_t j = 0; j < cols; ++j) out[row * cols + j] = float(ref[row * cols + j] * (1 + 0.8e-3 * ((j % 2) ? 1 : -1)));
  const Comparison rows_off = compare_output("y", out.data(), DType::f32, ref, tol, cols);
  EXPECT_FALSE(rows_off.ok);
  EXPECT_EQ(rows_off.mismatches, 0u);
  EXPECT_NE(rows_off.message.find("row 1234 "), std::string::npos) << rows_off.message;
  EXPECT_NE(rows_off.message.find("2 of 3000 rows"), std::string::npos) << rows_off.message;
}

TEST(Text, SubstituteFillsKnownPlaceholdersInOnePass) {
  EXPECT_EQ(substitute("{a} and {a}, {b}", {{"a", "x"}, {"b", "{a}"}}), "x and x, {a}");  // values are not rescanned
  EXPECT_EQ(substitute("keep {unknown} and {{a}} and {", {{"a", "1"}}), "keep {unknown} and {1} and {");
  EXPECT_EQ(substitute("", {{"a", "1"}}), "");
}
