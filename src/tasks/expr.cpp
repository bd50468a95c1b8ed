#include "tasks/expr.hpp"

#include <muParser.h>

#include "core/error.hpp"

namespace ksearch::tasks {

namespace {
double run_parser(const std::string& expression, const std::map<std::string, double>& values) {
  mu::Parser parser;
  // muparser binds variables by address, so keep a local copy that outlives Eval().
  std::map<std::string, double> storage = values;
  for (auto& [name, value] : storage) parser.DefineVar(name, &value);
  parser.SetExpr(expression);
  return parser.Eval();
}
}  // namespace

double evaluate_expression(const std::string& expression, const std::map<std::string, double>& values) {
  try {
    return run_parser(expression, values);
  } catch (const mu::Parser::exception_type& e) {
    throw Error("cannot evaluate expression '" + expression + "': " + e.GetMsg());
  }
}

std::string validate_expression(const std::string& expression, const std::map<std::string, double>& values) {
  try {
    run_parser(expression, values);
    return "";
  } catch (const mu::Parser::exception_type& e) {
    return e.GetMsg();
  }
}

}  // namespace ksearch::tasks
