#pragma once
// core/pattern: regular expressions over untrusted text (candidate sources, models' answers). PCRE2 compiled to
// machine code, with a bounded amount of work and its own bounded stack: no text can crash ksearch or keep it
// matching for minutes. (std::regex recurses once per character matched, so a 200 KB string literal or run of
// blank lines overflowed the stack, and it backtracks without bound.)
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace ksearch {

// Thrown when matching would take more work or stack than the limits: the text was built (or happens) to make
// the pattern backtrack. Callers that judge untrusted text treat it as a finding of its own.
class PatternLimitError : public Error {
 public:
  using Error::Error;
};

class Pattern {
 public:
  struct Group {
    size_t position = 0;
    size_t length = 0;
    bool matched = false;
  };
  struct Match {
    std::vector<Group> groups;  // [0] is the whole match
    std::string_view text;
    size_t position(size_t group = 0) const { return groups.at(group).position; }
    std::string str(size_t group = 0) const;
  };

  // Perl/ECMAScript syntax (lookahead, lookbehind, lazy repeats, \b \w \s); `^` and `$` match at the text's ends
  // only. Throws Error with the offset of a syntax error.
  explicit Pattern(std::string_view expression, bool ignore_case = false);

  // The first match at or after `start`; throws PatternLimitError past the work or stack limit.
  std::optional<Match> search(std::string_view text, size_t start = 0) const;
  bool found_in(std::string_view text) const { return search(text).has_value(); }
  // The number of capturing groups.
  size_t group_count() const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> compiled_;  // immutable once compiled: copies and threads share it
};

}  // namespace ksearch
