#pragma once
// tasks/expr: the arithmetic expressions of task files (shapes, costs, conditions).
#include <map>
#include <set>
#include <string>

namespace ksearch::tasks {

// Evaluates an arithmetic expression over named values (axes and scalar parameters):
// + - * / ^, parentheses, comparisons, && ||, ?:, min(), max(). Throws Error with the expression.
double evaluate_expression(const std::string& expression, const std::map<std::string, double>& values);

// The axes and parameters an expression reads: its names but functions' and muparser's constants (_pi, _e).
std::set<std::string> expression_names(const std::string& expression);

// Checks an expression parses and names only known values; returns an error message or "".
std::string validate_expression(const std::string& expression, const std::map<std::string, double>& values);

}  // namespace ksearch::tasks
