// The expressions of a metal candidate's directives and a task's shapes, as the Python of the
// `ksearch export --format mlx` module computes them (tests/python/test_export_mlx.py runs the modules).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "backends/metal/mlx_export.hpp"
#include "core/error.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/expr.hpp"
#include "tasks/registry.hpp"

using ksearch::metal::python_expression;

namespace {

// Runs a Python program and returns its standard output; nullopt where python3 is not on PATH.
std::optional<std::string> run_python(const std::string& program) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) return std::nullopt;
  const auto path = std::filesystem::temp_directory_path() / ("mlx_export_test_" + std::to_string(::getpid()) + ".py");
  std::ofstream(path) << program;
  std::string out;
  if (FILE* pipe = ::popen(("python3 " + path.string() + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << out;
  }
  std::filesystem::remove(path);
  return out;
}

}  // namespace

TEST(MlxExport, ArithmeticKeepsPrecedenceWithParentheses) {
  EXPECT_EQ(python_expression("32 * rows"), "(32 * rows)");
  EXPECT_EQ(python_expression("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(python_expression("(a + b) * c"), "(((a + b)) * c)");
  EXPECT_EQ(python_expression("-n + 1"), "((-n) + 1)");
  EXPECT_EQ(python_expression("2 ^ k / 4"), "((2 ** k) / 4)");
  EXPECT_EQ(python_expression("1e-5 * x"), "(1e-5 * x)");
}

TEST(MlxExport, TernaryLogicAndFunctionsBecomePython) {
  EXPECT_EQ(python_expression("rows > 4 ? 64 : 32"), "(64 if (rows > 4) else 32)");
  EXPECT_EQ(python_expression("a && b || c == 0"), "int(bool(int(bool(a) and bool(b))) or bool((c == 0)))");
  EXPECT_EQ(python_expression("x <= 2 ? (y >= 3 ? 1 : 2) : 3"), "(((1 if (y >= 3) else 2)) if (x <= 2) else 3)");
  EXPECT_EQ(python_expression("rint(x / 8 - 0.5)"), "_floor(((x / 8) - 0.5) + 0.5)");
}

TEST(MlxExport, MinMaxAndErrors) {
  EXPECT_EQ(python_expression("min(cols, 1024)"), "min(cols, 1024)");
  EXPECT_EQ(python_expression("max(1, d / 32) * 32"), "(max(1, (d / 32)) * 32)");
  EXPECT_EQ(python_expression("16 * ceil(n / 16)"), "(16 * _ceil((n / 16)))");
  // a divisor that may be zero: the task parser's inf or nan, not Python's ZeroDivisionError
  EXPECT_EQ(python_expression("floor(hq / hkv) * hkv"), "(_floor(_divide(hq, hkv)) * hkv)");
  EXPECT_THROW(python_expression("trunc(x)"), ksearch::Error);  // not one of the task parser's functions either
  EXPECT_THROW(python_expression("rint(x, 2)"), ksearch::Error);
  EXPECT_THROW(python_expression("(a"), ksearch::Error);
  EXPECT_THROW(python_expression("a +"), ksearch::Error);
}

// Every function and operator of the task files' expressions (muparser's) gives in Python the value the task
// parser gives, halves, negative values and division by zero (inf, nan) included.
TEST(MlxExport, ExpressionsEvaluateInPythonAsInTheTaskParser) {
  const std::map<std::string, double> values = {{"rows", 7}, {"cols", 300}, {"h", -2.5}, {"z", 0}};
  const std::vector<std::string> expressions = {
      "32 * rint((rows + 8 - 1) / 8 - 0.5)", "rint(h)", "rint(2.5)", "rint(-h)", "abs(h) + sign(h) + sign(z)",
      "sqrt(cols) + exp(1) + ln(rows) + log(cols) + log2(cols) + log10(cols)", "sum(rows, cols, h) + avg(rows, cols)",
      "sin(h) + cos(h) + tan(h) + asin(0.5) + acos(0.5) + atan(h) + atan2(h, rows)",
      "sinh(h) + cosh(h) + tanh(h) + asinh(h) + acosh(rows) + atanh(0.5)", "_pi * _e", "2 ^ 3 ^ 2", "-2 ^ 2",
      "rows && cols", "z || cols", "(rows > 4 && cols < 100) + (rows != 7 || z == 0) * 10", "z ? 1 : rows >= 7 ? 2 : 3",
      "min(rows, cols, h) * max(rows, cols) / 3", "floor(h) + ceil(h) + 16 * ceil(cols / 16) + floor(cols / 7)",
      "floor(rows / z) * z == rows", "(cols / z > 1e300) + (-cols / z < -1e300) + (z / z != z / z) + (ceil(h / z) < 0)",
      "bitand(cols, cols - 1) + bitor(rows, 8) * 2 + bitxor(rows, 3) * 3 + bitand(-rows, 255) * 5",
      "bitand(h, 1) != bitand(h, 1)",
      "clz32(cols) + 100 * clz64(cols) + 10000 * ctz32(cols * 4) + ctz64(1024) + popcount32(-rows) * 1e6 + popcount64(-rows) * 1e8",
      "(clz32(z) != clz32(z)) + (ctz64(h) != ctz64(h)) * 2 + (clz32(2 ^ 32) != clz32(2 ^ 32)) * 4 + (popcount32(z) == 0) * 8", "pick(rows - 5, 10, 20, 30) + pick(2, cols, rows, h) * 100",
      "(pick(h, 1, 2) != pick(h, 1, 2)) + (pick(rows, 1, 2) != pick(rows, 1, 2)) * 2 + (pick(-1, 1) != pick(-1, 1)) * 4", "(-_inf < -1e300) + (_inf > cols) * 2 + (_inf - _inf != z)"};
  std::string program = "import math\n" + ksearch::metal::python_expression_helpers();
  for (const auto& [name, value] : values) program += fmt::format("{} = {}\n", name, value);
  for (const auto& e : expressions) program += fmt::format("print(repr(float({})))\n", python_expression(e));
  const auto out = run_python(program);
  if (!out) GTEST_SKIP() << "python3 is not on PATH";
  std::istringstream lines(*out);
  for (const auto& e : expressions) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line)) << *out;
    EXPECT_NEAR(std::stod(line), ksearch::tasks::evaluate_expression(e, values), 1e-12) << e << " -> " << python_expression(e);
  }
}

// Each metal template family at its defaults exports as a module that Python parses: its directives' grids
// (ceil in the attention and matmul families) translate.
TEST(MlxExport, EveryMetalTemplateFamilyExports) {
  std::string program = "import ast\n";
  int families = 0;
  const auto provider = ksearch::proposers::builtin::provider_for("metal");
  ASSERT_TRUE(provider);
  for (const auto& task : ksearch::tasks::list_builtin_tasks())
    for (const auto& family : ksearch::proposers::builtin::families_for(task, "metal")) {
      const std::string source = provider->render(task, family.name, family.defaults());
      const auto file = ksearch::metal::mlx_export(task, source, "", ksearch::metal::MlxExport::module);
      program += fmt::format("ast.parse({}, {})\n", nlohmann::json(file.contents).dump(),
                             nlohmann::json(task.name + "/" + family.name).dump());
      ++families;
    }
  EXPECT_GE(families, 10);
  if (!run_python(program)) GTEST_SKIP() << "exported every family; python3 is not on PATH to parse them";
}

// Sizes the kernel cannot take are an error before any kernel is built (run by Python with MLX, where installed; no
// Metal or metalsim needed): a task constraint they break (selective_scan's g dividing d, attention's hkv dividing
// hq: a kernel given other heads reads the wrong ones, silently; causal 0 or 1) names the constraint and the sizes; a
// launch dimension they do not make whole names its expression and the sizes it read; an array past 32-bit indexing
// names its shape.
TEST(MlxExport, SizesTheKernelCannotTakeNameTheConstraintOrTheExpression) {
  const auto provider = ksearch::proposers::builtin::provider_for("metal");
  ASSERT_TRUE(provider);
  auto module_of = [&](const std::string& name) {
    const auto task = ksearch::tasks::resolve_task(name);
    const auto families = ksearch::proposers::builtin::families_for(task, "metal");
    EXPECT_FALSE(families.empty());
    const std::string source = provider->render(task, families.front().name, families.front().defaults());
    return ksearch::metal::mlx_export(task, source, "", ksearch::metal::MlxExport::module).contents;
  };
  const std::string scan = module_of("selective_scan"), attention = module_of("attention"), matmul = module_of("matmul");
  ASSERT_NE(scan.find("\"grid x = d / g\", dict(d=d, g=g)"), std::string::npos) << scan;
  ASSERT_NE(scan.find("_require("), std::string::npos) << scan;
  const std::string program = fmt::format(R"(
try:
    import mlx.core as mx
except ImportError:
    print("no mlx")
    raise SystemExit
z = lambda *shape: mx.zeros(shape)
for source, name, arguments, keywords in [({}, "selective_scan", (z(1, 8, 9), z(1, 8, 9), z(8, 16), z(1, 3, 16, 9), z(1, 3, 16, 9)), {{}}),
                                          ({}, "attention", (z(1, 3, 4, 8), z(1, 2, 4, 8), z(1, 2, 4, 8)), {{}}),
                                          ({}, "attention", (z(1, 2, 5, 8), z(1, 2, 4, 8), z(1, 2, 4, 8)), {{"causal": 1}}),
                                          ({}, "attention", (z(1, 2, 4, 8), z(1, 2, 4, 8), z(1, 2, 4, 8)), {{"causal": 2}}),
                                          ({}, "matmul", (z(65536, 1), z(1, 65536)), {{}})]:
    namespace = {{}}
    exec(compile(source, name + "_mlx.py", "exec"), namespace)
    try:
        namespace[name](*arguments, **keywords)
    except ValueError as error:
        print(error)
)",
                                          nlohmann::json(scan).dump(), nlohmann::json(attention).dump(),
                                          nlohmann::json(attention).dump(), nlohmann::json(attention).dump(), nlohmann::json(matmul).dump());
  const auto out = run_python(program);
  if (!out) GTEST_SKIP() << "python3 is not on PATH";
  if (out->find("no mlx") == 0) GTEST_SKIP() << "python3 has no mlx";
  EXPECT_NE(out->find("selective_scan: the kernel needs g dividing d, but d = 8, g = 3"), std::string::npos) << *out;
  EXPECT_NE(out->find("attention: the kernel needs hkv dividing hq, but hkv = 2, hq = 3"), std::string::npos) << *out;
  EXPECT_NE(out->find("attention: the kernel needs lq <= lk where causal, but causal = 1, lk = 4, lq = 5"), std::string::npos)
      << *out;
  // a flag declared 0 or 1 by a constraint: 2 would read as causal to one kernel and not to another
  EXPECT_NE(out->find("attention: the kernel needs causal 0 or 1, but causal = 2"), std::string::npos) << *out;
  // inputs of 65536 elements, an output of 2**32: its indices would wrap in 32 bits
  EXPECT_NE(out->find("matmul: C of shape (65536, 65536) has 4294967296 elements; the kernel takes at most 2**31 - 1"),
            std::string::npos)
      << *out;
}
