// Functions overloaded by address space only (`float load(device const float* p)` beside `float load(threadgroup
// const float* p)`) are distinct overloads in Metal; the host build drops address spaces, which would leave one
// function defined twice. Each such overload gets a leading parameter of a tag type naming its parameters' spaces
// (::metal::__ms_spaces<1, 0>: a device pointer, then a value), and each call of the name goes through
// ::metal::__ms_space_call, which passes the tag of the overload whose spaces the arguments' memory has (the runtime
// tells where a pointer points: Metal's pointers always point into their own space). Read from the Metal text,
// before the rewrite drops the spaces; functions at namespace scope only (a struct's methods are left alone).
#include <algorithm>
#include <map>
#include <set>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"
#include "metalsim_abi.h"

namespace ksearch::metalsim {

namespace {

// The code of a pointer or reference parameter's space in a tag (a parameter that is neither has 0).
int space_code(std::optional<AddressSpace> written) {
  switch (written.value_or(AddressSpace::thread)) {  // thread, written or not
    case AddressSpace::device: return METALSIM_SPACE_DEVICE;
    case AddressSpace::constant: return METALSIM_SPACE_CONSTANT;
    case AddressSpace::threadgroup: return METALSIM_SPACE_THREADGROUP;
    case AddressSpace::thread: return METALSIM_SPACE_THREAD;
  }
  return METALSIM_SPACE_THREAD;
}

}  // namespace

SpaceOverloads find_space_overloads(const std::vector<Token>& t) {
  constexpr std::size_t npos = std::string::npos;
  auto next = [&](std::size_t i) { return next_token(t, i); };
  auto prev = [&](std::size_t i) { return previous_token(t, i); };
  const std::vector<bool> directive = directive_tokens(t);
  auto closing = [&](std::size_t open) { return closing_bracket(t, open); };
  struct Declaration {
    std::size_t name, open;
    std::string key;          // template parameters and parameter types, spaces, `const` and names left out
    std::vector<int> spaces;  // each parameter's space code
  };
  std::vector<Declaration> declarations;
  // Braces opened by `namespace` keep namespace scope; any other (a struct, a function, an initializer) leaves it.
  std::vector<bool> namespace_braces;
  bool namespace_pending = false;
  std::size_t statement_start = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (t[i].kind == Tok::Space || directive[i]) continue;
    const bool at_namespace_scope =
        std::find(namespace_braces.begin(), namespace_braces.end(), false) == namespace_braces.end();
    if (s == "namespace") namespace_pending = true;
    if (s == "{") {
      namespace_braces.push_back(namespace_pending);
      namespace_pending = false;
    } else if (s == "}") {
      if (!namespace_braces.empty()) namespace_braces.pop_back();
    }
    if (s == "{" || s == "}" || s == ";") {
      statement_start = next(i);
      continue;
    }
    if (!at_namespace_scope || t[i].kind != Tok::Ident) continue;
    // `type name(parameters) {` or `;`: a type's last token before the name.
    const long p = prev(i);
    const std::size_t open = next(i);
    if (p < 0 || open >= t.size() || t[open].text != "(") continue;
    static const std::set<std::string> not_types = {"operator", "return", "else", "do", "case", "sizeof", "alignof"};
    const bool after_type = (t[p].kind == Tok::Ident && !not_types.count(t[p].text)) || t[p].text == "*" ||
                            t[p].text == "&" || t[p].text == "&&" || t[p].text == ">";
    const std::size_t close = closing(open);
    if (!after_type || close == npos || next(close) >= t.size()) continue;
    const std::string& after = t[next(close)].text;
    if (after != "{" && after != ";") continue;
    Declaration d{i, open, "", {}};
    // Template parameters: `template <...>` among the tokens before the name.
    for (std::size_t q = statement_start; q < i; q = next(q))
      if (t[q].text == "template" && next(q) < i && t[next(q)].text == "<") {
        const std::size_t end = closing(next(q));
        for (std::size_t k = next(q); end != npos && k <= end; k = next(k)) d.key += t[k].text + " ";
        break;
      }
    d.key += "(";
    // Each parameter: up to a ',' outside brackets (angle brackets too), its default value left out.
    std::size_t k = next(open);
    while (k < close) {
      std::vector<std::size_t> param;
      int depth = 0;
      bool in_default = false;
      for (; k < close; k = next(k)) {
        const std::string& w = t[k].text;
        if (depth == 0 && w == ",") break;
        if (w == "(" || w == "[" || w == "{" || w == "<") ++depth;
        else if (w == ")" || w == "]" || w == "}" || w == ">") --depth;
        else if (w == ">>") depth -= 2;
        if (depth == 0 && w == "=") in_default = true;
        if (!in_default) param.push_back(k);
      }
      if (k < close) k = next(k);
      // Its name: the last word before any array bounds, after a type.
      std::size_t name_at = param.size();
      std::size_t bounds = 0;
      while (bounds < param.size() && t[param[bounds]].text != "[") ++bounds;
      if (bounds >= 2 && t[param[bounds - 1]].kind == Tok::Ident) {
        const std::string& before = t[param[bounds - 2]].text;
        if (t[param[bounds - 2]].kind == Tok::Ident || before == "*" || before == "&" || before == "&&" || before == ">")
          name_at = bounds - 1;
      }
      std::optional<AddressSpace> written;
      bool indirect = false;
      for (std::size_t n = 0; n < param.size(); ++n) {
        const std::string& w = t[param[n]].text;
        if (const auto space = space_keyword(w)) {
          if (!written) written = space;
          continue;
        }
        indirect |= w == "*" || w == "&" || w == "&&";
        if (n != name_at && w != "const") d.key += w + " ";  // `constant float*` is `const float*` on the host
      }
      d.key += ",";
      d.spaces.push_back(indirect ? space_code(written) : 0);
    }
    declarations.push_back(std::move(d));
  }
  // Overloads of one name and key whose spaces differ.
  std::map<std::pair<std::string, std::string>, std::vector<const Declaration*>> groups;
  for (const Declaration& d : declarations) groups[{t[d.name].text, d.key}].push_back(&d);
  SpaceOverloads found;
  for (const Declaration& d : declarations) found.declarations.insert(d.name);
  for (const auto& [name_key, group] : groups) {
    const bool differ = std::any_of(group.begin(), group.end(), [&](const Declaration* d) {
      return d->spaces != group.front()->spaces;
    });
    if (!differ) continue;
    auto& tags = found.tags[name_key.first];
    for (const Declaration* d : group) {
      std::string tag = "::metal::__ms_spaces<";
      for (std::size_t n = 0; n < d->spaces.size(); ++n) tag += (n ? ", " : "") + std::to_string(d->spaces[n]);
      tag += ">";
      found.tag_at[d->open] = tag;
      if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
    }
  }
  return found;
}

}  // namespace ksearch::metalsim
