// The expressions of a metal candidate's directives and a task's shapes, as the Python of the
// `ksearch export --format mlx` module computes them (tests/python/test_export_mlx.py runs the modules).
#include <gtest/gtest.h>

#include "backends/metal/mlx_export.hpp"
#include "core/error.hpp"

using ksearch::metal::python_expression;

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
  EXPECT_EQ(python_expression("a && b || c == 0"), "((a and b) or (c == 0))");
  EXPECT_EQ(python_expression("x <= 2 ? (y >= 3 ? 1 : 2) : 3"), "(((1 if (y >= 3) else 2)) if (x <= 2) else 3)");
}

TEST(MlxExport, MinMaxAndErrors) {
  EXPECT_EQ(python_expression("min(cols, 1024)"), "min(cols, 1024)");
  EXPECT_EQ(python_expression("max(1, d / 32) * 32"), "(max(1, (d / 32)) * 32)");
  EXPECT_THROW(python_expression("sqrt(x)"), ksearch::Error);
  EXPECT_THROW(python_expression("(a"), ksearch::Error);
  EXPECT_THROW(python_expression("a +"), ksearch::Error);
}
