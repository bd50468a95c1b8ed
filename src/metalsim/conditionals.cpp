// Metal's conditional operator applies the usual arithmetic conversions to its operands: `c ? h : 1.0f` with a half
// `h` is a float, `c ? h : 1` a half. half and bfloat are classes in the shim, which convert to float and are built
// from float implicitly, so the host compiler finds the conversion both ways and calls such a conditional ambiguous.
// Before the rewrite, `c ? x : y` becomes `c ? (::metal::__ms_arm_first<decltype((y))>{}, x) :
// (::metal::__ms_arm_second<decltype((x))>{}, y)`, whose comma operators give each operand the type Metal's
// conversions ask for (metal_shim.h); for other operands the built-in comma leaves them as they are. A third operand
// that holds a conditional itself is not copied (`__ms_arm_first<>`), so that a chain `c1 ? a : c2 ? b : d` grows by
// a copy of each `a` only. Operands whose extent the tokens do not tell (a '>' that may close template arguments) are
// left alone.
#include <functional>
#include <map>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

namespace {

// The copy of a second operand in decltype grows with the conditionals nested in it; past this many characters the
// conditional is left alone.
constexpr std::size_t kMaxOperandCopy = 4096;

}  // namespace

std::string convert_conditional_operands(const std::string& text) {
  const std::vector<Token> t = tokenize(text);
  constexpr std::size_t npos = std::string::npos;
  const std::vector<bool> directive = directive_tokens(t);
  auto next = [&](std::size_t i) { return next_token(t, i); };
  auto opens = [](const std::string& s) { return s == "(" || s == "[" || s == "{"; };
  auto closes = [](const std::string& s) { return s == ")" || s == "]" || s == "}"; };
  // The operands of the conditional whose '?' is at q: first and last token of each.
  struct Operands {
    std::size_t a_first, a_last, b_first, b_last;
  };
  std::map<std::size_t, Operands> conditionals;
  for (std::size_t q = 0; q < t.size(); q = next(q)) {
    if (t[q].text != "?" || directive[q]) continue;
    // The second operand runs to the ':' that matches this '?'; the third to a ',', ';', a closing bracket or the
    // ':' of an enclosing conditional. A '>' in the third operand that no '<' there opens may close template arguments
    // (`f<c ? 1 : 2>(x)`) or compare (`c ? a : b > d`): such a conditional is left alone.
    Operands o{next(q), npos, npos, npos};
    int depth = 0, nested = 0, angles = 0;
    bool in_third = false;
    std::size_t last = q;
    for (std::size_t k = next(q); k < t.size(); last = k, k = next(k)) {
      const std::string& s = t[k].text;
      if (directive[k]) break;
      if (opens(s)) ++depth;
      else if (closes(s) && --depth < 0) {
        if (in_third) o.b_last = last;
        break;
      } else if (depth == 0 && s == "?") ++nested;
      else if (depth == 0 && s == ":" && nested > 0) --nested;
      else if (depth == 0 && s == ":" && !in_third) {
        o.a_last = last;
        o.b_first = next(k);
        in_third = true;
      } else if (depth == 0 && (s == ":" || s == "," || s == ";")) {
        if (in_third) o.b_last = last;
        break;
      } else if (in_third && depth == 0 && s == "<") ++angles;
      else if (in_third && depth == 0 && s == ">") --angles;
      else if (in_third && depth == 0 && s == ">>") angles -= 2;
      if (angles < 0) break;
    }
    if (o.b_last == npos || o.a_last < o.a_first || o.b_last < o.b_first) continue;
    conditionals[q] = o;
  }
  // What goes before and after each operand's tokens; the third operand's tag holds a copy of the second, with the
  // conditionals nested in it converted too, built on demand, and the second's a copy of the third where it holds none.
  std::map<std::size_t, std::vector<std::size_t>> opened_before, closed_after;  // token -> conditionals' '?'
  for (const auto& [q, o] : conditionals) {
    opened_before[o.a_first].push_back(q);
    opened_before[o.b_first].push_back(q);
    closed_after[o.a_last].push_back(q);
    closed_after[o.b_last].push_back(q);
  }
  std::map<std::size_t, std::string> copies;  // '?' -> a flat copy of its second operand
  std::function<std::string(std::size_t, std::size_t, bool)> render;
  auto second_operand = [&](std::size_t q) -> const std::string& {
    if (auto found = copies.find(q); found != copies.end()) return found->second;
    const Operands& o = conditionals.at(q);
    return copies[q] = render(o.a_first, o.a_last, true);
  };
  // The third operand's type for the second's tag: `<decltype((y))>`, or `<>` where y holds a conditional.
  auto third_operand_type = [&](std::size_t q) {
    const Operands& o = conditionals.at(q);
    const auto nested = conditionals.lower_bound(o.b_first);
    if (nested != conditionals.end() && nested->first <= o.b_last) return std::string("<>");
    return "<decltype((" + render(o.b_first, o.b_last, true) + "))>";
  };
  // Tokens first..last with the conversions of the conditionals among them (an enclosing conditional's belong to its
  // own operands); `flat`: on one line, comments left out (a copy must not add lines).
  render = [&](std::size_t first, std::size_t last, bool flat) {
    std::string out;
    auto inside = [&](std::size_t q) { return q >= first && q <= last; };
    for (std::size_t k = first; k <= last && k < t.size(); ++k) {
      if (t[k].kind == Tok::Space) {
        out += flat ? " " : t[k].text;
        continue;
      }
      if (auto before = opened_before.find(k); before != opened_before.end())
        for (std::size_t q : before->second) {
          if (!inside(q) || second_operand(q).size() > kMaxOperandCopy) continue;
          out += k == conditionals.at(q).a_first
                     ? "(::metal::__ms_arm_first" + third_operand_type(q) + "{}, "
                     : "(::metal::__ms_arm_second<decltype((" + second_operand(q) + "))>{}, ";
        }
      out += t[k].text;
      if (auto after = closed_after.find(k); after != closed_after.end())
        for (auto q = after->second.rbegin(); q != after->second.rend(); ++q)
          if (inside(*q) && second_operand(*q).size() <= kMaxOperandCopy) out += ")";
    }
    return out;
  };
  return t.empty() ? text : render(0, t.size() - 1, false);
}

}  // namespace ksearch::metalsim
