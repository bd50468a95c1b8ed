#pragma once
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace ksearch {

struct RuleViolation {
  std::string rule;
  std::string message;
  int line = 0;  // 1-based line in the candidate source, 0 if not tied to a line
};

// Machine-checked rules of a hardware profile (loaded from a .rules.toml file): forbidden
// constructs matched on the source with comments removed, an include allowlist, size limits.
struct ForbiddenPattern {
  std::string id;
  std::string pattern;  // ECMAScript regex
  std::string message;
  std::regex regex;
};

struct RuleSet {
  std::vector<ForbiddenPattern> forbidden;
  std::set<std::string> allowed_includes;  // <name> includes; empty = any
  bool allow_quoted_includes = false;
  size_t max_source_bytes = 256 * 1024;

  std::vector<RuleViolation> check(const std::string& source) const;
  std::string describe() const;  // the rules as a bullet list, for prompts
};

RuleSet load_rules(const std::filesystem::path& file);  // throws Error naming file and line
// Comments replaced by spaces and string literal contents blanked (line numbers kept).
std::string strip_comments_and_strings(const std::string& source);

}  // namespace ksearch
