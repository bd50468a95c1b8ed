#pragma once
// Checks for numeric options whose messages a user can read (CLI11's PositiveNumber and
// NonNegativeNumber print the whole range of a double, a 300-digit number).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace ksearch::cli {

inline CLI::Validator number_at_least(double low, bool inclusive, const std::string& name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || value != value)
          return "'" + text + "' is not a number";
        if (inclusive ? value < low : value <= low) return "must be " + name + ", got " + text;
        return "";
      },
      name == "positive" ? "POSITIVE" : "NONNEGATIVE");
}

inline const CLI::Validator kPositive = number_at_least(0, false, "positive");
inline const CLI::Validator kNonNegative = number_at_least(0, true, "0 or more");

}  // namespace ksearch::cli
