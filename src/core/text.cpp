#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ksearch {

std::string trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

std::string substitute(std::string_view text, const std::map<std::string, std::string, std::less<>>& values) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find('{', pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('}', open + 1);
    if (close == std::string_view::npos) break;
    out.append(text, pos, open - pos);
    const auto value = values.find(text.substr(open + 1, close - open - 1));
    if (value != values.end()) {
      out += value->second;
      pos = close + 1;
    } else {
      out += '{';  // not a placeholder of ours: keep it and look again after the brace
      pos = open + 1;
    }
  }
  out.append(text, pos);
  return out;
}

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);  // distances from a's prefix to each prefix of b
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substituted = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({substituted, row[j] + 1, row[j - 1] + 1});
    }
  }
  return row[b.size()];
}

}  // namespace ksearch
