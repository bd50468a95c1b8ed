#include "translate/launch.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"
#include "translate/clang_util.hpp"

namespace ksearch::translate {

namespace {

// The token right after `after` inside `c`: a binary operator's operator.
std::string operator_after(CXTranslationUnit unit, CXCursor c, unsigned after) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(c), &tokens, &n);
  std::string op;
  for (unsigned i = 0; i < n && op.empty(); ++i)
    if (position(clang_getTokenLocation(unit, tokens[i])).offset >= after) op = take(clang_getTokenSpelling(unit, tokens[i]));
  clang_disposeTokens(unit, tokens, n);
  return op;
}

std::string what(CXCursor c) {
  const Position p = position(c);
  return fmt::format("line {}: {}", p.line, take(clang_getCursorKindSpelling(clang_getCursorKind(c))));
}

// The initializer of a variable declaration (its last expression child), or a null cursor.
CXCursor initializer(CXCursor var) {
  std::vector<CXCursor> kids = children(var);
  for (auto it = kids.rbegin(); it != kids.rend(); ++it)
    if (clang_isExpression(clang_getCursorKind(*it))) return *it;
  return clang_getNullCursor();
}

bool is_dim3(CXType t) {
  const std::string name = take(clang_getTypeSpelling(clang_getCanonicalType(t)));
  return name.find("dim3") != std::string::npos || name.find("uint3") != std::string::npos;
}

}  // namespace

std::string directive_expression(CXCursor expression, const HostScope& scope) {
  CXCursor c = strip_implicit(expression);
  const CXCursorKind kind = clang_getCursorKind(c);
  // Constants (literals, sizeof, constexpr arithmetic) evaluate directly.
  if (kind != CXCursor_DeclRefExpr || clang_getCursorKind(clang_getCursorReferenced(c)) != CXCursor_ParmDecl) {
    CXEvalResult value = clang_Cursor_Evaluate(c);
    if (value) {
      std::string text;
      if (clang_EvalResult_getKind(value) == CXEval_Int) text = std::to_string(clang_EvalResult_getAsLongLong(value));
      else if (clang_EvalResult_getKind(value) == CXEval_Float) text = fmt::format("{}", clang_EvalResult_getAsDouble(value));
      clang_EvalResult_dispose(value);
      if (!text.empty()) return text;
    }
  }
  std::vector<CXCursor> kids = children(c);
  switch (kind) {
    case CXCursor_ParenExpr:
      return "(" + directive_expression(kids.at(0), scope) + ")";
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXFunctionalCastExpr:
    case CXCursor_UnexposedExpr:
      if (!kids.empty()) return directive_expression(kids.back(), scope);
      break;
    case CXCursor_DeclRefExpr: {
      CXCursor decl = clang_getCursorReferenced(c);
      auto param = scope.parameters.find(decl_key(decl));
      if (param != scope.parameters.end()) return param->second;
      if (clang_getCursorKind(decl) == CXCursor_ParmDecl)
        throw Error(fmt::format("{}: parameter '{}' is not an axis or param of the task's entry", what(c), spelling(decl)));
      if (clang_getCursorKind(decl) == CXCursor_VarDecl) {
        CXCursor init = initializer(decl);
        if (!clang_Cursor_isNull(init)) return "(" + directive_expression(init, scope) + ")";
      }
      throw Error(fmt::format("{}: '{}' has no value the launch can be computed from", what(c), spelling(decl)));
    }
    case CXCursor_BinaryOperator: {
      const std::string a = directive_expression(kids.at(0), scope), b = directive_expression(kids.at(1), scope);
      const std::string op = operator_after(scope.unit, c, end_offset(kids.at(0)));
      // Integer division and remainder: directive expressions are floating point, and rint(x - 0.5)
      // is floor(x) (exactly, for the integer quotients of launch sizes).
      if (op == "/") return fmt::format("rint(({}) / ({}) - 0.5)", a, b);
      if (op == "%") return fmt::format("(({}) - ({}) * rint(({}) / ({}) - 0.5))", a, b, a, b);
      if (op == "<<") return fmt::format("(({}) * 2 ^ ({}))", a, b);
      if (op == ">>") return fmt::format("rint(({}) / 2 ^ ({}) - 0.5)", a, b);
      static const std::vector<std::string> same = {"+", "-", "*", "<", ">", "<=", ">=", "==", "!=", "&&", "||"};
      for (const auto& s : same)
        if (op == s) return a + " " + op + " " + b;
      throw Error(fmt::format("{}: operator '{}' is not supported in launch sizes", what(c), op));
    }
    case CXCursor_ConditionalOperator:
      return fmt::format("({} ? {} : {})", directive_expression(kids.at(0), scope), directive_expression(kids.at(1), scope),
                         directive_expression(kids.at(2), scope));
    case CXCursor_CallExpr: {
      const std::string name = spelling(c);
      if ((name == "min" || name == "max") && kids.size() == 3)
        return fmt::format("{}({}, {})", name, directive_expression(kids[1], scope), directive_expression(kids[2], scope));
      if (kids.size() == 1) return directive_expression(kids[0], scope);  // a conversion written as a call
      throw Error(fmt::format("{}: call to '{}' in a launch size (only min and max are understood)", what(c), name));
    }
    default:
      break;
  }
  throw Error(fmt::format("{}: not understood in a launch size", what(c)));
}

std::array<std::string, 3> directive_dim3(CXCursor expression, const HostScope& scope) {
  CXCursor c = strip_implicit(expression);
  if (!is_dim3(clang_getCursorType(c))) return {directive_expression(c, scope), "1", "1"};
  const CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_DeclRefExpr) {
    CXCursor init = initializer(clang_getCursorReferenced(c));
    if (clang_Cursor_isNull(init)) throw Error(what(c) + ": a dim3 without an initializer");
    return directive_dim3(init, scope);
  }
  if (kind == CXCursor_CallExpr || kind == CXCursor_UnexposedExpr || kind == CXCursor_CXXFunctionalCastExpr) {
    std::vector<CXCursor> args;
    for (CXCursor k : children(c))
      if (clang_isExpression(clang_getCursorKind(k))) args.push_back(k);
    // dim3(x) from a single dim3 (a copy) or from up to three sizes.
    if (args.size() == 1 && is_dim3(clang_getCursorType(strip_implicit(args[0])))) return directive_dim3(args[0], scope);
    std::array<std::string, 3> out = {"1", "1", "1"};
    if (args.size() > 3) throw Error(what(c) + ": a dim3 with more than three sizes");
    for (size_t i = 0; i < args.size(); ++i) out[i] = directive_expression(args[i], scope);
    return out;
  }
  throw Error(what(c) + ": a dim3 that is not a variable or a constructor call");
}

}  // namespace ksearch::translate
