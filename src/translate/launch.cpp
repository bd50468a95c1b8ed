#include "translate/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
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

std::vector<std::string> tokens_of(CXTranslationUnit unit, CXCursor c) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(c), &tokens, &n);
  std::vector<std::string> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(take(clang_getTokenSpelling(unit, tokens[i])));
  clang_disposeTokens(unit, tokens, n);
  return out;
}

// Skips implicit conversions, parentheses and casts around an expression.
CXCursor operand(CXCursor c) {
  c = strip_implicit(c);
  for (CXCursorKind k = clang_getCursorKind(c); k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
                                               k == CXCursor_CXXStaticCastExpr || k == CXCursor_CXXReinterpretCastExpr;
       k = clang_getCursorKind(c)) {
    std::vector<CXCursor> kids = children(c);
    if (kids.empty()) break;
    c = strip_implicit(kids.back());
  }
  return c;
}

// What an assignment's left side names: a variable of the entry, and the dim3 field (-1: all of
// it, -2: a member of another struct, which is not followed).
struct Target {
  CXCursor var = clang_getNullCursor();
  int field = -1;
};

Target target_of(CXCursor lhs) {
  Target t;
  CXCursor c = operand(lhs);
  if (clang_getCursorKind(c) == CXCursor_MemberRefExpr) {
    std::vector<CXCursor> kids = children(c);
    if (kids.empty()) return t;
    const std::string m = spelling(c);
    CXCursor base = operand(kids[0]);
    t.field = is_dim3(clang_getCursorType(base)) && (m == "x" || m == "y" || m == "z") ? m[0] - 'x' : -2;
    c = base;
  }
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return t;
  CXCursor decl = clang_getCursorReferenced(c);
  if (clang_getCursorKind(decl) == CXCursor_VarDecl || clang_getCursorKind(decl) == CXCursor_ParmDecl) t.var = decl;
  return t;
}

struct Collector {
  HostScope& scope;
  std::vector<std::pair<CXCursor, bool>> guards;
  std::string context;  // why an assignment here is not followed (in a loop, a switch)

  void add(CXCursor at, const Target& t, const std::string& op, CXCursor value, std::string why) {
    if (clang_Cursor_isNull(t.var)) return;
    if (why.empty()) why = !context.empty() ? context : t.field == -2 ? "a member of it is assigned" : "";
    Assignment a;
    a.at = end_offset(at);
    a.line = position(at).line;
    a.field = t.field;
    a.guards = guards;
    if (why.empty()) {
      a.op = op;
      a.value = value;
    } else {
      a.why = std::move(why);
    }
    scope.assignments[decl_key(t.var)].push_back(a);
  }

  void node(CXCursor c) {
    const CXCursorKind kind = clang_getCursorKind(c);
    std::vector<CXCursor> kids = children(c);
    if (kind == CXCursor_IfStmt && (kids.size() == 2 || kids.size() == 3) && clang_isExpression(clang_getCursorKind(kids[0]))) {
      node(kids[0]);
      for (size_t i = 1; i < kids.size(); ++i) {
        guards.push_back({kids[0], i == 1});
        node(kids[i]);
        guards.pop_back();
      }
      return;
    }
    const std::string outer = context;
    if (kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt || kind == CXCursor_DoStmt || kind == CXCursor_CXXForRangeStmt)
      context = "it is assigned inside a loop";
    else if (kind == CXCursor_SwitchStmt || kind == CXCursor_IfStmt)
      context = "it is assigned inside a switch or an if with an initializer";
    else if (kind == CXCursor_LambdaExpr)
      context = "it is assigned inside a lambda";
    else if (kind == CXCursor_ConditionalOperator)
      context = "it is assigned inside a conditional expression";
    if ((kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) && kids.size() == 2) {
      const std::string op = operator_after(scope.unit, c, end_offset(kids[0]));
      if (op == "&&" || op == "||") context = "it is assigned inside a conditional expression";
      if (!op.empty() && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=")
        add(c, target_of(kids[0]), op, kids[1], "");
    } else if (kind == CXCursor_UnaryOperator && kids.size() == 1) {
      const std::vector<std::string> tokens = tokens_of(scope.unit, c);
      const std::string first = tokens.empty() ? "" : tokens.front(), last = tokens.empty() ? "" : tokens.back();
      if (first == "++" || first == "--") add(c, target_of(kids[0]), first, clang_getNullCursor(), "");
      else if (last == "++" || last == "--") add(c, target_of(kids[0]), last, clang_getNullCursor(), "");
      else if (first == "&") add(c, target_of(kids[0]), "", clang_getNullCursor(), "its address is taken");
    } else if (kind == CXCursor_CallExpr) {
      // A call writes through an address or a non-const reference it is given.
      CXCursor callee = clang_getCursorReferenced(c);
      for (int i = 0; i < clang_Cursor_getNumArguments(c); ++i) {
        CXCursor arg = operand(clang_Cursor_getArgument(c, unsigned(i)));
        CXCursor param = clang_Cursor_isNull(callee) ? clang_getNullCursor() : clang_Cursor_getArgument(callee, unsigned(i));
        CXType type = clang_getCursorType(param);
        if (clang_getCursorKind(arg) == CXCursor_UnaryOperator && tokens_of(scope.unit, arg).front() == "&")
          add(arg, target_of(children(arg).at(0)), "", clang_getNullCursor(), "its address is passed to '" + spelling(c) + "'");
        else if (!clang_Cursor_isNull(param) && clang_getCanonicalType(type).kind == CXType_LValueReference &&
                 !clang_isConstQualifiedType(clang_getPointeeType(type)))
          add(arg, target_of(arg), "", clang_getNullCursor(), "it is passed by reference to '" + spelling(c) + "'");
      }
    }
    for (CXCursor k : kids) node(k);
    context = outer;
  }
};

// Directive expressions of the values value_at combines.
ValueText directive_text(const HostScope& scope) {
  ValueText t;
  t.value = [&scope](CXCursor v, int field) {
    return "(" + (field >= 0 ? directive_dim3(v, scope)[size_t(field)] : directive_expression(v, scope)) + ")";
  };
  t.operand = [&scope](CXCursor c) { return directive_expression(c, scope); };
  t.binary = [](const std::string& op, const std::string& a, const std::string& b) {
    // Integer division and remainder: directive expressions are floating point, and rint(x - 0.5)
    // is floor(x) (exactly, for the integer quotients of launch sizes).
    if (op == "/") return fmt::format("rint(({}) / ({}) - 0.5)", a, b);
    if (op == "%") return fmt::format("(({}) - ({}) * rint(({}) / ({}) - 0.5))", a, b, a, b);
    if (op == "<<") return fmt::format("(({}) * 2 ^ ({}))", a, b);
    if (op == ">>") return fmt::format("rint(({}) / 2 ^ ({}) - 0.5)", a, b);
    static const std::vector<std::string> same = {"+", "-", "*", "<", ">", "<=", ">=", "==", "!=", "&&", "||"};
    for (const auto& s : same)
      if (op == s) return a + " " + op + " " + b;
    throw Error(fmt::format("operator '{}' is not supported in launch sizes", op));
  };
  return t;
}

}  // namespace

void collect_assignments(CXCursor entry, HostScope& scope) {
  Collector{scope, {}, ""}.node(entry);
  for (auto& [key, list] : scope.assignments)
    std::stable_sort(list.begin(), list.end(), [](const Assignment& a, const Assignment& b) { return a.at < b.at; });
}

std::string value_at(CXCursor var, unsigned at, int field, const HostScope& scope, const ValueText& text) {
  std::optional<std::string> current;
  auto now = [&]() -> std::string {
    if (!current) current = text.initial();
    return *current;
  };
  auto found = scope.assignments.find(decl_key(var));
  if (found == scope.assignments.end()) return now();
  for (const Assignment& a : found->second) {
    if (a.at > at) break;
    if (a.field >= 0 && field < 0)
      throw Error(fmt::format("'{}' is modified field by field (line {}): use its fields", spelling(var), a.line));
    if (a.field >= 0 && a.field != field) continue;
    if (a.op.empty())
      throw Error(fmt::format("'{}' is modified after its declaration (line {}): {}, which the port cannot follow",
                              spelling(var), a.line, a.why));
    std::string next;
    if (a.op == "=") next = text.value(a.value, a.field >= 0 ? -1 : field);
    else if (a.op == "++" || a.op == "--") next = "(" + text.binary(a.op.substr(0, 1), "(" + now() + ")", "1") + ")";
    else next = "(" + text.binary(a.op.substr(0, a.op.size() - 1), "(" + now() + ")", "(" + text.operand(a.value) + ")") + ")";
    // Under an if, innermost first: (c ? new : old), or (c ? old : new) in the else branch.
    for (auto g = a.guards.rbegin(); g != a.guards.rend(); ++g) {
      const std::string c = text.operand(g->first), old = now();
      next = g->second ? fmt::format("({} ? {} : {})", c, next, old) : fmt::format("({} ? {} : {})", c, old, next);
    }
    current = next;
  }
  return now();
}

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
      if (param == scope.parameters.end() && clang_getCursorKind(decl) == CXCursor_ParmDecl)
        throw Error(fmt::format("{}: parameter '{}' is not an axis or param of the task's entry", what(c), spelling(decl)));
      if (param == scope.parameters.end() && clang_getCursorKind(decl) != CXCursor_VarDecl)
        throw Error(fmt::format("{}: '{}' has no value the launch can be computed from", what(c), spelling(decl)));
      ValueText text = directive_text(scope);
      text.initial = [&]() -> std::string {
        if (param != scope.parameters.end()) return param->second;
        CXCursor init = initializer(decl);
        if (clang_Cursor_isNull(init))
          throw Error(fmt::format("{}: '{}' has no value the launch can be computed from", what(c), spelling(decl)));
        return "(" + directive_expression(init, scope) + ")";
      };
      return value_at(decl, begin_offset(c), -1, scope, text);
    }
    case CXCursor_MemberRefExpr: {
      const std::string m = spelling(c);  // `block.x` of a dim3
      if (!kids.empty() && is_dim3(clang_getCursorType(strip_implicit(kids[0]))) && (m == "x" || m == "y" || m == "z"))
        return "(" + directive_dim3(kids[0], scope)[size_t(m[0] - 'x')] + ")";
      break;
    }
    case CXCursor_BinaryOperator: {
      const std::string a = directive_expression(kids.at(0), scope), b = directive_expression(kids.at(1), scope);
      const std::string op = operator_after(scope.unit, c, end_offset(kids.at(0)));
      try {
        return directive_text(scope).binary(op, a, b);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}", what(c), e.what()));
      }
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
    CXCursor var = clang_getCursorReferenced(c);
    std::optional<std::array<std::string, 3>> initial;
    std::array<std::string, 3> out;
    for (int i = 0; i < 3; ++i) {
      ValueText text = directive_text(scope);
      text.initial = [&] {
        if (!initial) {
          CXCursor init = initializer(var);
          if (clang_Cursor_isNull(init)) throw Error(what(c) + ": a dim3 without an initializer");
          initial = directive_dim3(init, scope);
        }
        return (*initial)[size_t(i)];
      };
      out[size_t(i)] = value_at(var, begin_offset(c), i, scope, text);
    }
    return out;
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
