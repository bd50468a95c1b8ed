#include "core/text.hpp"

namespace ksearch {

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

}  // namespace ksearch
