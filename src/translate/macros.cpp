#include "translate/macros.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"

namespace ksearch::translate {

namespace {

enum class Kind { identifier, number, literal, comment, space, punctuation };

struct Token {
  Kind kind;
  std::string text;
};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Preprocessing tokens, enough to find macro uses and their arguments: identifiers, numbers,
// string and character literals, comments and whitespace (kept whole), `##`, other characters one by one.
std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  for (size_t i = 0; i < s.size();) {
    const size_t from = i;
    Kind kind = Kind::punctuation;
    const char c = s[i];
    if (identifier_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
      kind = Kind::identifier;
      while (i < s.size() && identifier_char(s[i])) ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      kind = Kind::number;
      for (++i; i < s.size() && (identifier_char(s[i]) || s[i] == '.' ||
                                 ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P')));)
        ++i;
    } else if (c == '"' || c == '\'') {
      kind = Kind::literal;
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      i = std::min(s.size(), i + 1);
    } else if (s.compare(i, 2, "//") == 0) {
      kind = Kind::comment;
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      kind = Kind::comment;
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      kind = Kind::space;
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    } else {
      i += s.compare(i, 2, "##") == 0 ? 2 : 1;
    }
    out.push_back({kind, s.substr(from, i - from)});
  }
  return out;
}

bool blank(const Token& t) { return t.kind == Kind::space || t.kind == Kind::comment; }

struct Macro {
  bool function_like = false;
  std::vector<std::string> parameters;  // `__VA_ARGS__` for `...`
  std::vector<Token> body;
};

// `#define NAME(a, b) body` (the text after `define`, continuation lines joined): the macro, or none
// for a definition that is not understood.
std::pair<std::string, Macro> parse_definition(const std::string& rest) {
  const std::vector<Token> tokens = tokenize(rest);
  size_t i = 0;
  while (i < tokens.size() && blank(tokens[i])) ++i;
  if (i == tokens.size() || tokens[i].kind != Kind::identifier) return {};
  const std::string name = tokens[i++].text;
  Macro m;
  if (i < tokens.size() && tokens[i].text == "(") {  // no space before `(`: function-like
    m.function_like = true;
    for (++i; i < tokens.size() && tokens[i].text != ")"; ++i) {
      if (tokens[i].kind == Kind::identifier) m.parameters.push_back(tokens[i].text);
      else if (tokens[i].text == ".") m.parameters.push_back("__VA_ARGS__"), i += 2;
    }
    ++i;
  }
  for (; i < tokens.size(); ++i)
    if (tokens[i].kind != Kind::comment) m.body.push_back(tokens[i]);
  while (!m.body.empty() && m.body.back().kind == Kind::space) m.body.pop_back();
  while (!m.body.empty() && m.body.front().kind == Kind::space) m.body.erase(m.body.begin());
  return {name, m};
}

// A constant macro (`256`, `(32 * 8)`) reads well and evaluates where it is used; one that names
// something is expanded.
bool names_something(const Macro& m) {
  for (const auto& t : m.body)
    if (t.kind == Kind::identifier) return true;
  return false;
}

// The text expansions may produce in all, counted at every level: macros that double their argument eight times over
// (`#define A(x) x x`, `B(x) A(A(...(x)))`) expand a line to gigabytes; stopped here with an error instead of eating the
// machine's memory (24 GiB before the kernel killed `ksearch port`).
constexpr size_t kMaxExpansionBytes = 16 * 1024 * 1024;

class Expander {
 public:
  std::map<std::string, Macro> active;
  std::set<std::string> used;

  // The tokens with the uses of active macros (other than those being expanded) expanded; a
  // function-like macro's arguments must be among the tokens.
  std::string expand(const std::vector<Token>& tokens, const std::set<std::string>& disabled) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      auto m = t.kind == Kind::identifier && !disabled.count(t.text) ? active.find(t.text) : active.end();
      if (m == active.end()) {
        out += t.text;
        continue;
      }
      std::vector<std::string> arguments;
      size_t end = i;
      if (m->second.function_like && !arguments_at(tokens, i + 1, arguments, end)) {
        out += t.text;  // a function-like macro's name without arguments is not a use
        continue;
      }
      used.insert(t.text);
      std::set<std::string> inner = disabled;
      inner.insert(t.text);
      const std::string expansion = expand(tokenize(substitute(m->second, arguments, disabled)), inner);
      if ((produced_ += expansion.size()) > kMaxExpansionBytes)
        throw Error(fmt::format("the file's macros expand past {} MiB ('{}' among them): a macro that multiplies its "
                                "argument at every level; the port expands macros itself and stops there",
                                kMaxExpansionBytes >> 20, t.text));
      out += expansion;
      i = end;
    }
    return out;
  }

 private:
  // The arguments of a use whose `(` is at or after `from` (blanks between): each argument's text
  // with comments and line breaks as spaces; `end` is the index of the closing `)`.
  static bool arguments_at(const std::vector<Token>& tokens, size_t from, std::vector<std::string>& arguments, size_t& end) {
    while (from < tokens.size() && blank(tokens[from])) ++from;
    if (from >= tokens.size() || tokens[from].text != "(") return false;
    std::string current;
    int depth = 0;
    for (size_t i = from + 1; i < tokens.size(); ++i) {
      const std::string& s = tokens[i].text;
      if (depth == 0 && (s == ")" || s == ",")) {
        arguments.push_back(trim(current));
        current.clear();
        if (s == ")") {
          end = i;
          if (arguments.size() == 1 && arguments[0].empty()) arguments.clear();
          return true;
        }
        continue;
      }
      depth += s == "(" ? 1 : s == ")" ? -1 : 0;
      current += blank(tokens[i]) ? " " : s;
    }
    return false;
  }

  size_t produced_ = 0;

  static std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
  }

  // The body with its parameters replaced: by the argument as written next to `##` or after `#`,
  // by the expanded argument elsewhere.
  std::string substitute(const Macro& m, const std::vector<std::string>& arguments, const std::set<std::string>& disabled) {
    auto argument_of = [&](const std::string& name) -> std::optional<std::string> {
      for (size_t p = 0; p < m.parameters.size(); ++p) {
        if (m.parameters[p] != name) continue;
        if (name != "__VA_ARGS__") return p < arguments.size() ? arguments[p] : "";
        std::string rest;  // the variadic arguments, commas included
        for (size_t a = p; a < arguments.size(); ++a) rest += (a > p ? ", " : "") + arguments[a];
        return rest;
      }
      return std::nullopt;
    };
    const std::vector<Token>& body = m.body;
    auto next_solid = [&](size_t i) {
      for (++i; i < body.size() && blank(body[i]);) ++i;
      return i;
    };
    std::string out;
    for (size_t i = 0; i < body.size(); ++i) {
      const Token& t = body[i];
      if (t.text == "##") {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        const size_t j = next_solid(i);
        if (j < body.size()) out += argument_of(body[j].text).value_or(body[j].text);
        i = j;
        continue;
      }
      if (t.text == "#" && m.function_like) {
        const size_t j = next_solid(i);
        const std::optional<std::string> a = j < body.size() ? argument_of(body[j].text) : std::nullopt;
        if (a) {
          std::string quoted = "\"";
          for (char c : *a) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
          out += quoted + "\"";
          i = j;
          continue;
        }
      }
      const std::optional<std::string> a = t.kind == Kind::identifier ? argument_of(t.text) : std::nullopt;
      if (!a) {
        out += t.text;
        continue;
      }
      const size_t j = next_solid(i);
      out += j < body.size() && body[j].text == "##" ? *a : expand(tokenize(*a), disabled);
    }
    return out;
  }
};

}  // namespace

MacroExpansion expand_file_macros(const std::string& text, const std::set<unsigned>& skipped) {
  MacroExpansion result;
  Expander expander;
  std::set<std::string> function_like, named_by_directives;
  const std::vector<Token> tokens = tokenize(text);
  std::string& out = result.text;
  bool line_start = true;
  int conditionals = 0;  // open #if, #ifdef, #ifndef
  unsigned line = 1;     // of `out` (the file's, kept line for line) where it was last counted
  size_t counted = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.text == "#" && line_start) {  // a directive runs to the first line break not escaped by `\`
      line += unsigned(std::count(out.begin() + long(counted), out.end(), '\n'));
      counted = out.size();
      const bool takes_effect = !skipped.count(line);
      std::string directive;
      size_t j = i;
      for (; j < tokens.size(); ++j) {
        const size_t newline = tokens[j].kind == Kind::space ? tokens[j].text.find('\n') : std::string::npos;
        if (newline != std::string::npos && !(directive.size() && directive.back() == '\\')) break;
        directive += tokens[j].text;
      }
      out += directive;
      i = j - 1;
      std::string joined;
      for (size_t at = 0; at < directive.size(); ++at)
        if (directive.compare(at, 2, "\\\n") == 0) joined += ' ', ++at;
        else joined += directive[at];
      const std::vector<Token> words = tokenize(joined.substr(1));
      size_t w = 0;
      while (w < words.size() && blank(words[w])) ++w;
      // the names a directive mentions (a definition: in its body), which keep a function-like macro's #define
      const bool definition = w < words.size() && words[w].text == "define";
      size_t defined_name = definition ? w + 1 : words.size();
      while (defined_name < words.size() && blank(words[defined_name])) ++defined_name;
      for (size_t k = w + 1; k < words.size(); ++k)
        if (words[k].kind == Kind::identifier && k != defined_name) named_by_directives.insert(words[k].text);
      const std::string word = w < words.size() ? words[w].text : "";
      conditionals += word == "if" || word == "ifdef" || word == "ifndef" ? 1 : word == "endif" ? -1 : 0;
      if (definition && takes_effect) {
        auto [name, macro] = parse_definition(joined.substr(joined.find("define") + 6));
        if (name.empty()) continue;
        if (macro.function_like) function_like.insert(name);
        const bool expanded = macro.function_like || names_something(macro);
        result.conditional |= conditionals > 0 && (expanded || expander.active.count(name));
        if (expanded) expander.active[name] = macro;
        else expander.active.erase(name);
      } else if (word == "undef" && takes_effect) {
        while (++w < words.size() && blank(words[w])) {
        }
        if (w < words.size()) {
          result.conditional |= conditionals > 0 && expander.active.count(words[w].text);
          expander.active.erase(words[w].text);
        }
      }
      continue;
    }
    if (t.kind == Kind::space) {
      out += t.text;
      if (t.text.find('\n') != std::string::npos) line_start = true;
      continue;
    }
    line_start = false;
    if (t.kind != Kind::identifier || !expander.active.count(t.text)) {
      out += t.text;
      continue;
    }
    // A use: expand it (its arguments may span lines: the line breaks follow the expansion, so that
    // every later line keeps its number).
    size_t end = i;
    int depth = 0;
    if (expander.active.at(t.text).function_like) {
      size_t j = i + 1;
      while (j < tokens.size() && blank(tokens[j])) ++j;
      if (j == tokens.size() || tokens[j].text != "(") {
        out += t.text;
        continue;
      }
      for (end = j; end < tokens.size(); ++end) {
        depth += tokens[end].text == "(" ? 1 : tokens[end].text == ")" ? -1 : 0;
        if (depth == 0) break;
      }
      if (end == tokens.size()) {
        out += t.text;
        continue;
      }
    }
    const std::vector<Token> use(tokens.begin() + long(i), tokens.begin() + long(end) + 1);
    std::string breaks;
    for (const auto& u : use)
      for (char c : u.text)
        if (c == '\n') breaks += '\n';
    std::string expanded = expander.expand(use, {});
    for (char& c : expanded)
      if (c == '\n') c = ' ';
    out += expanded + breaks;
    i = end;
  }
  result.expanded = expander.used;
  for (const std::string& name : function_like)
    if (!expander.used.count(name) && !named_by_directives.count(name)) result.unused.insert(name);
  return result;
}

}  // namespace ksearch::translate

namespace ksearch::translate {
namespace {

// A directive's condition over __CUDA_ARCH__ (`defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800`):
// integers, `defined`, comparisons, `!`, `&&`, `||` and parentheses. Any other name makes it
// unknown (nullopt): the conditional is left to the compiler.
class ArchCondition {
 public:
  ArchCondition(const std::string& text, int arch) : arch_(arch) {
    for (const Token& t : tokenize(text)) {
      if (blank(t)) continue;
      // the tokenizer gives punctuation a character at a time: `&&`, `||`, `>=`, ... are pairs
      const std::string pair = tokens_.empty() ? "" : tokens_.back() + t.text;
      if (pair == "&&" || pair == "||" || pair == ">=" || pair == "<=" || pair == "==" || pair == "!=")
        tokens_.back() = pair;
      else
        tokens_.push_back(t.text);
    }
  }
  std::optional<long> value() {
    const std::optional<long> v = disjunction();
    return at_ == tokens_.size() ? v : std::nullopt;
  }

 private:
  bool take(const std::string& s) {
    if (at_ < tokens_.size() && tokens_[at_] == s) return ++at_, true;
    return false;
  }
  std::optional<long> disjunction() {
    std::optional<long> v = conjunction();
    while (v && take("||")) {
      const std::optional<long> r = conjunction();
      v = r ? std::optional<long>(*v || *r) : std::nullopt;
    }
    return v;
  }
  std::optional<long> conjunction() {
    std::optional<long> v = comparison();
    while (v && take("&&")) {
      const std::optional<long> r = comparison();
      v = r ? std::optional<long>(*v && *r) : std::nullopt;
    }
    return v;
  }
  std::optional<long> comparison() {
    std::optional<long> v = unary();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (v && take(op)) {
        const std::optional<long> r = unary();
        if (!r) return std::nullopt;
        const std::string o = op;
        return o == "<=" ? *v <= *r : o == ">=" ? *v >= *r : o == "==" ? *v == *r : o == "!=" ? *v != *r : o == "<" ? *v < *r : *v > *r;
      }
    return v;
  }
  std::optional<long> unary() {
    if (take("!")) {
      const std::optional<long> v = unary();
      return v ? std::optional<long>(!*v) : std::nullopt;
    }
    if (take("(")) {
      const std::optional<long> v = disjunction();
      return take(")") ? v : std::nullopt;
    }
    if (take("defined")) {
      const bool paren = take("(");
      if (!take("__CUDA_ARCH__")) return std::nullopt;
      return !paren || take(")") ? std::optional<long>(1) : std::nullopt;
    }
    if (take("__CUDA_ARCH__")) return arch_;
    if (at_ < tokens_.size() && std::isdigit(static_cast<unsigned char>(tokens_[at_][0]))) return std::strtol(tokens_[at_++].c_str(), nullptr, 0);
    return std::nullopt;
  }
  std::vector<std::string> tokens_;
  size_t at_ = 0;
  int arch_;
};

}  // namespace

namespace {

void include_into(const std::filesystem::path& file, std::set<std::filesystem::path>& seen, IncludedText& out) {
  const std::string text = read_file(file);
  unsigned number = 0;
  for (size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    ++number;
    const auto directive = [&](const std::string& word) {  // the rest of `#word ...`, or nullopt
      size_t i = line.find_first_not_of(" \t");
      if (i == std::string::npos || line[i] != '#') return std::optional<std::string>();
      i = line.find_first_not_of(" \t", i + 1);
      if (i == std::string::npos || line.compare(i, word.size(), word) != 0) return std::optional<std::string>();
      return std::optional<std::string>(line.substr(i + word.size()));
    };
    std::optional<std::filesystem::path> header;
    if (const auto rest = directive("include")) {
      const size_t open = rest->find_first_not_of(" \t");
      const size_t close = open == std::string::npos || (*rest)[open] != '"' ? std::string::npos : rest->find('"', open + 1);
      if (close != std::string::npos) {
        std::error_code ec;
        const std::filesystem::path name = rest->substr(open + 1, close - open - 1);
        const std::filesystem::path beside = file.parent_path() / name;
        if (name.is_relative() && std::filesystem::is_regular_file(beside, ec)) header = std::filesystem::weakly_canonical(beside, ec);
      }
    }
    const auto pragma = directive("pragma");
    const bool once = pragma && pragma->find_first_not_of(" \t") != std::string::npos &&
                      pragma->compare(pragma->find_first_not_of(" \t"), 4, "once") == 0;
    if (header && seen.insert(*header).second) {
      include_into(*header, seen, out);
    } else {
      out.text += header || once ? std::string() : line;
      if (end < text.size()) out.text += '\n';
      out.lines.emplace_back(file.string(), number);
    }
    if (end == text.size()) break;
  }
  if (!out.text.empty() && out.text.back() != '\n') out.text += '\n';  // (a header's last line without its newline)
}

}  // namespace

IncludedText include_local_headers(const std::filesystem::path& file) {
  IncludedText out;
  std::set<std::filesystem::path> seen = {std::filesystem::weakly_canonical(file)};
  include_into(file, seen, out);
  return out;
}

std::string select_arch_branches(const std::string& text, int arch) {
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  // Per open conditional: whether it is over __CUDA_ARCH__ (and decided), whether a branch was taken,
  // whether the lines now are in the taken branch.
  struct Open {
    bool decided, taken, keeping;
  };
  std::vector<Open> open;
  auto kept = [&] { return std::all_of(open.begin(), open.end(), [](const Open& o) { return !o.decided || o.keeping; }); };
  for (std::string& line : lines) {
    const size_t hash = line.find_first_not_of(" \t");
    const std::string directive = hash != std::string::npos && line[hash] == '#' ? line.substr(hash + 1) : "";
    std::string word, rest;
    {
      const size_t b = directive.find_first_not_of(" \t");
      const size_t e = b == std::string::npos ? b : directive.find_first_of(" \t(", b);
      word = b == std::string::npos ? "" : directive.substr(b, e == std::string::npos ? std::string::npos : e - b);
      rest = e == std::string::npos ? "" : directive.substr(e);
    }
    const bool visible = kept();
    auto condition = [&]() -> std::optional<long> {
      if (rest.find("__CUDA_ARCH__") == std::string::npos) return std::nullopt;
      if (word == "ifdef") return 1;
      if (word == "ifndef") return 0;
      return ArchCondition(rest, arch).value();
    };
    if (word == "if" || word == "ifdef" || word == "ifndef") {
      const std::optional<long> c = condition();
      open.push_back({c.has_value(), c && *c, c && *c});
      if (c || !visible) line.clear();
    } else if ((word == "elif" || word == "else") && !open.empty() && open.back().decided) {
      Open& o = open.back();
      const std::optional<long> c = word == "else" ? std::optional<long>(1) : ArchCondition(rest, arch).value();
      o.keeping = !o.taken && c && *c;
      o.taken = o.taken || o.keeping;
      line.clear();
    } else if (word == "endif" && !open.empty()) {
      if (open.back().decided || !visible) line.clear();
      open.pop_back();
    } else if (!visible) {
      line.clear();
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

namespace {

// The ')' that closes the '(' at `open` in s, npos if none.
size_t closing_paren(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t k = open; k < s.size(); ++k)
    if (s[k] == '(') ++depth;
    else if (s[k] == ')' && --depth == 0) return k;
  return std::string::npos;
}

// An argument array's element or a launched function as written for the runtime API, `(void*)&x`,
// `reinterpret_cast<void*>(&x)`, `(const void*)kernel<T>`, without its casts and parentheses; `address`: it must
// take an address (`&x`), which is dropped. Nullopt where it is something else (a pointer held elsewhere).
std::optional<std::string> cast_away(std::string e, bool address) {
  for (;;) {
    e = trimmed(e);
    if (e.empty()) return std::nullopt;
    if (e[0] == '(') {
      const size_t close = closing_paren(e, 0);
      if (close == std::string::npos) return std::nullopt;
      const std::string inner = e.substr(1, close - 1);
      if (close + 1 == e.size()) e = inner;                                                 // (E)
      else if (inner.find("void") != std::string::npos && inner.find('*') != std::string::npos) e = e.substr(close + 1);  // (void*)E
      else return std::nullopt;
      continue;
    }
    bool named_cast = false;
    for (const char* cast : {"reinterpret_cast", "static_cast", "const_cast"})
      if (e.rfind(cast, 0) == 0) {
        const size_t open = e.find('(', e.find('>'));
        const size_t close = open == std::string::npos ? open : closing_paren(e, open);
        if (close == std::string::npos || close + 1 != e.size()) return std::nullopt;
        e = e.substr(open + 1, close - open - 1);
        named_cast = true;
      }
    if (named_cast) continue;
    if (e[0] == '&') {
      const std::string addressed = trimmed(e.substr(1));
      return addressed.empty() ? std::nullopt : std::optional<std::string>(addressed);
    }
    return address ? std::nullopt : std::optional<std::string>(e);
  }
}

}  // namespace

std::string alignas_first(const std::string& text) {
  static const std::set<std::string> spaces = {"__shared__", "__constant__", "__device__", "__managed__"};
  static const std::set<std::string> tags = {"struct", "class", "union"};
  const std::vector<Token> tokens = tokenize(text);
  const size_t none = tokens.size();
  // The nearest token before or after k (step -1, 1) that is not a space, on the same line; none if there is none.
  auto beside = [&](size_t k, int step) {
    for (k += step; k < tokens.size(); k += step)
      if (tokens[k].kind != Kind::space) return k;
      else if (tokens[k].text.find('\n') != std::string::npos) break;
    return none;
  };
  // The ')' closing the parenthesis after the alignment keyword at k, on the same line; none if there is none.
  auto closing = [&](size_t k) {
    int depth = 0;
    for (size_t c = beside(k, 1); c < tokens.size(); c = beside(c, 1)) {
      depth += tokens[c].text == "(" ? 1 : tokens[c].text == ")" ? -1 : 0;
      if (depth == 0) return tokens[c].text == ")" ? c : none;
    }
    return none;
  };
  const auto joined = [&](size_t from, size_t to) {
    std::string s;
    for (size_t k = from; k <= to; ++k) s += tokens[k].text;
    return s;
  };
  // nvcc's `__align__(n)` is written `alignas  (n)` (same length) where Metal keeps it: on a variable of a memory
  // space (shared memory viewed as float4) and on a struct; elsewhere the translator drops it.
  const auto as_alignas = [](const std::string& name) { return name == "__align__" ? std::string("alignas  ") : name; };
  // The `static` right before token k (`static __shared__`), or k: the alignment goes before it too.
  auto declaration_start = [&](size_t k) {
    const size_t b = k ? beside(k, -1) : none;
    return b != none && tokens[b].text == "static" ? b : k;
  };
  // `extern __shared__` memory is sized at launch and written anew by the translator (its alignment with it).
  auto after_extern = [&](size_t k) {
    const size_t b = k ? beside(k, -1) : none;
    return b != none && tokens[b].text == "extern";
  };
  std::string out;
  // Writes `alignment` where the declaration starts (from token `first`, already written) and those tokens after it.
  auto put_first = [&](size_t first, size_t k, const std::string& alignment) {
    const std::string specifiers = first < k ? joined(first, k - 1) : "";
    out.erase(out.size() - specifiers.size());
    out += alignment + specifiers;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& name = tokens[i].text;
    const size_t after = beside(i, 1);
    if (spaces.count(name) && after != none &&
        (tokens[after].text == "alignas" || (tokens[after].text == "__align__" && !after_extern(i)))) {
      if (const size_t close = closing(after); close != none) {
        put_first(declaration_start(i), i, as_alignas(tokens[after].text) + joined(after + 1, close) + joined(i + 1, after - 1));
        out += name;
        i = close;
        continue;
      }
    }
    if (const size_t close = name == "__align__" ? closing(i) : none; close != none && !after_extern(i)) {
      const size_t before = i ? beside(i, -1) : none, next = beside(close, 1);
      if (before != none && tags.count(tokens[before].text)) {
        out += as_alignas(name);
        continue;
      }
      if (next != none && spaces.count(tokens[next].text)) {
        put_first(declaration_start(i), i, as_alignas(name) + joined(i + 1, close));
        i = close;
        continue;
      }
    }
    out += name;
  }
  return out;
}

std::string launches_as_chevrons(const std::string& text) {
  const std::vector<Token> tokens = tokenize(text);  // literals and comments are tokens of their own
  auto joined = [&](size_t from, size_t to) {
    std::string out;
    for (size_t k = from; k < to; ++k) out += tokens[k].text;
    return out;
  };
  auto next_code = [&](size_t k) {
    while (k < tokens.size() && blank(tokens[k])) ++k;
    return k;
  };
  auto named = [&](size_t k, const std::string& name) { return tokens[k].kind == Kind::identifier && tokens[k].text == name; };
  // The arguments (token ranges) of the call whose '(' is at `open`, at depth one of (), [], {}, and of <> in the
  // argument `angled` (a kernel's, whose template arguments hold commas); `close` set to its ')'. Empty if unclosed.
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  auto call_arguments = [&](size_t open, size_t angled, size_t& close) {
    Ranges arguments;
    size_t from = open + 1;
    close = tokens.size();
    int depth = 0, angles = 0;
    for (size_t k = open + 1; k < tokens.size() && close == tokens.size(); ++k) {
      const std::string& t = tokens[k].text;
      if (t == "(" || t == "[" || t == "{") ++depth;
      else if ((t == ")" || t == "]" || t == "}") && depth > 0) --depth;
      else if (t == ")") close = k;
      else if (depth == 0 && arguments.size() == angled && t == "<") ++angles;
      else if (depth == 0 && arguments.size() == angled && t == ">" && angles > 0) --angles;
      else if (depth == 0 && angles == 0 && t == ",") arguments.push_back({from, k}), from = k + 1;
    }
    if (close == tokens.size()) return Ranges{};
    arguments.push_back({from, close});
    return arguments;
  };
  // Token ranges [first, last] replaced by a text, in order.
  struct Edit {
    size_t first, last;
    std::string text;
  };
  std::vector<Edit> edits;
  // A launch's argument array `void* name[] = {&a, &b};` (or `std::vector<void*> name = {&a, &b};`, its `.data()`
  // given), named nowhere else in its scope than in the launch [call, close]: its values (the addresses taken away),
  // and the declaration is blanked (its addresses taken would read as the values changing). Nullopt where there is no
  // such declaration (the name's last use before the call must be it), an element is no address, or the scope names
  // the array again (`args[1] = &y;`, a second launch).
  auto argument_array = [&](const std::string& name, size_t call, size_t close) -> std::optional<std::vector<std::string>> {
    size_t declared = tokens.size();
    for (size_t k = 0; k < call; ++k)
      if (named(k, name)) declared = k;
    if (declared == tokens.size()) return std::nullopt;
    bool vector = false;  // `std::vector<void*>` written before the name, in its statement
    for (size_t k = declared; k > 0 && tokens[k - 1].text != ";" && tokens[k - 1].text != "{" && tokens[k - 1].text != "}"; --k)
      vector |= named(k - 1, "vector");
    size_t k = next_code(declared + 1);
    if (!vector) {
      if (k >= tokens.size() || tokens[k].text != "[") return std::nullopt;
      while (k < tokens.size() && tokens[k].text != "]") ++k;
      k = next_code(k + 1);
    }
    if (k < tokens.size() && tokens[k].text == "=") k = next_code(k + 1);
    else if (!vector) return std::nullopt;
    if (k >= tokens.size() || tokens[k].text != "{") return std::nullopt;
    std::vector<std::string> values;
    size_t from = k + 1;
    int depth = 0;
    for (++k; k < tokens.size(); ++k) {
      const std::string& t = tokens[k].text;
      if ((t == "}" || t == ",") && depth == 0) {
        if (const std::string element = joined(from, k); !trimmed(element).empty()) {
          const std::optional<std::string> value = cast_away(element, true);
          if (!value) return std::nullopt;
          values.push_back(*value);
        }
        from = k + 1;
        if (t == "}") break;
      } else if (t == "(" || t == "[" || t == "{") {
        ++depth;
      } else if (t == ")" || t == "]" || t == "}") {
        --depth;
      }
    }
    const size_t end = next_code(k + 1);
    if (end >= tokens.size() || tokens[end].text != ";") return std::nullopt;
    for (size_t q = end, depth_in_scope = 0; q < tokens.size(); ++q) {
      if (tokens[q].text == "{") ++depth_in_scope;
      if (tokens[q].text == "}" && depth_in_scope-- == 0) break;
      if (named(q, name) && (q < call || q > close)) return std::nullopt;
    }
    size_t first = declared;  // the statement's start: after the `;`, `{` or `}` before it
    while (first > 0 && tokens[first - 1].text != ";" && tokens[first - 1].text != "{" && tokens[first - 1].text != "}") --first;
    first = next_code(first);
    const std::string statement = joined(first, end + 1);
    edits.push_back({first, end, std::string(size_t(std::count(statement.begin(), statement.end(), '\n')), '\n')});
    return values;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const size_t open = next_code(i + 1);
    const bool config_launch = named(i, "cudaLaunchKernelEx");
    const bool array_launch = named(i, "cudaLaunchKernel") || named(i, "cudaLaunchCooperativeKernel");
    if (!(config_launch || array_launch) || open >= tokens.size() || tokens[open].text != "(") continue;
    size_t close = 0;
    const Ranges arguments = call_arguments(open, config_launch ? 1 : 0, close);
    auto argument = [&](size_t a) { return joined(arguments[a].first, arguments[a].second); };
    // `::cudaLaunchKernel`: the qualifier goes with the call
    const size_t first = i >= 2 && tokens[i - 1].text == ":" && tokens[i - 2].text == ":" ? i - 2 : i;
    if (config_launch && arguments.size() >= 2) {
      std::string config = trimmed(argument(0));
      config = !config.empty() && config[0] == '&' ? config.substr(1) : "(*" + config + ")";
      edits.push_back({first, close,
                       "(" + argument(1) + "<<<" + config + ".gridDim, " + config + ".blockDim, " + config +
                           ".dynamicSmemBytes, " + config + ".stream>>>(" +
                           (arguments.size() > 2 ? joined(arguments[2].first, arguments.back().second) : "") +
                           "), cudaSuccess)"});
    } else if (array_launch && arguments.size() >= 4 && arguments.size() <= 6) {
      // cudaLaunchKernel(kernel, grid, block, args, shared_bytes = 0, stream = 0), args a local array of addresses.
      std::string array = trimmed(argument(3));
      const std::string data = ".data()";  // a std::vector's elements
      if (array.size() > data.size() && array.compare(array.size() - data.size(), data.size(), data) == 0)
        array = trimmed(array.substr(0, array.size() - data.size()));
      const std::optional<std::string> kernel = cast_away(argument(0), false);
      if (!kernel || array.empty() || !std::all_of(array.begin(), array.end(), identifier_char)) continue;
      const std::optional<std::vector<std::string>> values = argument_array(array, i, close);
      if (!values) continue;
      std::string listed;
      for (const std::string& v : *values) listed += (listed.empty() ? "" : ", ") + v;
      std::string launch = "(" + *kernel + "<<<" + trimmed(argument(1)) + ", " + trimmed(argument(2)) + ", " +
                           (arguments.size() > 4 ? trimmed(argument(4)) : "0") + ", " +
                           (arguments.size() > 5 ? trimmed(argument(5)) : "0") + ">>>(" + listed + "), cudaSuccess)";
      const std::string call = joined(first, close + 1);  // its line breaks after it: the lines below keep their numbers
      launch += std::string(size_t(std::count(call.begin(), call.end(), '\n')), '\n');
      edits.push_back({first, close, launch});
    }
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.first < b.first; });
  std::string out;
  size_t next = 0;
  for (const Edit& e : edits) {
    out += joined(next, e.first) + e.text;
    next = e.last + 1;
  }
  return out + joined(next, tokens.size());
}

}  // namespace ksearch::translate
