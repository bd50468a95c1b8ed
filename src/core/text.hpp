#pragma once
// core/text: filling placeholders in text files (profiles, templates); names: C identifiers, how far apart two are (typos).
#include <map>
#include <string>
#include <string_view>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// `text` with every "{name}" whose name is a key of `values` replaced by its value, in one pass (a
// value is never searched for placeholders itself); other braces are kept as they are.
std::string substitute(std::string_view text, const std::map<std::string, std::string, std::less<>>& values);

// `text` with its control characters (a terminal's escape sequences: ESC [ ... can erase and rewrite what was printed
// before) as spaces; line breaks and tabs too unless `keep_lines`. For text an untrusted program wrote. (Inline: the
// runners, which link only core's headers, quote a candidate's exception with it.)
inline std::string printable(std::string_view text, bool keep_lines) {
  std::string out(text);
  for (char& c : out)
    if (((c >= 0 && c < 0x20) || c == 0x7f) && !(keep_lines && (c == '\n' || c == '\t'))) c = ' ';
  return out;
}

// `text` without the spaces, tabs and line breaks at its ends.
std::string trimmed(std::string_view text);

// Whether `name` is a C identifier: ASCII letters, digits and '_', not starting with a digit.
bool is_identifier(std::string_view name);

// The number of single-character insertions, deletions and substitutions that turn `a` into `b` (Levenshtein).
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace ksearch
