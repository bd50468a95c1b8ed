#pragma once
// tasks/expr: the arithmetic expressions of task files (shapes, costs, conditions).
#include <map>
#include <set>
#include <string>

namespace ksearch::tasks {

// Evaluates an arithmetic expression over named values (axes and scalar parameters):
// + - * / ^, parentheses, comparisons, && ||, ?:, min(), max(), the constants _pi, _e and _inf. Throws Error with
// the expression.
double evaluate_expression(const std::string& expression, const std::map<std::string, double>& values);

// Whether a name is one of the expressions' constants: muparser's _pi and _e, and _inf (infinity).
bool is_expression_constant(const std::string& name);

// The axes and parameters an expression reads: its names but functions' and the constants.
std::set<std::string> expression_names(const std::string& expression);

// Checks an expression parses and names only known values; returns an error message or "".
std::string validate_expression(const std::string& expression, const std::map<std::string, double>& values);

}  // namespace ksearch::tasks
