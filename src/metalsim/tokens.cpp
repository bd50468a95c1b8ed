#include "metalsim/tokens.hpp"

#include <algorithm>
#include <cctype>

namespace ksearch::metalsim {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  int line = 1;
  std::size_t i = 0;
  auto push = [&](Tok k, std::size_t from) {
    std::string t = s.substr(from, i - from);
    out.push_back({k, t, line});
    line += static_cast<int>(std::count(t.begin(), t.end(), '\n'));
  };
  while (i < s.size()) {
    std::size_t from = i;
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      push(Tok::Space, from);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      push(Tok::Space, from);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? s.size() : e + 2;
      push(Tok::Space, from);
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < s.size() && s[i] != c && s[i] != '\n') i += (s[i] == '\\') ? 2 : 1;
      i = std::min(i + 1, s.size());
      push(Tok::String, from);
    } else if (ident_start(c)) {
      while (i < s.size() && ident_char(s[i])) ++i;
      push(Tok::Ident, from);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // pp-number: digits, letters, '.', and exponent signs
      ++i;
      while (i < s.size()) {
        char d = s[i];
        if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P') &&
            !(s[from] == '0' && from + 1 < s.size() && (s[from + 1] == 'x' || s[from + 1] == 'X') &&
              (s[i - 1] == 'e' || s[i - 1] == 'E'))) {
          ++i;
        } else if (ident_char(d) || d == '.') {
          ++i;
        } else {
          break;
        }
      }
      push(Tok::Number, from);
    } else {
      // two-character punctuators that matter for parsing
      static const char* two[] = {"::", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
      ++i;
      for (const char* t : two)
        if (c == t[0] && i < s.size() && s[i] == t[1]) {
          ++i;
          break;
        }
      push(Tok::Punct, from);
    }
  }
  return out;
}

std::size_t next_token(const std::vector<Token>& t, std::size_t i) {
  ++i;
  while (i < t.size() && t[i].kind == Tok::Space) ++i;
  return i;
}

long previous_token(const std::vector<Token>& t, std::size_t i) {
  long j = static_cast<long>(i) - 1;
  while (j >= 0 && t[j].kind == Tok::Space) --j;
  return j;
}

std::size_t closing_bracket(const std::vector<Token>& t, std::size_t open) {
  constexpr std::size_t npos = std::string::npos;
  const std::string& o = t[open].text;
  const std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (std::size_t q = open; q < t.size(); q = next_token(t, q)) {
    if (t[q].text == o) ++depth;
    else if (t[q].text == c && --depth == 0) return q;
    else if (c == ">" && t[q].text == ">>" && (depth -= 2) <= 0) return depth == 0 ? q : npos;
    else if (c == ">" && (t[q].text == ";" || t[q].text == "{")) return npos;
  }
  return npos;
}

std::vector<bool> directive_tokens(const std::vector<Token>& t) {
  std::vector<bool> directive(t.size(), false);
  auto ends_line = [&](std::size_t i) {
    return t[i].kind == Tok::Space && t[i].text.find('\n') != std::string::npos && t[i].text.rfind("/*", 0) != 0;
  };
  bool line_start = true;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind == Tok::Space) {
      if (t[i].text.find('\n') != std::string::npos) line_start = true;
      continue;
    }
    if (line_start && t[i].text == "#") {
      for (; i < t.size(); ++i) {
        if (ends_line(i) && !(i > 0 && !t[i - 1].text.empty() && t[i - 1].text.back() == '\\')) break;
        directive[i] = true;
      }
      continue;  // at the newline that ended it: the next line starts
    }
    line_start = false;
  }
  return directive;
}

}  // namespace ksearch::metalsim
