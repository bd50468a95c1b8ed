#include "tasks/expr.hpp"

#include <muParser.h>

#include <cctype>
#include <cmath>
#include <cstdint>

#include "core/error.hpp"

namespace ksearch::tasks {

namespace {
double floor_of(double x) { return std::floor(x); }
double ceil_of(double x) { return std::ceil(x); }

// Bitwise operators over integer values (launch sizes ported from C++: `(n & (n - 1)) == 0`), in two's complement as
// C++'s on int64; NaN for an operand that is not a finite integer of that range.
template <typename Op>
double bitwise(double a, double b, Op op) {
  const auto integer = [](double x) { return std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 0x1p63; };
  if (!integer(a) || !integer(b)) return std::nan("");
  return double(op(static_cast<int64_t>(a), static_cast<int64_t>(b)));
}
double bitand_of(double a, double b) { return bitwise(a, b, [](int64_t x, int64_t y) { return x & y; }); }
double bitor_of(double a, double b) { return bitwise(a, b, [](int64_t x, int64_t y) { return x | y; }); }
double bitxor_of(double a, double b) { return bitwise(a, b, [](int64_t x, int64_t y) { return x ^ y; }); }

// pick(i, v0, v1, ...): v_i, an element of a table (launch sizes ported from C++ read constant arrays); NaN for an
// index that is not an integer in range.
double pick_of(const double* args, int count) {
  const double i = args[0];
  if (count < 2 || !std::isfinite(i) || i != std::trunc(i) || i < 0 || i > count - 2) return std::nan("");
  return args[static_cast<int>(i) + 1];
}

double run_parser(const std::string& expression, const std::map<std::string, double>& values) {
  mu::Parser parser;
  // `/` divides exactly: rounding a count up or down to whole tiles or groups is said with these.
  parser.DefineFun("floor", floor_of);
  parser.DefineFun("ceil", ceil_of);
  parser.DefineFun("bitand", bitand_of);
  parser.DefineFun("bitor", bitor_of);
  parser.DefineFun("bitxor", bitxor_of);
  parser.DefineFun("pick", pick_of);
  // Infinity, besides muparser's _pi and _e: an init_value for a maximum (`-_inf`), as MLX takes float('-inf').
  parser.DefineConst("_inf", HUGE_VAL);
  // muparser binds variables by address, so keep a local copy that outlives Eval().
  std::map<std::string, double> storage = values;
  for (auto& [name, value] : storage) parser.DefineVar(name, &value);
  parser.SetExpr(expression);
  return parser.Eval();
}

std::string message(const mu::Parser::exception_type& e) {
  // muparser reports a name it has no value for as a mere "unexpected token".
  const std::string& token = e.GetToken();
  if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN && !token.empty() && (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_'))
    return "unknown axis or parameter '" + token + "'";
  return e.GetMsg();
}
}  // namespace

double evaluate_expression(const std::string& expression, const std::map<std::string, double>& values) {
  try {
    return run_parser(expression, values);
  } catch (const mu::Parser::exception_type& e) {
    throw Error("cannot evaluate expression '" + expression + "': " + message(e));
  }
}

bool is_expression_constant(const std::string& name) { return name == "_pi" || name == "_e" || name == "_inf"; }

std::set<std::string> expression_names(const std::string& expression) {
  std::set<std::string> names;
  const auto word = [&](size_t i) {
    return i < expression.size() && (std::isalnum(static_cast<unsigned char>(expression[i])) || expression[i] == '_');
  };
  for (size_t i = 0; i < expression.size();) {
    if (!word(i)) {
      ++i;
      continue;
    }
    size_t end = i;
    while (word(end)) ++end;
    const std::string token = expression.substr(i, end - i);
    const size_t next = expression.find_first_not_of(" \t", end);
    const bool call = next != std::string::npos && expression[next] == '(';
    // A number's letters (1e-5, 0x10) are no name; nor are functions and constants.
    if (!std::isdigit(static_cast<unsigned char>(token[0])) && !call && !is_expression_constant(token)) names.insert(token);
    i = end;
  }
  return names;
}

std::string validate_expression(const std::string& expression, const std::map<std::string, double>& values) {
  try {
    run_parser(expression, values);
    return "";
  } catch (const mu::Parser::exception_type& e) {
    return message(e);
  }
}

}  // namespace ksearch::tasks
