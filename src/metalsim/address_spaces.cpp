// Conversions between address spaces, read from the Metal text before the host build drops the spaces. Metal
// converts no pointer or reference between device, constant, threadgroup and thread memory, so `float* row = inp +
// r * n` (a thread pointer from a device one), `float& acc = out[i]`, `(float4*)inp` or a header function's thread
// pointer parameter given a buffer fail to compile on a Mac; the host compiler, which sees no spaces, would build
// them. This is a reading of tokens, not a type checker: it reports only what it can tell for certain (the spaces
// of buffers, threadgroup and local variables, pointers declared with or derived from them) and leaves alone a name
// declared with different spaces, a template parameter's type, calls and anything else it cannot follow.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

std::optional<AddressSpace> space_keyword(const std::string& s) {
  if (s == "device") return AddressSpace::device;
  if (s == "constant") return AddressSpace::constant;
  if (s == "threadgroup") return AddressSpace::threadgroup;
  if (s == "thread") return AddressSpace::thread;
  return std::nullopt;
}

namespace {

const char* space_name(AddressSpace s) {
  switch (s) {
    case AddressSpace::thread: return "thread";
    case AddressSpace::device: return "device";
    case AddressSpace::constant: return "constant";
    case AddressSpace::threadgroup: return "threadgroup";
  }
  return "";
}

// What a name stands for: a pointer (`space`: the memory it points to), an array (which decays to a pointer into
// its space), an array of pointers (`space`: the memory its elements point to; only its elements are followed) or
// an object or reference (the memory it lives in).
struct Symbol {
  enum class What { pointer, array, pointers, object } what;
  AddressSpace space;
  std::string type = {};  // an object's struct type (its members' spaces: `p.x = ...`)
  int dims = 0;           // an array of pointers' dimensions (`ptrs[i] = x` assigns one pointer)
  bool operator==(const Symbol&) const = default;
};

// Names of one scope level; a name declared twice with different meanings is unknown from then on.
struct Symbols {
  std::map<std::string, std::optional<Symbol>> names;
  void declare(const std::string& name, std::optional<Symbol> s) {
    auto [it, inserted] = names.emplace(name, s);
    if (!inserted && it->second != s) it->second.reset();
  }
};

const std::set<std::string>& not_type_names() {
  static const std::set<std::string> k = {
      "return",   "if",        "else",     "for",      "while",         "do",       "switch",   "case",
      "default",  "break",     "continue", "goto",     "sizeof",        "alignof",  "using",    "namespace",
      "typedef",  "template",  "struct",   "class",    "union",         "enum",     "public",   "private",
      "protected", "operator", "true",     "false",    "nullptr",       "this",     "new",      "delete",
      "static_assert", "friend", "const",  "volatile", "static",        "constexpr", "inline",  "device",
      "constant", "threadgroup", "thread", "typename", "METAL_FUNC",    "kernel",   "extern",   "explicit"};
  return k;
}

// A declared type: where the tokens end (one past), the address space written in it, whether it is deduced (`auto`,
// `decltype`) or names a template parameter (its space unknown: Metal deduces one into it).
struct TypeText {
  std::size_t start = 0, end = 0;
  std::string name;  // the type's name, where it is one identifier (`Params` in `const Params`)
  std::optional<AddressSpace> space;
  bool deduced = false;
  bool dependent = false;
};

// A parameter of a header function or a struct's member: pointer or reference, and its space (nullopt: neither, or
// not known); a member may be an array (of pointers where `pointer`: `p.in[0] = x` assigns one).
struct Param {
  bool pointer = false;
  std::optional<AddressSpace> space;
  std::string name;
  int dims = 0;
};
// A header function: its parameters and what it returns (a pointer or reference in a known space, or neither).
struct Signature {
  std::vector<Param> params;
  Param result;
};
// What the header declares for the body (and itself): program-scope names; functions by name (nullopt for
// methods and overloads, whose calls are not checked; a template's parameters of dependent type have no space); plain
// structs' members in order (nullopt where neither brace lists nor member assignments are followed: bases,
// constructors, templates, struct members, one name defined twice).
struct Declared {
  Symbols program;
  std::map<std::string, std::optional<Signature>> functions;
  std::map<std::string, std::optional<std::vector<Param>>> structs;
  // Each struct's methods defined in its body, with the spaces of the objects each may be called on: the one written
  // after its parameter list (`float sum() const threadgroup`), thread where none is; one set per name (overloads).
  std::map<std::string, std::map<std::string, std::set<AddressSpace>>> methods;
};

class Checker {
 public:
  Checker(std::vector<Token> all, std::string file, std::vector<CompileMessage>& errors)
      : file_(std::move(file)), errors_(errors) {
    // Preprocessor lines are left out (a macro's text is not code until it is used).
    const std::vector<bool> directive = directive_tokens(all);
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].kind == Tok::Space || directive[i]) continue;
      spaced_.push_back(i > 0 && all[i - 1].kind == Tok::Space);
      t_.push_back(std::move(all[i]));
    }
    // Matching brackets, once (a kernel's text is untrusted: no quadratic scans, no deep recursion).
    match_.assign(t_.size(), npos);
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const std::string& s = t_[i].text;
      if (s == "(" || s == "[" || s == "{") {
        open.push_back(i);
      } else if (s == ")" || s == "]" || s == "}") {
        const char want = s == ")" ? '(' : s == "]" ? '[' : '{';
        if (open.empty() || t_[open.back()].text[0] != want) {
          open.clear();  // unbalanced: nothing before here is matched
          continue;
        }
        match_[open.back()] = i;
        open.pop_back();
      }
    }
  }

  // The header: program-scope names and functions (their parameters' spaces, for the calls), then each function
  // body checked with its own names.
  void check_header(Declared& declared) {
    declared_ = &declared;
    walk(0, t_.size(), /*in_function=*/false);
  }

  // The kernel body: a function whose parameters are the buffers and attributes.
  void check_body(Declared& declared, const std::vector<KernelParameter>& parameters) {
    declared_ = &declared;
    locals_ = Symbols{};
    for (const auto& p : parameters)
      locals_.declare(p.name, Symbol{p.pointer ? Symbol::What::pointer : Symbol::What::object, p.space});
    walk(0, t_.size(), /*in_function=*/true);
  }

 private:
  static constexpr std::size_t npos = std::string::npos;

  bool is(std::size_t i, const char* s) const { return i < t_.size() && t_[i].text == s; }
  bool ident(std::size_t i) const { return i < t_.size() && t_[i].kind == Tok::Ident; }
  // `*` or what may follow one in a declarator (`float* const __restrict p`).
  bool star_or_qualifier(std::size_t i) const {
    return is(i, "*") || is(i, "const") || is(i, "volatile") || is(i, "restrict") || is(i, "__restrict") ||
           is(i, "__restrict__");
  }

  // The stars from q to `close` where only stars and qualifiers lie between (`* const*` in `(T* const*)`).
  std::optional<int> stars_to(std::size_t q, std::size_t close) const {
    int stars = 0;
    for (; q < close && star_or_qualifier(q); ++q) stars += is(q, "*");
    return q == close ? std::optional(stars) : std::nullopt;
  }

  // The next ',' or ';' outside brackets in [from, to), `to` where there is none, npos past an unmatched bracket.
  std::size_t item_end(std::size_t from, std::size_t to) const {
    for (std::size_t q = from; q < to; ++q) {
      if (is(q, ",") || is(q, ";")) return q;
      if ((is(q, "(") || is(q, "[") || is(q, "{")) && (q = closing(q)) == npos) return npos;
    }
    return to;
  }

  // The bracket closing the one at `open`, or npos. A template's `<` is closed by the first `>` at its depth before
  // a `;`, brace or unmatched `)`.
  std::size_t closing(std::size_t open) const {
    if (open >= t_.size()) return npos;
    if (t_[open].text != "<") return match_[open];
    int depth = 0;
    for (std::size_t q = open; q < t_.size(); ++q) {
      const std::string& s = t_[q].text;
      if (s == "<") ++depth;
      else if (s == ">" && --depth == 0) return q;
      else if (s == ">>" && (depth -= 2) <= 0) return depth == 0 ? q : npos;
      else if (s == ";" || s == "{" || s == "}" || s == ")" || s == "]") return npos;
      else if ((s == "(" || s == "[") && (q = match_[q]) == npos) return npos;
    }
    return npos;
  }

  // Tokens [from, to) as written, with one space where there was any; `without_spaces` leaves out address spaces.
  std::string text(std::size_t from, std::size_t to, bool without_spaces = false) const {
    std::string s;
    for (std::size_t q = from; q < to && q < t_.size(); ++q) {
      if (without_spaces && space_keyword(t_[q].text)) continue;
      if (!s.empty() && (spaced_[q] || (t_[q].kind == Tok::Ident && t_[q - 1].kind == Tok::Ident))) s += ' ';
      s += t_[q].text;
    }
    return s;
  }

  void error(std::size_t at, std::string message) {
    errors_.push_back({file_, t_[at].line, 0, "error", std::move(message)});
  }

  // A type starting at i: qualifiers and spaces, one type name (`metal::float4`, `vec<float, 4>`, `unsigned int`),
  // qualifiers again. nullopt where the tokens are not a type.
  std::optional<TypeText> type_at(std::size_t i) const {
    static const std::set<std::string> qualifiers = {"const", "volatile", "static", "constexpr", "inline",
                                                     "METAL_FUNC", "typename", "thread", "device", "constant",
                                                     "threadgroup"};
    static const std::set<std::string> builtin_words = {"unsigned", "signed", "int", "long", "short", "char"};
    TypeText type;
    const std::size_t start = i;
    auto qualifiers_at = [&] {
      for (; i < t_.size() && qualifiers.count(t_[i].text); ++i)
        if (auto s = space_keyword(t_[i].text)) type.space = s;
    };
    qualifiers_at();
    if (!ident(i)) return std::nullopt;
    if (t_[i].text == "auto") {
      type.deduced = true;
      ++i;
    } else if (t_[i].text == "decltype" && is(i + 1, "(")) {
      type.deduced = true;
      const std::size_t c = closing(i + 1);
      if (c == npos) return std::nullopt;
      i = c + 1;
    } else if (builtin_words.count(t_[i].text)) {
      while (i < t_.size() && builtin_words.count(t_[i].text)) ++i;
    } else {
      if (not_type_names().count(t_[i].text)) return std::nullopt;
      if (template_names_.count(t_[i].text)) type.dependent = true;
      type.name = t_[i].text;
      ++i;
      while (is(i, "::") && ident(i + 1)) i += 2;
      if (is(i, "<")) {
        const std::size_t c = closing(i);
        if (c == npos) return std::nullopt;
        for (std::size_t q = i; q < c; ++q)
          if (template_names_.count(t_[q].text)) type.dependent = true;
        i = c + 1;
      }
    }
    qualifiers_at();
    type.start = start;
    type.end = i;
    return type;
  }

  // The last token of the unary expression starting at a (unary operators, casts, a primary, its postfix member
  // accesses, subscripts and calls), or npos.
  std::size_t term_end(std::size_t a) const {
    for (;;) {  // unary operators and casts before the operand
      if (a >= t_.size()) return npos;
      const std::string& s = t_[a].text;
      if (t_[a].kind == Tok::Punct && (s == "-" || s == "+" || s == "!" || s == "~" || s == "*" || s == "&")) ++a;
      else if (s == "(" && closing(a) != npos && cast_type(a)) a = closing(a) + 1;
      else break;
    }
    std::size_t end = a;
    if (t_[a].text == "(") {
      end = closing(a);
      if (end == npos) return npos;
    } else if (t_[a].kind == Tok::Ident) {
      while (is(end + 1, "::") && ident(end + 2)) end += 2;
      if (is(end + 1, "<")) {
        const std::size_t args = closing(end + 1);
        if (args != npos && is(args + 1, "(")) end = args;
      }
    } else if (t_[a].kind != Tok::Number && t_[a].kind != Tok::String) {
      return npos;
    }
    while (end + 1 < t_.size()) {
      const std::size_t n = end + 1;
      if ((is(n, ".") || is(n, "->")) && ident(n + 1)) end = n + 1;
      else if (is(n, "[") || is(n, "(")) end = closing(n);
      else break;
      if (end == npos) return npos;
    }
    return end;
  }

  // `(T*)` at the '(' at a: the pointer type (stars counted), when the parentheses hold a type and no operand
  // precedes them (a call's or a grouping's parentheses otherwise).
  struct CastType {
    TypeText type;
    int stars = 0;
  };
  std::optional<CastType> cast_type(std::size_t a) const {
    if (a > 0) {
      const Token& p = t_[a - 1];
      if ((p.kind == Tok::Ident && (!not_type_names().count(p.text) || p.text == "sizeof" || p.text == "alignof")) ||
          p.kind == Tok::Number || p.text == ")" || p.text == "]")
        return std::nullopt;
    }
    const std::size_t c = closing(a);
    auto type = type_at(a + 1);
    if (c == npos || !type) return std::nullopt;
    const auto stars = stars_to(type->end, c);
    if (!stars) return std::nullopt;
    const CastType cast{*type, *stars};
    // `(x)` is a name in parentheses, not a cast to a type `x`, unless an operand follows it.
    const bool operand_follows = c + 1 < t_.size() && (ident(c + 1) || is(c + 1, "(") || t_[c + 1].kind == Tok::Number);
    if (cast.stars == 0 && (!operand_follows || (c == a + 2 && lookup(t_[a + 1].text)))) return std::nullopt;
    return cast;
  }

  // The space a declaration of this type names: the one written, else thread for a function's own variables; nullopt
  // where it is deduced, or a template parameter may carry one, or at program scope.
  static std::optional<AddressSpace> declared_space(const TypeText& type, bool local) {
    if (type.deduced) return std::nullopt;
    if (type.space) return type.space;
    if (type.dependent || !local) return std::nullopt;
    return AddressSpace::thread;
  }

  std::optional<Symbol> lookup(const std::string& name) const {
    if (auto l = locals_.names.find(name); l != locals_.names.end()) return l->second;
    if (auto g = declared_->program.names.find(name); g != declared_->program.names.end()) return g->second;
    return std::nullopt;
  }

  // Drop parentheses around the whole of [a, b).
  void unwrap(std::size_t& a, std::size_t& b) const {
    while (b > a + 1 && is(a, "(") && closing(a) == b - 1 && !cast_type(a)) {
      ++a;
      --b;
    }
  }

  // What the call of a header function from a to e (its ')') returns.
  const Param* call_result(std::size_t a, std::size_t e) const {
    if (!ident(a) || !is(a + 1, "(") || closing(a + 1) != e || (a > 0 && (is(a - 1, ".") || is(a - 1, "->"))))
      return nullptr;
    const auto f = declared_->functions.find(t_[a].text);
    return f == declared_->functions.end() || !f->second || !f->second->result.space ? nullptr : &f->second->result;
  }

  // Where a conditional's operand starting at `from` ends: at the first ':' that no '?' inside it takes (the middle
  // operand's end), ',' or ';' or unmatched closing bracket, or at b; npos past an unmatched bracket.
  std::size_t conditional_operand_end(std::size_t from, std::size_t b) const {
    int nested = 0;  // conditionals inside the operand
    for (std::size_t q = from; q < b; ++q) {
      if (is(q, "(") || is(q, "[") || is(q, "{")) {
        if ((q = closing(q)) == npos) return npos;
      } else if (is(q, "?")) {
        ++nested;
      } else if ((is(q, ":") && nested-- == 0) || is(q, ",") || is(q, ";") || is(q, ")") || is(q, "]") ||
                 is(q, "}")) {
        return q;
      }
    }
    return b;
  }

  // The ':' of the conditional whose '?' is at `question`, before b; npos where there is none.
  std::size_t conditional_colon(std::size_t question, std::size_t b) const {
    const std::size_t colon = conditional_operand_end(question + 1, b);
    return colon < b && is(colon, ":") ? colon : npos;
  }

  // The first '?' of [a, b) outside brackets, or npos.
  std::size_t top_level_question(std::size_t a, std::size_t b) const {
    for (std::size_t q = a; q < b; ++q) {
      if (is(q, "?")) return q;
      if ((is(q, "(") || is(q, "[") || is(q, "{")) && (q = closing(q)) == npos) return npos;
    }
    return npos;
  }

  // The memory a pointer-valued expression [a, b) points to: a pointer or array name, `&` of an lvalue, a cast to a
  // pointer type, each with integer offsets added or subtracted, or a conditional whose operands point to one space.
  std::optional<AddressSpace> pointer_space(std::size_t a, std::size_t b) const {
    const Nesting nesting(depth_);
    if (depth_ > kMaxNesting) return std::nullopt;
    unwrap(a, b);
    if (const std::size_t question = top_level_question(a, b); question != npos) {
      const std::size_t colon = conditional_colon(question, b);
      const auto chosen = colon == npos ? std::nullopt : pointer_space(question + 1, colon);
      return chosen && chosen == pointer_space(colon + 1, b) ? chosen : std::nullopt;
    }
    const std::size_t e = term_end(a);
    if (e == npos || e >= b) return std::nullopt;
    if (e + 1 < b) {  // the rest: `+ offset` or `- offset`, nothing that would make a value of another type
      if (!is(e + 1, "+") && !is(e + 1, "-")) return std::nullopt;
      static const std::set<std::string> other = {"?", ":", "=", "==", "!=", "<", ">", "<=", ">=", "&&", "||", ","};
      for (std::size_t q = e + 1; q < b; ++q) {
        if (is(q, "(") || is(q, "[")) {
          q = closing(q);
          if (q == npos || q >= b) return std::nullopt;
        } else if (other.count(t_[q].text)) {
          return std::nullopt;
        }
      }
    }
    if (is(a, "&")) return lvalue_space(a + 1, e + 1);
    if (is(a, "(")) {
      if (auto cast = cast_type(a)) {
        return cast->stars == 1 ? declared_space(cast->type, true) : std::nullopt;
      }
      return closing(a) == e ? pointer_space(a + 1, e) : std::nullopt;
    }
    if (auto cast = named_cast(a); cast && cast->close == e) return cast->space;
    if (const Param* result = call_result(a, e); result && result->pointer) return result->space;
    if (ident(a) && e == a) {
      const auto s = lookup(t_[a].text);
      if (s && (s->what == Symbol::What::pointer || s->what == Symbol::What::array)) return s->space;
    }
    return std::nullopt;
  }

  // The memory an lvalue [a, b) lives in: `*p`, `p[i]`, `p->m`, an array's element, an object or a member of one.
  std::optional<AddressSpace> lvalue_space(std::size_t a, std::size_t b) const {
    const Nesting nesting(depth_);
    if (depth_ > kMaxNesting) return std::nullopt;
    unwrap(a, b);
    if (a >= b || term_end(a) != b - 1) return std::nullopt;
    if (is(a, "*")) return pointer_space(a + 1, b);
    if (is(a, "(")) return closing(a) == b - 1 && !cast_type(a) ? lvalue_space(a + 1, b - 1) : std::nullopt;
    if (const Param* result = call_result(a, b - 1); result && !result->pointer) return result->space;
    if (!ident(a) || is(a + 1, "::")) return std::nullopt;
    const auto s = lookup(t_[a].text);
    if (!s || s->what == Symbol::What::pointers) return std::nullopt;
    std::size_t q = a + 1;
    if (q == b) return s->what == Symbol::What::pointer ? std::nullopt : std::optional(s->space);
    // The first step: through the pointer, into the array, or to a member of the object.
    if (is(q, "[")) {
      if (s->what == Symbol::What::object) return std::nullopt;
    } else if (is(q, "->")) {
      if (s->what != Symbol::What::pointer) return std::nullopt;
    } else if (is(q, ".")) {
      if (s->what != Symbol::What::object) return std::nullopt;
    } else {
      return std::nullopt;
    }
    // Further subscripts (arrays in arrays) and members stay in that memory.
    for (bool first = true; q < b; first = false) {
      if (is(q, "[") && closing(q) != npos) q = closing(q) + 1;
      else if (is(q, ".") || (first && is(q, "->"))) q += 2;
      else return std::nullopt;
    }
    return s->space;
  }

  // `reinterpret_cast<T*>(x)` (and static_cast, const_cast) at a: T's space, the ')' and the operand.
  struct NamedCast {
    std::optional<AddressSpace> space;  // nullopt: not a pointer, or a type whose space is not known
    std::size_t open = 0, close = 0;
    std::string type;
  };
  std::optional<NamedCast> named_cast(std::size_t a) const {
    if (!ident(a) || !is(a + 1, "<")) return std::nullopt;
    const std::string& n = t_[a].text;
    if (n != "reinterpret_cast" && n != "static_cast" && n != "const_cast") return std::nullopt;
    const std::size_t gt = closing(a + 1);
    auto type = type_at(a + 2);
    if (gt == npos || !type || !is(gt + 1, "(")) return std::nullopt;
    NamedCast cast{std::nullopt, gt + 1, closing(gt + 1), text(a + 2, gt)};
    if (cast.close == npos) return std::nullopt;
    if (stars_to(type->end, gt) == 1) cast.space = declared_space(*type, true);
    return cast;
  }

  // Statements of [from, to): declarations, function definitions (at program scope) and nested blocks.
  void walk(std::size_t from, std::size_t to, bool in_function) {
    const Nesting nesting(blocks_);
    if (blocks_ > kMaxBlocks) return;
    std::size_t i = from;
    while (i < to) {
      if (is(i, ";") || is(i, "}")) {
        ++i;
        continue;
      }
      if (is(i, "{")) {
        const std::size_t c = closing(i);
        if (c == npos) return;
        walk(i + 1, c, in_function);
        i = c + 1;
        continue;
      }
      i = in_function ? statement(i, to) : program_statement(i, to);
    }
  }

  // One statement at program (or namespace or struct) scope, from i: where the next one starts.
  std::size_t program_statement(std::size_t i, std::size_t to) {
    if ((is(i, "public") || is(i, "private") || is(i, "protected")) && is(i + 1, ":")) return i + 2;
    const std::set<std::string> outer = template_names_;
    if (is(i, "template") && is(i + 1, "<")) {
      const std::size_t gt = closing(i + 1);
      if (gt == npos) return to;
      for (std::size_t q = i + 2; q < gt; ++q)
        if (ident(q) && (is(q + 1, ",") || is(q + 1, ">") || is(q + 1, "="))) template_names_.insert(t_[q].text);
      i = gt + 1;
    }
    const std::size_t next = program_declaration(i, to);
    template_names_ = outer;
    return next;
  }

  std::size_t program_declaration(std::size_t i, std::size_t to) {
    // struct and namespace bodies: a struct's members are not variables, its methods are functions (not recorded
    // for the calls); an enum's body holds no code.
    const bool record = is(i, "struct") || is(i, "class") || is(i, "union");
    if (record || is(i, "namespace") || is(i, "enum")) {
      std::size_t q = i;
      while (q < to && !is(q, "{") && !is(q, ";")) ++q;
      if (!is(q, "{")) return q + 1;
      const std::size_t c = closing(q);
      if (c == npos) return to;
      if (!is(i, "enum")) {
        const bool outer = in_struct_;
        const std::string outer_name = struct_name_;
        in_struct_ = in_struct_ || record;
        // An aggregate's members, in order, for the brace lists that build it: only a plain struct's (no base, no
        // template, not nested), whose members are no arrays or structs (braces may be elided for those).
        struct_name_.clear();
        const std::string outer_record = record_name_;
        const std::pair<std::size_t, std::size_t> outer_body = record_body_;
        if (record) record_name_ = ident(i + 1) ? t_[i + 1].text : std::string();
        if (record) record_body_ = {q, c};
        if (record && ident(i + 1)) {
          const std::string name = t_[i + 1].text;
          const bool plain = !outer && is(i + 2, "{") && template_names_.empty() && !is(i, "union");
          auto [it, inserted] = declared_->structs.emplace(name, plain ? std::optional(std::vector<Param>{}) : std::nullopt);
          if (!inserted) it->second.reset();
          if (inserted && plain) struct_name_ = name;
        }
        walk(q + 1, c, false);
        in_struct_ = outer;
        struct_name_ = outer_name;
        record_name_ = outer_record;
        record_body_ = outer_body;
      }
      return is(c + 1, ";") ? c + 2 : c + 1;
    }
    if (auto type = type_at(i)) {
      // `T name(`, `T* name(`, `T& name(`: a function, whose result is checked at its returns.
      std::size_t name = type->end;
      int stars = 0;
      for (; star_or_qualifier(name); ++name) stars += is(name, "*");
      const bool reference = is(name, "&");
      name += reference;
      if (ident(name) && !not_type_names().count(t_[name].text) && is(name + 1, "(")) {
        const std::size_t close = closing(name + 1);
        std::size_t body = close == npos ? to : close + 1;
        std::optional<AddressSpace> this_space;
        for (; body < to && (is(body, "const") || space_keyword(t_[body].text)); ++body)
          if (auto space = space_keyword(t_[body].text)) this_space = space;
        if (body < to && is(body, "{") && closing(body) != npos) {
          if (in_struct_ && !record_name_.empty())
            declared_->methods[record_name_][t_[name].text].insert(this_space.value_or(AddressSpace::thread));
          const Param result{stars == 1, stars == 1 || (reference && stars == 0) ? declared_space(*type, true)
                                                                                : std::nullopt,
                             t_[name].text};
          function(name, name + 1, close, body, result, this_space.value_or(AddressSpace::thread));
          return closing(body) + 1;
        }
      }
    }
    // A declaration up to its ';', or code this reading does not follow (an operator's or constructor's body).
    for (std::size_t q = i; q < to; ++q) {
      if (in_struct_ && !struct_name_.empty() && is(q, struct_name_.c_str()) && is(q + 1, "("))
        declared_->structs[struct_name_].reset();  // a constructor: not an aggregate
      if (is(q, ";")) {
        if (in_struct_) members(i, q);
        else if (auto type = type_at(i); type && !is(i, "typedef") && !is(i, "using")) declarators(*type, q, false);
        return q + 1;
      }
      if (is(q, "(") || is(q, "[") || is(q, "{")) {
        const std::size_t c = closing(q);
        if (c == npos) return to;
        if (is(q, "{") && !(q > i && is(q - 1, "="))) return is(c + 1, ";") ? c + 2 : c + 1;
        q = c;
      }
    }
    return to;
  }

  // A method's own names for the data members of its struct, class or union: arrays and objects live in the object
  // the method runs on (`this` points into this_space: thread unless the method is declared for another space), so
  // `(device float*)&payload` converts a thread pointer. Members are read from the whole body (a method may use one
  // declared after it); static members, pointers, references and what is not plainly a declaration are left out.
  void data_members(AddressSpace this_space) {
    const auto [open, close] = record_body_;
    for (std::size_t i = open + 1; i < close;) {
      if ((is(i, "public") || is(i, "private") || is(i, "protected")) && is(i + 1, ":")) {
        i += 2;
        continue;
      }
      std::size_t end = i;  // the statement's ';', or a body's '}' (a method or a nested type: no data member)
      bool plain = true;
      for (; end < close && !is(end, ";"); ++end) {
        if (is(end, "{") && !(end > i && is(end - 1, "="))) {
          plain = false;
          end = closing(end);
          if (end == npos) return;
          if (is(end + 1, ";")) ++end;
          break;
        }
        if (is(end, "(") || is(end, "[") || is(end, "{") || is(end, "<")) {
          plain = plain && !is(end, "(");
          const std::size_t c = closing(end);
          if (c == npos) return;
          end = c;
        }
      }
      const bool skipped = is(i, "static") || is(i, "using") || is(i, "typedef") || is(i, "friend") || is(i, "template") ||
                           is(i, "struct") || is(i, "class") || is(i, "union") || is(i, "enum");
      if (auto type = type_at(i); plain && !skipped && type && !type->space)
        for (std::size_t p = type->end; p < end;) {
          const Declarator d = declarator_at(p, end);
          if (d.name.empty()) break;
          if (d.stars == 0 && !d.reference)
            locals_.declare(d.name, Symbol{d.dims ? Symbol::What::array : Symbol::What::object, this_space, type->name});
          p = d.end + 1;
        }
      i = end + 1;
    }
  }

  // A member declaration [i, end) of the struct being read: its fields appended, or the struct made unknown.
  void members(std::size_t i, std::size_t end) {
    if (struct_name_.empty() || !declared_->structs[struct_name_] || is(i, "static") || is(i, "using") || is(i, "typedef") ||
        is(i, "friend"))
      return;
    auto& fields = declared_->structs[struct_name_];
    const auto type = type_at(i);
    for (std::size_t p = type ? type->end : end; type && p < end;) {
      const Declarator d = declarator_at(p, end);
      if (d.name.empty() || (d.stars == 0 && !d.reference && declared_->structs.count(type->name))) break;
      fields->push_back({d.stars == 1, d.stars == 1 || (d.reference && d.stars == 0) ? declared_space(*type, true)
                                                                                   : std::nullopt,
                         d.name, d.dims});
      p = d.end + 1;
      if (p >= end) return;
    }
    fields.reset();
  }

  // A brace list (open, close) building the struct `name`: each pointer or reference member against what it is
  // given (positional or `.member = `), an array of pointers against the elements of its own braced list. Past an
  // array given without braces (its elements take as many items as it has) positions are not followed.
  void aggregate(const std::string& name, std::size_t open, std::size_t close) {
    const auto s = declared_->structs.find(name);
    if (s == declared_->structs.end() || !s->second || close == npos) return;
    const std::vector<Param>& fields = *s->second;
    std::size_t k = 0;
    for (std::size_t a = open + 1; a < close; ++k) {
      const std::size_t e = std::min(item_end(a, close), close);
      const Param* field = k < fields.size() ? &fields[k] : nullptr;
      std::size_t value = a;
      if (is(a, ".") && ident(a + 1) && is(a + 2, "=")) {
        field = nullptr;
        for (const Param& f : fields)
          if (f.name == t_[a + 1].text) field = &f;
        value = a + 3;
      }
      const auto mismatch = [&](std::size_t v, std::size_t ve, AddressSpace from) {
        error(v, "member '" + field->name + "' of '" + name + "' " +
                     (field->pointer ? "points to " : "is a reference to ") + space_name(*field->space) +
                     " memory but '" + text(v, ve) + "' " + (field->pointer ? "points to " : "is in ") +
                     space_name(from) + " memory: Metal converts no pointer or reference between address spaces");
      };
      if (field && field->dims) {
        if (!is(value, "{") || closing(value) != e - 1) return;
        if (field->pointer && field->space)
          for (const Element& el : elements_not_in(value, e - 1, *field->space)) mismatch(el.a, el.e, el.from);
      } else if (field && field->space && value < e) {
        const auto from = field->pointer ? pointer_space(value, e) : lvalue_space(value, e);
        if (from && *from != *field->space) mismatch(value, e, *from);
      }
      a = e + 1;
    }
  }

  // The items of the brace list (open, close) of an array of pointers that point to memory other than `to`; inner
  // lists (inner dimensions, braced scalars) are read through.
  struct Element {
    std::size_t a, e;
    AddressSpace from;
  };
  std::vector<Element> elements_not_in(std::size_t open, std::size_t close, AddressSpace to) const {
    std::vector<Element> found;
    elements_not_in(open, close, to, found);
    return found;
  }
  void elements_not_in(std::size_t open, std::size_t close, AddressSpace to, std::vector<Element>& found) const {
    const Nesting nesting(depth_);
    if (depth_ > kMaxNesting) return;
    for (std::size_t a = open + 1; a < close;) {
      const std::size_t e = std::min(item_end(a, close), close);
      if (is(a, "{") && closing(a) == e - 1) {
        elements_not_in(a, e - 1, to, found);
      } else if (const auto from = a < e ? pointer_space(a, e) : std::nullopt; from && *from != to) {
        found.push_back({a, e, *from});
      }
      a = e + 1;
    }
  }

  std::size_t statement_end(std::size_t i, std::size_t to) const {
    for (; i < to && !is(i, ";"); ++i)
      if (is(i, "(") || is(i, "[") || is(i, "{")) {
        const std::size_t c = closing(i);
        if (c == npos) return to;
        i = c;
      }
    return i;
  }

  // A function definition: its parameters (recorded for the calls where it is not a template or a method), then
  // its body with its own names.
  void function(std::size_t name, std::size_t open, std::size_t close, std::size_t body, const Param& result,
                AddressSpace this_space) {
    const Symbols outer_locals = locals_;
    const Param outer_result = result_;
    locals_ = Symbols{};
    result_ = result;
    if (in_struct_ && record_body_.second != npos) data_members(this_space);
    std::vector<Param> params;
    for (std::size_t p = open + 1; p < close;) {
      std::size_t end = p;
      for (; end < close && !is(end, ","); ++end)
        if (is(end, "(") || is(end, "[") || is(end, "<")) {
          const std::size_t c = closing(end);
          if (c == npos || c > close) break;
          end = c;
        }
      Param param;
      if (auto type = type_at(p)) {
        const Declarator d = declarator_at(type->end, end);
        if (!d.name.empty()) {
          param.name = d.name;
          locals_.declare(d.name, symbol_of(*type, d, std::nullopt, true));
          if (d.stars == 1 || d.reference) {
            param.pointer = d.stars == 1;
            param.space = declared_space(*type, true);
          }
        }
      }
      params.push_back(param);
      p = end + 1;
    }
    if (in_struct_) {
      declared_->functions[t_[name].text].reset();
    } else {  // a template's parameters of dependent type have no space here (Metal deduces one into them)
      auto [it, inserted] = declared_->functions.emplace(t_[name].text, Signature{params, result});
      if (!inserted) it->second.reset();  // overloads: which one a call takes is not worked out here
    }
    const std::size_t c = closing(body);
    walk(body + 1, c == npos ? t_.size() : c, true);
    locals_ = outer_locals;
    result_ = outer_result;
  }

  struct Declarator {
    std::string name;
    std::size_t name_at = 0;
    int stars = 0;
    bool reference = false;
    int dims = 0;  // an array's dimensions (2 for `a[2][3]`)
    std::size_t init = 0, init_end = 0;  // `= init`, when there is one
    std::size_t braces = 0;              // `name{...}`: the '{', when there is one
    std::size_t end = 0;                 // the ',' or ';' (or the end given) after it
  };

  // `* const p = x`, `&r = y`, `a[4]`, `v{1, 2}` from i up to `to` (a ',' at depth 0 ends it).
  Declarator declarator_at(std::size_t i, std::size_t to) const {
    Declarator d;
    for (; i < to && star_or_qualifier(i); ++i) d.stars += is(i, "*");
    if (is(i, "&") || is(i, "&&")) {
      d.reference = true;
      ++i;
    }
    if (!ident(i) || not_type_names().count(t_[i].text)) return Declarator{};
    d.name = t_[i].text;
    d.name_at = i++;
    for (; is(i, "["); i = closing(i) + 1) {
      ++d.dims;
      if (closing(i) == npos) return Declarator{};
    }
    if (is(i, "=")) {
      d.init = i + 1;
      if ((i = item_end(d.init, to)) == npos) return Declarator{};
      d.init_end = i;
    } else if (is(i, "{") || is(i, "(")) {
      if (is(i, "{")) d.braces = i;
      i = closing(i);
      if (i == npos) return Declarator{};
      ++i;
    }
    if (i < to && !is(i, ",")) return Declarator{};
    d.end = i;
    return d;
  }

  std::optional<Symbol> symbol_of(const TypeText& type, const Declarator& d, std::optional<AddressSpace> deduced,
                                  bool local) const {
    if (d.stars > 1) return std::nullopt;
    if (type.deduced) {
      if (d.reference) return deduced ? std::optional(Symbol{Symbol::What::object, *deduced}) : std::nullopt;
      if (d.stars == 1 || deduced) return deduced ? std::optional(Symbol{Symbol::What::pointer, *deduced}) : std::nullopt;
      return Symbol{Symbol::What::object, AddressSpace::thread};
    }
    const std::optional<AddressSpace> space = declared_space(type, local);
    if (!space) return std::nullopt;
    if (d.stars == 1) return Symbol{d.dims ? Symbol::What::pointers : Symbol::What::pointer, *space, {}, d.dims};
    return Symbol{d.dims ? Symbol::What::array : Symbol::What::object, *space, type.name};
  }

  // The declarators of a declaration whose type ends at type.end, up to its ';' at `end`: each declared, and its
  // initializer checked against it.
  void declarators(const TypeText& type, std::size_t end, bool local) {
    for (std::size_t p = type.end; p < end;) {
      const Declarator d = declarator_at(p, end);
      if (d.name.empty()) return;
      std::optional<AddressSpace> from;
      const bool has_init = d.init > 0 && d.init_end > d.init;
      if (has_init) from = d.reference ? lvalue_space(d.init, d.init_end) : d.stars == 1 ? pointer_space(d.init, d.init_end)
                                                                              : std::nullopt;
      if (has_init && type.deduced && d.stars == 0 && !d.reference) from = pointer_space(d.init, d.init_end);
      if (const auto to = declared_space(type, local); has_init && from && to && (d.stars == 1 || d.reference))
        if (*from != *to) declaration_error(type, d, *to, *from);
      if (has_init) check_expression(d.init, d.init_end);
      const bool braced_init = has_init && is(d.init, "{") && closing(d.init) == d.init_end - 1;
      if (const auto to = declared_space(type, local); to && d.dims && d.stars == 1 && (d.braces || braced_init)) {
        const std::size_t open = d.braces ? d.braces : d.init;  // `const float* ptrs[2] = {x, w}`
        for (const Element& el : elements_not_in(open, closing(open), *to)) element_error(type, d, *to, el);
      }
      if (d.stars == 0 && !d.reference && !d.dims) {  // `Params p{x, n}`, `Params p = {x, n}`
        if (d.braces) aggregate(type.name, d.braces, closing(d.braces));
        else if (braced_init) aggregate(type.name, d.init, d.init_end - 1);
      }
      locals_or_program(local).declare(d.name, symbol_of(type, d, from, local));
      p = d.end + 1;
    }
  }

  Symbols& locals_or_program(bool local) { return local ? locals_ : declared_->program; }

  // The declared type with the space `s` written in it instead (`const device float` for `const float`).
  std::string type_in(const TypeText& type, AddressSpace s) const {
    const std::string plain = text(type.start, type.end, true);
    return plain.rfind("const ", 0) == 0 ? "const " + std::string(space_name(s)) + " " + plain.substr(6)
                                         : space_name(s) + (" " + plain);
  }

  void declaration_error(const TypeText& type, const Declarator& d, AddressSpace to, AddressSpace from) {
    const std::string init = text(d.init, d.init_end);
    const std::string declared = type.space ? std::string() : " (declared without an address space)";
    const std::string fix = type_in(type, from);
    const std::string s = space_name(from);
    if (d.reference)
      error(d.name_at, "'" + d.name + "' is a reference to " + space_name(to) + " memory" + declared + " but '" +
                           init + "' is in " + s + " memory: Metal binds no reference across address spaces (declare '" +
                           fix + "& " + d.name + "' or 'auto& " + d.name + "')");
    else
      error(d.name_at, "'" + d.name + "' points to " + space_name(to) + " memory" + declared + " but '" + init +
                           "' points to " + s + " memory: Metal converts no pointer between address spaces (declare '" +
                           fix + "* " + d.name + "' or 'auto " + d.name + "')");
  }

  void element_error(const TypeText& type, const Declarator& d, AddressSpace to, const Element& el) {
    error(d.name_at, "'" + d.name + "' holds pointers to " + space_name(to) + " memory" +
                         (type.space ? "" : " (declared without an address space)") + " but is given '" +
                         text(el.a, el.e) + "', which points to " + space_name(el.from) +
                         " memory: Metal converts no pointer between address spaces (declare '" +
                         type_in(type, el.from) + "* " + d.name + "[...]')");
  }

  // One statement inside a function, from i: a declaration, or an expression statement (assignments, casts and
  // calls in it checked); control statements' parentheses are read as expressions. Where the next one starts.
  std::size_t statement(std::size_t i, std::size_t to) {
    if (is(i, "for") && is(i + 1, "(")) {
      const std::size_t c = closing(i + 1);
      if (c == npos) return to;
      const std::size_t init_end = statement_end(i + 2, c);
      statement_in(i + 2, init_end);
      if (init_end < c) check_expression(init_end + 1, c);
      return c + 1;
    }
    if ((is(i, "if") || is(i, "while") || is(i, "switch")) && is(i + 1, "(")) {
      const std::size_t c = closing(i + 1);
      if (c == npos) return to;
      check_expression(i + 2, c);
      return c + 1;
    }
    if (is(i, "else") || is(i, "do") || (is(i, "case") || is(i, "default"))) {
      if (is(i, "else") || is(i, "do")) return i + 1;
      while (i < to && !is(i, ":")) ++i;
      return i + 1;
    }
    const std::size_t end = statement_end(i, to);
    statement_in(i, end);
    return end + 1;
  }

  // A declaration or an expression in [i, end).
  void statement_in(std::size_t i, std::size_t end) {
    if (i >= end) return;
    if (is(i, "return")) {
      check_expression(i + 1, end);
      if (!result_.space || end <= i + 1) return;
      const auto from = result_.pointer ? pointer_space(i + 1, end) : lvalue_space(i + 1, end);
      if (from && *from != *result_.space)
        error(i, "'" + result_.name + "' returns " + (result_.pointer ? "a pointer to " : "a reference to ") +
                     space_name(*result_.space) + " memory but '" + text(i + 1, end) + "' " +
                     (result_.pointer ? "points to " : "is in ") + space_name(*from) +
                     " memory: Metal converts no pointer or reference between address spaces");
      return;
    }
    if (is(i, "typedef") || is(i, "using") || is(i, "static_assert")) return;
    if (auto type = type_at(i); type && declarator_at(type->end, end).name.size()) return declarators(*type, end, true);
    check_expression(i, end);
  }

  // Assignments to pointer names, pointer casts and calls of header functions anywhere in [a, b).
  void check_expression(std::size_t a, std::size_t b) {
    for (std::size_t q = a; q < b; ++q) {
      if (is(q, "(")) {
        const auto cast = cast_type(q);
        const auto to = cast && cast->stars == 1 ? declared_space(cast->type, true) : std::nullopt;
        const std::size_t c = closing(q), e = to ? term_end(c + 1) : npos;
        if (e != npos && e < b)
          if (auto from = pointer_space(c + 1, e + 1); from && *from != *to)
            cast_error(q, text(cast->type.start, cast->type.end) + "*", text(c + 1, e + 1), *to, *from);
        continue;
      }
      if (auto cast = named_cast(q); cast && cast->space) {
        if (auto from = pointer_space(cast->open + 1, cast->close); from && *from != *cast->space)
          cast_error(q, cast->type, text(cast->open + 1, cast->close), *cast->space, *from);
        continue;
      }
      if (is(q, "?")) {
        conditional(q, b);
        continue;
      }
      if (!ident(q) || (q > a && (is(q - 1, ".") || is(q - 1, "->") || is(q - 1, "::")))) continue;
      const bool after_operand = q > a && (is(q - 1, "*") || is(q - 1, "&") || is(q - 1, "]") || is(q - 1, ")"));
      if (is(q + 1, ".") && ident(q + 2) && !after_operand) member_assignment(q, b);
      if (!after_operand) method_call(q);
      // `p = x`, or `ptrs[i] = x` for an array of pointers (as many subscripts as it has dimensions).
      const auto [eq, subscripts] = after_subscripts(q + 1);
      const bool assigned = is(eq, "=") && !after_operand;
      if (assigned) {
        const auto s = lookup(t_[q].text);
        const std::size_t e = std::min(item_end(eq + 1, b), b);
        if (s && ((s->what == Symbol::What::pointer && subscripts == 0) ||
                  (s->what == Symbol::What::pointers && subscripts == s->dims)))
          if (auto from = pointer_space(eq + 1, e); from && *from != s->space)
            error(q, "'" + text(q, eq) + "' points to " + space_name(s->space) + " memory but is assigned '" +
                         text(eq + 1, e) + "', which points to " + space_name(*from) +
                         " memory: Metal converts no pointer between address spaces");
      } else if (is(q + 1, "(")) {
        call(q, q + 1);
      } else if (const std::size_t c = is(q + 1, "<") ? closing(q + 1) : npos; c != npos && is(c + 1, "(")) {
        call(q, c + 1);  // `f<N>(x)`: a function template's explicit arguments
      } else if (is(q + 1, "{")) {
        aggregate(t_[q].text, q + 1, closing(q + 1));  // `Params{x, n}`
      }
    }
  }

  // `c ? x : y` whose operands point to different spaces: Metal converts neither pointer to the other's space.
  void conditional(std::size_t question, std::size_t b) {
    const std::size_t colon = conditional_colon(question, b);
    const auto chosen = colon == npos ? std::nullopt : pointer_space(question + 1, colon);
    // The last operand is read only where the middle one points somewhere known.
    const std::size_t end = chosen ? conditional_operand_end(colon + 1, b) : npos;
    if (end == npos) return;
    const auto otherwise = pointer_space(colon + 1, end);
    if (otherwise && *chosen != *otherwise)
      error(question, "the operands of '?:' point to different address spaces: '" + text(question + 1, colon) +
                          "' to " + space_name(*chosen) + " memory, '" + text(colon + 1, end) + "' to " +
                          space_name(*otherwise) + " memory; Metal converts no pointer between address spaces " +
                          "(choose between the values, or branch with if)");
  }

  // `obj.m(...)` or `objs[i].m(...)` for an object in threadgroup, device or constant memory: the method must be
  // declared for that space (`this` is a pointer into it; Metal converts no pointer between spaces).
  void method_call(std::size_t q) {
    const std::size_t bracket = is(q + 1, "[") ? closing(q + 1) : q;
    if (bracket == npos) return;
    const std::size_t dot = bracket + 1;
    if (!is(dot, ".") || !ident(dot + 1) || !is(dot + 2, "(")) return;
    const auto s = lookup(t_[q].text);
    if (!s || s->type.empty() || s->what == Symbol::What::pointer || s->space == AddressSpace::thread) return;
    if ((s->what == Symbol::What::array) != is(q + 1, "[")) return;
    const auto type = declared_->methods.find(s->type);
    if (type == declared_->methods.end()) return;
    const auto method = type->second.find(t_[dot + 1].text);
    if (method == type->second.end() || method->second.count(s->space)) return;
    error(q, "'" + text(q, dot) + "' is in " + space_name(s->space) + " memory, but '" + s->type + "::" + method->first +
                 "' is declared for thread objects only: its 'this' would point to " + space_name(s->space) +
                 " memory, and Metal converts no pointer between address spaces (declare an overload with '" +
                 space_name(s->space) + "' after its parameter list, or copy the object to a local)");
  }

  // Past the subscripts from i (`[i][j]`): the token after them and how many there are.
  std::pair<std::size_t, int> after_subscripts(std::size_t i) const {
    int n = 0;
    for (; is(i, "[") && closing(i) != npos; i = closing(i) + 1) ++n;
    return {i, n};
  }

  // `p.x = value` (or `p.in[k] = value` for an array of pointers) for an object p of a plain struct: the member's
  // space against the value's.
  void member_assignment(std::size_t q, std::size_t b) {
    const auto s = lookup(t_[q].text);
    const auto fields = s && s->what == Symbol::What::object ? declared_->structs.find(s->type) : declared_->structs.end();
    if (fields == declared_->structs.end() || !fields->second) return;
    const auto [eq, subscripts] = after_subscripts(q + 3);
    if (!is(eq, "=")) return;
    const std::size_t e = std::min(item_end(eq + 1, b), b);
    for (const Param& field : *fields->second) {
      if (field.name != t_[q + 2].text || !field.space || !field.pointer || field.dims != subscripts) continue;
      if (auto from = pointer_space(eq + 1, e); from && *from != *field.space)
        error(q, "member '" + field.name + "' of '" + s->type + "' points to " + space_name(*field.space) +
                     " memory but is assigned '" + text(eq + 1, e) + "', which points to " + space_name(*from) +
                     " memory: Metal converts no pointer between address spaces");
    }
  }

  void cast_error(std::size_t at, const std::string& type, const std::string& operand, AddressSpace to,
                  AddressSpace from) {
    error(at, "the cast to '" + type + "' makes a pointer to " + space_name(to) + " memory of '" + operand +
                  "', which points to " + space_name(from) + " memory: Metal casts no pointer between address spaces (" +
                  "write the space in the type: '" + space_name(from) + " ...*')");
  }

  // A call of a header function (its arguments in the parentheses at `open`): each pointer or reference argument
  // against its parameter's space.
  void call(std::size_t name, std::size_t open) {
    const auto f = declared_->functions.find(t_[name].text);
    if (f == declared_->functions.end() || !f->second) return;
    const std::size_t close = closing(open);
    if (close == npos) return;
    std::vector<std::pair<std::size_t, std::size_t>> args;
    for (std::size_t p = open + 1; p < close;) {
      const std::size_t e = std::min(item_end(p, close), close);
      args.emplace_back(p, e);
      p = e + 1;
    }
    const auto& params = f->second->params;
    if (args.size() > params.size()) return;
    for (std::size_t k = 0; k < args.size(); ++k) {
      const Param& param = params[k];
      if (!param.space) continue;
      const auto [a, b] = args[k];
      const auto from = param.pointer ? pointer_space(a, b) : lvalue_space(a, b);
      if (!from || *from == *param.space) continue;
      error(name, "argument " + std::to_string(k + 1) + " of '" + t_[name].text + "' ('" + text(a, b) + "') " +
                      (param.pointer ? "points to " : "is in ") + space_name(*from) + " memory but its parameter '" +
                      param.name + "' " + (param.pointer ? "points to " : "is a reference to ") +
                      space_name(*param.space) + " memory: Metal converts no pointer or reference between address " +
                      "spaces (declare the parameter with the argument's space, or make it a template parameter)");
    }
  }

  // Expressions nested deeper than this (`&*&*...p`) are not followed.
  static constexpr int kMaxNesting = 64;
  struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(++d) {}
    ~Nesting() { --depth; }
  };
  mutable int depth_ = 0;
  static constexpr int kMaxBlocks = 256;  // blocks in blocks deeper than this are not read
  int blocks_ = 0;

  std::vector<Token> t_;
  std::vector<std::size_t> match_;  // the closing bracket of each (, [ and {
  std::vector<bool> spaced_;  // whether whitespace or a comment came before t_[i]
  std::string file_;
  std::vector<CompileMessage>& errors_;
  Declared* declared_ = nullptr;
  Symbols locals_;
  std::set<std::string> template_names_;
  Param result_;  // what the function being read returns: a pointer or reference and its space, if known
  bool in_struct_ = false;
  std::string struct_name_;  // the plain struct whose members are being read
  std::string record_name_;  // the struct, class or union whose body is being read (its methods are recorded)
  std::pair<std::size_t, std::size_t> record_body_{npos, npos};  // its braces
};

}  // namespace

std::vector<CompileMessage> check_address_spaces(const std::string& header, const std::string& body,
                                                 const std::vector<KernelParameter>& parameters) {
  std::vector<CompileMessage> errors;
  Declared declared;
  Checker(tokenize(header), "header", errors).check_header(declared);
  Checker(tokenize(body), "body", errors).check_body(declared, parameters);
  return errors;
}

}  // namespace ksearch::metalsim
