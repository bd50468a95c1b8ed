#include "tasks/expr.hpp"

#include <muParser.h>

#include <bit>
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

// GCC's and C++20's bit counts of an unsigned integer of `Bits` bits (launch sizes ported from C++: a next power of two
// `1 << (32 - __builtin_clz(n - 1))`): the value as C++ converts an integer to that width (a negative int wraps), NaN
// for a value that is not an integer of the signed or unsigned range, and for the leading or trailing zeros of 0,
// which GCC leaves undefined.
template <int Bits, typename Count>
double bit_count(double x, Count count, bool defined_at_zero) {
  const bool integer = std::isfinite(x) && x == std::trunc(x) && x >= -0x1p63 && x < (Bits == 32 ? 0x1p32 : 0x1p63);
  if (!integer || (Bits == 32 && x < -0x1p31)) return std::nan("");
  const uint64_t bits = Bits == 32 ? uint64_t(uint32_t(int64_t(x))) : uint64_t(int64_t(x));
  if (bits == 0 && !defined_at_zero) return std::nan("");
  return double(count(bits));
}
double clz32_of(double x) { return bit_count<32>(x, [](uint64_t v) { return std::countl_zero(uint32_t(v)); }, false); }
double clz64_of(double x) { return bit_count<64>(x, [](uint64_t v) { return std::countl_zero(v); }, false); }
double ctz32_of(double x) { return bit_count<32>(x, [](uint64_t v) { return std::countr_zero(uint32_t(v)); }, false); }
double ctz64_of(double x) { return bit_count<64>(x, [](uint64_t v) { return std::countr_zero(v); }, false); }
double popcount32_of(double x) { return bit_count<32>(x, [](uint64_t v) { return std::popcount(uint32_t(v)); }, true); }
double popcount64_of(double x) { return bit_count<64>(x, [](uint64_t v) { return std::popcount(v); }, true); }

// pick(i, v0, v1, ...): v_i, an element of a table (launch sizes ported from C++ read constant arrays); NaN for an
// index that is not an integer in range.
double pick_of(const double* args, int count) {
  const double i = args[0];
  if (count < 2 || !std::isfinite(i) || i != std::trunc(i) || i < 0 || i > count - 2) return std::nan("");
  return args[static_cast<int>(i) + 1];
}

double run_parser(const std::string& expression, const std::map<std::string, double>& values) {
  mu::Parser parser;
  // `/` divides exactly: rounding a count up or down to whole tiles or groups is said with floor and ceil.
  using Unary = double (*)(double);
  for (const auto& [name, function] : {std::pair<const char*, Unary>{"floor", floor_of}, {"ceil", ceil_of}, {"clz32", clz32_of},
                                       {"clz64", clz64_of}, {"ctz32", ctz32_of}, {"ctz64", ctz64_of},
                                       {"popcount32", popcount32_of}, {"popcount64", popcount64_of}})
    parser.DefineFun(name, function);
  using Binary = double (*)(double, double);
  for (const auto& [name, function] : {std::pair<const char*, Binary>{"bitand", bitand_of}, {"bitor", bitor_of}, {"bitxor", bitxor_of}})
    parser.DefineFun(name, function);
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
