// Metal's comparisons give bool and boolN; clang's comparisons of ext vectors give int vectors of -1 and 0, which a
// conversion keeps: `float4(v > 0.0f)` is (1, 0, ...) in Metal and (-1, 0, ...) on the host, `(v > 0).y` is true, not
// -1. Before the rewrite, each expression whose top-level operator is a comparison is wrapped in ::metal::__ms_bool,
// which turns an int vector into the bool vector (a scalar passes through). The expressions wrapped are those whose
// extent the tokens tell: a parenthesized one or a call's argument, an initializer (an element of a brace list too),
// an assigned or returned value. Templates' angle brackets are told from comparisons by what follows the closing '>'
// (`f<T>(x)`, `numeric_limits<float>::max()`, `vec<float, 4> v`); where it is unclear nothing is wrapped.
#include <set>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

namespace {

// For each token, the index of the `#define` whose replacement text holds it, or -1: the tokens after the macro's name
// and parameters to the end of its line, where no `#if` or `#elif` names the macro.
std::vector<int> macro_bodies(const std::vector<Token>& t, const std::vector<bool>& directive) {
  std::vector<int> body(t.size(), -1);
  auto next = [&](std::size_t i) { return next_token(t, i); };
  std::set<std::string> tested;  // identifiers that #if and #elif lines read
  for (std::size_t i = 0; i < t.size(); i = next(i))
    if (directive[i] && t[i].text == "#" && next(i) < t.size() && (t[next(i)].text == "if" || t[next(i)].text == "elif"))
      for (std::size_t q = next(next(i)); q < t.size() && directive[q]; q = next(q))
        if (t[q].kind == Tok::Ident) tested.insert(t[q].text);
  int defines = 0;
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    if (!directive[i] || t[i].text != "#" || next(i) >= t.size() || t[next(i)].text != "define") continue;
    const std::size_t name = next(next(i));
    if (name >= t.size() || !directive[name] || tested.count(t[name].text)) continue;
    std::size_t q = name + 1;  // a function-like macro's '(' follows its name with no space
    if (q < t.size() && t[q].text == "(") {
      const std::size_t close = closing_bracket(t, q);
      if (close == std::string::npos) continue;
      q = close + 1;
    }
    const int id = defines++;
    for (; q < t.size() && directive[q]; ++q) body[q] = id;
  }
  return body;
}

}  // namespace

std::string wrap_comparisons(const std::string& text) {
  const std::vector<Token> t = tokenize(text);
  constexpr std::size_t npos = std::string::npos;
  auto next = [&](std::size_t i) { return next_token(t, i); };
  auto prev = [&](std::size_t i) { return previous_token(t, i); };
  // Preprocessor lines stay as they are (`#if N > 2` needs a plain expression), but for the bodies of `#define`s, which
  // are code wherever they are expanded (`#define POSITIVE(v) float4((v) > 0.0f)`) unless an `#if` reads the macro.
  const std::vector<bool> directive = directive_tokens(t);
  const std::vector<int> macro_body = macro_bodies(t, directive);
  // The '>' closing a template's '<' at `open`, if what follows it shows a template (npos otherwise).
  auto template_close = [&](std::size_t open) {
    const long p = prev(open);
    if (p < 0 || t[p].kind != Tok::Ident || t[p].text == "operator") return npos;
    int depth = 0, brackets = 0;  // angle brackets; parentheses and square brackets inside them
    for (std::size_t q = open; q < t.size(); q = next(q)) {
      const std::string& s = t[q].text;
      if (s == "(" || s == "[") ++brackets;
      else if ((s == ")" || s == "]") && --brackets < 0) return npos;
      else if (s == ";" || s == "{" || s == "}") return npos;
      if (brackets > 0) continue;
      if (s == "<") ++depth;
      else if (s == ">") --depth;
      else if (s == ">>") depth -= 2;
      if (depth <= 0) {
        if (depth < 0) return npos;
        const std::size_t after = next(q);
        if (after >= t.size()) return npos;
        // After a comparison's '>' comes an operand; an operator that only joins two operands (`is_same_v<T, float>
        // || ...`) or ends an expression means the '>' closed a template.
        static const std::set<std::string> follows = {"(", "::", "{", "*", "&", ">", ")", ",", ";", "...", "||", "&&",
                                                      "?", ":", "]", "}", "==", "!=", "|", "^", "/", "%", ".", "->"};
        return t[after].kind == Tok::Ident || follows.count(t[after].text) ? q : npos;
      }
    }
    return npos;
  };
  // Template parameter lists: their `= default` values are no assignments.
  std::vector<bool> in_template_parameters(t.size(), false);
  for (std::size_t i = 0; i < t.size(); i = next(i))
    if (t[i].text == "template" && next(i) < t.size() && t[next(i)].text == "<") {
      const std::size_t close = template_close(next(i));
      for (std::size_t q = next(i); close != npos && q <= close; ++q) in_template_parameters[q] = true;
    }

  std::vector<int> opens(t.size() + 1, 0), closes(t.size() + 1, 0);
  // The expression starting at `from`, up to a ',' or ';' or an unmatched closing bracket: the token ending it,
  // and wraps it when its top-level operator is a comparison.
  auto slot = [&](std::size_t from) {
    bool comparison = false, other = false;
    int depth = 0;
    std::size_t q = from, last = npos;
    for (; q < t.size(); q = next(q)) {
      const std::string& s = t[q].text;
      if (macro_body[from] >= 0 && macro_body[q] != macro_body[from]) break;  // the macro's line ended
      if (depth == 0 && s == "{") other = true;  // a lambda's or a brace list's
      if (s == "(" || s == "[" || s == "{") ++depth;
      else if (s == ")" || s == "]" || s == "}") {
        if (--depth < 0) break;
      } else if (depth == 0) {
        if (s == "," || s == ";") break;
        if (s == "<") {
          if (const std::size_t close = template_close(q); close != npos) {
            last = q = close;
            continue;
          }
          comparison = true;
        } else if (s == ">" || s == "<=" || s == ">=" || s == "==" || s == "!=") {
          const long p = prev(q);
          if (p >= 0 && t[p].text == "operator") other = true;
          comparison = true;
        } else if (s == "?" || s == "=" || s == "#") {
          other = true;
        }
      }
      last = q;
    }
    if (comparison && !other && last != npos && (!directive[from] || macro_body[from] >= 0)) {
      ++opens[from];
      ++closes[last];
    }
    return q;
  };
  // The braces of initializer lists (`bool4 m[2] = {v > 0, v < 0};`, nested ones too): each element is a slot.
  std::vector<bool> initializer_list(t.size(), false);
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    if (directive[i] && macro_body[i] < 0) continue;
    const std::string& s = t[i].text;
    if (s == "{" && initializer_list[i]) {
      for (std::size_t from = next(i); from < t.size();) {
        if (t[from].text == "{") initializer_list[from] = true;
        const std::size_t end = slot(from);
        if (end >= t.size() || t[end].text != ",") break;
        from = next(end);
      }
    } else if (s == "(") {
      // A static_assert's condition is a scalar constant; unwrapped, its failure message quotes the kernel's text.
      if (prev(i) >= 0 && t[prev(i)].text == "static_assert") continue;
      for (std::size_t from = next(i); from < t.size();) {
        const std::size_t end = slot(from);
        if (end >= t.size() || (t[end].text != "," && t[end].text != ";")) break;
        from = next(end);
      }
    } else if ((s == "=" && !in_template_parameters[i] && !(prev(i) >= 0 && t[prev(i)].text == "operator")) ||
               s == "return") {
      if (s == "=" && next(i) < t.size() && t[next(i)].text == "{") initializer_list[next(i)] = true;
      slot(next(i));
    }
  }
  std::string out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    for (int n = 0; n < opens[i]; ++n) out += "::metal::__ms_bool(";
    out += t[i].text;
    out.append(closes[i], ')');
  }
  return out;
}

}  // namespace ksearch::metalsim
