#include "tasks/expr.hpp"

#include <muParser.h>

#include <cctype>
#include <cmath>

#include "core/error.hpp"

namespace ksearch::tasks {

namespace {
double floor_of(double x) { return std::floor(x); }
double ceil_of(double x) { return std::ceil(x); }

double run_parser(const std::string& expression, const std::map<std::string, double>& values) {
  mu::Parser parser;
  // `/` divides exactly: rounding a count up or down to whole tiles or groups is said with these.
  parser.DefineFun("floor", floor_of);
  parser.DefineFun("ceil", ceil_of);
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

std::string validate_expression(const std::string& expression, const std::map<std::string, double>& values) {
  try {
    run_parser(expression, values);
    return "";
  } catch (const mu::Parser::exception_type& e) {
    return message(e);
  }
}

}  // namespace ksearch::tasks
