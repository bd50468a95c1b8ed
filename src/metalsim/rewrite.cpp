// Token-level rewriting of Metal kernel text into C++ that compiles against
// metal_shim.h. Every rewrite keeps newlines so compiler line numbers still
// point at the user's lines.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

namespace {

// Metal's scalar types, each the element of its vectors of 2 to 4 (float2, packed_half4, ...).
const std::set<std::string>& scalar_types() {
  static const std::set<std::string> s = {"float", "half", "bfloat", "bool", "int",  "uint",
                                          "short", "ushort", "char", "uchar", "long", "ulong"};
  return s;
}

const std::set<std::string>& vector_types() {
  static const std::set<std::string> v = [] {
    std::set<std::string> r;
    for (const std::string& b : scalar_types())
      for (int n = 2; n <= 4; ++n) {
        r.insert(b + std::to_string(n));
        r.insert("packed_" + b + std::to_string(n));
      }
    return r;
  }();
  return v;
}

// The shim's narrowing check for an element of a brace initializer of this type (half and bfloat are classes there,
// metal_shim.h, __ms_braced_half), or nullptr for a type the host compiler checks itself.
const char* braced_element_check(const std::string& id) {
  static const std::map<std::string, const char*> checks = [] {
    std::map<std::string, const char*> r = {{"half", "::metal::__ms_braced_half("},
                                            {"float16_t", "::metal::__ms_braced_half("},
                                            {"bfloat", "::metal::__ms_braced_bfloat("},
                                            {"bfloat16_t", "::metal::__ms_braced_bfloat("}};
    for (int n = 2; n <= 4; ++n) {
      r["half" + std::to_string(n)] = r["half"];
      r["bfloat" + std::to_string(n)] = r["bfloat"];
    }
    return r;
  }();
  const auto found = checks.find(id);
  return found == checks.end() ? nullptr : found->second;
}

// Names that need the threads to run as fibers: barriers and SIMD-group functions block, and a thread spinning on
// an atomic may have to be stopped (metalsim_abi.h, uses_sync).
bool is_sync_name(const std::string& id) {
  return id.rfind("simd_", 0) == 0 || id.rfind("quad_", 0) == 0 || id.rfind("simdgroup_", 0) == 0 ||
         id.rfind("atomic_", 0) == 0 || id == "threadgroup_barrier";
}

std::string newlines_of(const std::string& s) { return std::string(std::count(s.begin(), s.end(), '\n'), '\n'); }

// Unsuffixed floating literals are float in Metal (there is no double);
// 1.0h is a half literal. Hexadecimal ones (`0x1p-3`, `0x1.8p1h`) are floating by their binary exponent.
std::string rewrite_number(const std::string& n) {
  bool hex = n.size() > 1 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X');
  bool floating = n.find_first_of(hex ? "pP" : ".eE") != std::string::npos;
  if (!floating) return n;
  char last = n.back();
  // A double, which half rounds once (through a float it would round twice: 1.000488281251h is 1.0009765625).
  if (last == 'h' || last == 'H') return "half(" + n.substr(0, n.size() - 1) + ")";
  if (last == 'f' || last == 'F') return n;
  if (std::isdigit(static_cast<unsigned char>(last)) || last == '.') return n + "f";
  return n;
}

// C++ that the Metal Shading Language leaves out (MSL specification, "Metal and C++14") and the host compiler's
// extended types: the host compiler would build them, a Mac's would not. Recursion is found on the call graph instead
// (compile.cpp).
const char* unsupported_keyword(const std::string& id) {
  static const std::map<std::string, const char*> messages = {
      {"goto", "goto is not supported in Metal (use loops with break/continue)"},
      {"virtual", "virtual functions are not supported in Metal (use templates or plain functions)"},
      {"dynamic_cast", "dynamic_cast is not supported in Metal (no run-time type information)"},
      {"typeid", "typeid is not supported in Metal (no run-time type information)"},
      {"new", "new is not supported in Metal (no dynamic memory: use fixed-size arrays or threadgroup memory)"},
      {"delete", "delete is not supported in Metal (no dynamic memory)"},
      {"try", "exceptions (try/catch/throw) are not supported in Metal"},
      {"catch", "exceptions (try/catch/throw) are not supported in Metal"},
      {"throw", "exceptions (try/catch/throw) are not supported in Metal"},
      {"noexcept", "noexcept is not supported in Metal"},
      {"register", "the register storage class is not supported in Metal"},
      {"thread_local", "thread_local is not supported in Metal (use thread or threadgroup variables)"},
      // the host compiler's extended types (Metal's widest integers are long and ulong, 64 bits; its widest float float)
      {"__int128", "__int128 is not supported in Metal (its widest integer types are long and ulong, 64 bits)"},
      {"__int128_t", "__int128_t is not supported in Metal (its widest integer types are long and ulong, 64 bits)"},
      {"__uint128_t", "__uint128_t is not supported in Metal (its widest integer types are long and ulong, 64 bits)"},
      {"_BitInt", "_BitInt is not supported in Metal (use char, short, int or long)"},
      {"__float128", "__float128 is not supported in Metal (use float)"},
      {"_Float128", "_Float128 is not supported in Metal (use float)"},
      {"__float80", "__float80 is not supported in Metal (use float)"},
      {"__ibm128", "__ibm128 is not supported in Metal (use float)"},
  };
  const auto found = messages.find(id);
  return found == messages.end() ? nullptr : found->second;
}


// A '[' after one of these subscripts or declares an array (`a[i]`, `f(x)[i]`, `float t[4]`, `operator[]`);
// elsewhere it opens a lambda's captures.
bool ends_an_operand(const Token& k) {
  if (k.kind == Tok::Ident) return k.text != "return" && k.text != "case";
  return k.kind == Tok::Number || k.kind == Tok::String || k.text == ")" || k.text == "]" || k.text == "}";
}

}  // namespace

RewriteResult rewrite_metal(const std::string& text, const std::string& file, int id_base,
                            const RewriteResult* outer) {
  RewriteResult r;
  std::vector<Token> t = tokenize(convert_conditional_operands(wrap_comparisons(text)));
  auto next = [&](std::size_t i) { return next_token(t, i); };
  auto prev = [&](std::size_t i) { return previous_token(t, i); };
  // `[captures](...)`, `[captures] {`, `[captures] mutable`, `[captures] -> T`, `[captures]<class T>`: a '[' that
  // no operand precedes, whose matching ']' one of those follows. `[[attributes]]` are not lambdas.
  auto is_lambda_introducer = [&](std::size_t i) {
    const long p = prev(i);
    if ((p >= 0 && ends_an_operand(t[p])) || (p >= 0 && t[p].text == "[")) return false;
    std::size_t close = next(i);
    if (close < t.size() && t[close].text == "[") return false;
    for (int depth = 1; close < t.size(); close = next(close)) {
      if (t[close].text == "[") ++depth;
      else if (t[close].text == "]" && --depth == 0) break;
    }
    const std::size_t after = next(close);
    if (after >= t.size()) return false;
    const std::string& a = t[after].text;
    return a == "(" || a == "{" || a == "<" || a == "->" || a == "mutable" || a == "constexpr";
  };
  constexpr std::size_t npos = std::string::npos;
  auto closing = [&](std::size_t open) { return closing_bracket(t, open); };
  // Names that may stand for a vector type: aliases of one (`typedef int4 I4;`, `using V = vec<T, 4>;`, the
  // header's too) and template type parameters (`template <class V> V convert(float4 f) { return V(f); }`). Their
  // constructors and casts convert each component as well; for a scalar or struct type the shim's __ms_make is the
  // plain constructor.
  std::set<std::string> aliases = outer ? outer->vector_aliases : std::set<std::string>{}, template_parameters;
  auto is_vector_type_name = [&](const std::string& id) {
    return vector_types().count(id) || aliases.count(id) || template_parameters.count(id);
  };
  // A vector type name starting at k (`float4`, `metal::half2`, `vec<float, 4>`, `V`, `V4<T>` for an alias template
  // `template <class T> using V4 = vec<T, 4>;`): the index of its last token.
  auto vector_type_end = [&](std::size_t k) {
    if (k < t.size() && t[k].text == "metal" && next(k) < t.size() && t[next(k)].text == "::") k = next(next(k));
    if (k >= t.size()) return npos;
    const bool arguments_follow = next(k) < t.size() && t[next(k)].text == "<";
    if ((t[k].text == "vec" || aliases.count(t[k].text)) && arguments_follow) return closing(next(k));
    if (is_vector_type_name(t[k].text)) return k;
    return npos;
  };
  auto add_alias = [&](const std::string& name) {
    aliases.insert(name);
    r.vector_aliases.insert(name);
  };
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    const std::size_t j = next(i);
    if (j >= t.size()) break;
    if (t[i].text == "template" && t[j].text == "<" && closing(j) != npos) {
      // `typename N` / `class N` / `typename... N` opening a parameter of the list.
      const std::size_t close = closing(j);
      bool parameter_start = true;
      int depth = 0;
      for (std::size_t q = next(j); q < close; q = next(q)) {
        const std::string& s = t[q].text;
        if (parameter_start && (s == "typename" || s == "class")) {
          std::size_t name = next(q);
          while (name < close && t[name].text == ".") name = next(name);
          if (name < close && t[name].kind == Tok::Ident) template_parameters.insert(t[name].text);
        }
        parameter_start = depth == 0 && s == ",";
        if (s == "(" || s == "<" || s == "[") ++depth;
        else if (s == ")" || s == ">" || s == "]") --depth;
        else if (s == ">>") depth -= 2;
      }
    } else if (t[i].text == "typedef") {
      // `typedef <vector type> N;`
      const std::size_t type_end = vector_type_end(j), name = type_end == npos ? npos : next(type_end);
      if (name < t.size() && t[name].kind == Tok::Ident && next(name) < t.size() && t[next(name)].text == ";")
        add_alias(t[name].text);
    } else if (t[i].text == "using" && t[j].kind == Tok::Ident && next(j) < t.size() && t[next(j)].text == "=") {
      // `using N = <vector type>;`
      const std::size_t type_end = vector_type_end(next(next(j)));
      if (type_end != npos && next(type_end) < t.size() && t[next(type_end)].text == ";")
        add_alias(t[j].text);
    }
  }
  // Names of structs and classes, and the names declared with a vector type (`float2 v;`, a struct's member too) by
  // type, for a constructor's member initializer `v(a, b)` (a name declared with two vector types is left out).
  std::set<std::string> struct_names;
  std::map<std::string, std::string> vector_declared;
  std::set<std::string> declared_twice;
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    const long p = prev(i);
    if ((t[i].text == "struct" || t[i].text == "class") && next(i) < t.size() && t[next(i)].kind == Tok::Ident)
      struct_names.insert(t[next(i)].text);
    if (t[i].kind != Tok::Ident || (p >= 0 && (t[p].text == "::" || t[p].text == "." || t[p].text == "->"))) continue;
    // A vector type, a template parameter (perhaps a scalar: `U mean;` in one template, `float mean;` in a struct) or
    // another type: a name declared with anything but one concrete vector type is left out.
    const std::size_t vector_end = template_parameters.count(t[i].text) ? npos : vector_type_end(i);
    if (vector_end == npos && !template_parameters.count(t[i].text) && !scalar_types().count(t[i].text) &&
        t[i].text != "size_t" && t[i].text != "auto" && !struct_names.count(t[i].text))
      continue;
    const std::size_t type_end = vector_end == npos ? i : vector_end, name = next(type_end);
    if (name >= t.size() || t[name].kind != Tok::Ident || next(name) >= t.size()) continue;
    const std::string& after = t[next(name)].text;
    if (after != ";" && after != "," && after != "=" && after != "[" && after != "{") continue;
    std::string type = vector_end == npos ? "(not a vector)" : "";
    for (std::size_t q = i; vector_end != npos && q <= vector_end; q = next(q)) type += t[q].text;
    const auto [known, added] = vector_declared.emplace(t[name].text, type);
    if (!added && known->second != type) declared_twice.insert(t[name].text);
    if (vector_end == npos) declared_twice.insert(t[name].text);
  }
  for (const auto& name : declared_twice) vector_declared.erase(name);
  // The '(' of each member initializer of a constructor (`Name(...) : v(a, b), w{c} {`, Name a struct's) whose member
  // is declared with a vector type, and that type: only there is `v(a, b)` a member's construction, not a call.
  std::map<std::size_t, std::string> member_initializer_at;
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    if (!struct_names.count(t[i].text) || next(i) >= t.size() || t[next(i)].text != "(") continue;
    const std::size_t parameters_close = closing(next(i));
    if (parameters_close == npos || next(parameters_close) >= t.size() || t[next(parameters_close)].text != ":") continue;
    for (std::size_t member = next(next(parameters_close)); member < t.size() && t[member].kind == Tok::Ident;) {
      const std::size_t open = next(member);
      if (open >= t.size() || (t[open].text != "(" && t[open].text != "{")) break;
      const std::size_t close = closing(open);
      if (close == npos) break;
      if (t[open].text == "(" && next(open) != close && vector_declared.count(t[member].text))
        member_initializer_at[open] = vector_declared[t[member].text];
      if (next(close) >= t.size() || t[next(close)].text != ",") break;
      member = next(next(close));
    }
  }
  // Whether the parentheses from `open` to `close` after a declarator's name hold parameters (a function's
  // declaration: `float2 f(float a);`, `float2 g();`, `float2 h(MyStruct s)`) rather than a direct initializer's
  // arguments (`float2 v(a, b);`).
  auto holds_parameters = [&](std::size_t open, std::size_t close) {
    static const std::set<std::string> type_words = {"const",    "volatile", "device",   "thread", "threadgroup",
                                                     "constant", "typename", "struct",   "class",  "unsigned",
                                                     "signed",   "void",     "size_t",   "ptrdiff_t", "auto"};
    const std::size_t first = next(open);
    if (first >= close) return true;
    if (type_words.count(t[first].text) || scalar_types().count(t[first].text) || is_vector_type_name(t[first].text) ||
        struct_names.count(t[first].text))
      return true;
    std::size_t second = next(first);
    if (t[first].kind != Tok::Ident || second >= close) return false;
    if (t[second].text == "*" || t[second].text == "&" || t[second].text == "&&") second = next(second);
    return second < close && t[second].kind == Tok::Ident;  // `T name`, `T* name`
  };
  // `float2 v(a, b);`: the '(' of each such declarator of a vector type, which becomes `= __ms_make<float2>(`, since
  // a clang vector takes one value in parentheses (Metal's vectors are built by their constructors).
  std::map<std::size_t, std::string> direct_initializer_at;
  auto find_direct_initializers = [&](std::size_t k, const std::string& type) {
    while (k < t.size() && t[k].kind == Tok::Ident) {
      const std::size_t open = next(k);
      if (open >= t.size() || t[open].text != "(") return;
      const std::size_t close = closing(open);
      if (close == npos || next(close) >= t.size() || (t[next(close)].text != ";" && t[next(close)].text != ",") ||
          holds_parameters(open, close))
        return;
      direct_initializer_at[open] = type;
      if (t[next(close)].text != ",") return;
      k = next(next(close));
    }
  };
  auto is_unary_operator = [&](std::size_t k) {
    static const std::set<std::string> ops = {"-", "+", "!", "~", "*", "&"};
    return k < t.size() && t[k].kind == Tok::Punct && ops.count(t[k].text);
  };
  // The last token of the cast-expression starting at k (a cast's operand), or npos where it is not plain enough
  // to tell: unary operators and casts, then a name, literal or parenthesized expression with its postfix
  // member accesses, subscripts and calls.
  std::function<std::size_t(std::size_t)> operand_end = [&](std::size_t k) -> std::size_t {
    if (k >= t.size()) return npos;
    if (is_unary_operator(k)) return operand_end(next(k));
    std::size_t end = k;
    if (t[k].text == "(") {
      end = closing(k);
      if (end == npos) return npos;
      const std::size_t inner = vector_type_end(next(k));
      if (inner != npos && next(inner) == end) return operand_end(next(end));  // a cast of a cast
    } else if (t[k].kind == Tok::Ident) {
      while (next(end) < t.size() && t[next(end)].text == "::" && next(next(end)) < t.size() &&
             t[next(next(end))].kind == Tok::Ident)
        end = next(next(end));
      if (next(end) < t.size() && t[next(end)].text == "<") {  // a template's arguments, if a call follows them
        const std::size_t args = closing(next(end));
        if (args != npos && next(args) < t.size() && t[next(args)].text == "(") end = args;
      }
    } else if (t[k].kind != Tok::Number) {
      return npos;
    }
    for (std::size_t n = next(end); n < t.size(); n = next(end)) {
      if ((t[n].text == "." || t[n].text == "->") && next(n) < t.size() && t[next(n)].kind == Tok::Ident) end = next(n);
      else if (t[n].text == "[" || t[n].text == "(") end = closing(n);
      else break;
      if (end == npos) return npos;
    }
    return end;
  };
  // `(float4)x` at the '(' at i, not a call's or sizeof's parentheses: the ')' after the type and the operand's last
  // token.
  auto vector_cast = [&](std::size_t i, std::size_t& close, std::size_t& end) {
    const long p = prev(i);
    if (p >= 0 && ((t[p].kind == Tok::Ident && t[p].text != "return" && t[p].text != "case") || t[p].text == ")" ||
                   t[p].text == "]"))
      return false;
    const std::size_t type_end = vector_type_end(next(i));
    if (type_end == npos) return false;
    close = next(type_end);
    if (close >= t.size() || t[close].text != ")") return false;
    end = operand_end(next(close));
    return end != npos;
  };
  auto text_between = [&](std::size_t from, std::size_t to) {  // tokens from..to, spaces left out
    std::string s;
    for (std::size_t q = from; q <= to; ++q)
      if (t[q].kind != Tok::Space) s += t[q].text;
    return s;
  };
  auto newlines_between = [&](std::size_t from, std::size_t to) {
    std::string s;
    for (std::size_t q = from; q <= to; ++q) s += t[q].text;
    return newlines_of(s);
  };
  std::string threadgroup_alignment;  // of the threadgroup declaration that follows `alignas(...)`
  std::vector<std::size_t> cast_ends;  // where a rewritten vector cast's call closes: after these tokens
  // `auto t = h.xy;`: a multi-component swizzle of a half, bfloat or bool vector is a proxy object in the shim; `auto`
  // takes the vector it stands for (::metal::__unswz opened after these `=` tokens, closed through cast_ends).
  std::set<std::size_t> unswizzle_after;
  auto is_swizzle = [](const std::string& s) {
    return s.size() >= 2 && s.size() <= 4 &&
           (s.find_first_not_of("xyzw") == std::string::npos || s.find_first_not_of("rgba") == std::string::npos);
  };
  // Elements of brace initializers of half and bfloat types: the check opened before these tokens, closed through
  // cast_ends.
  std::map<std::size_t, const char*> braced_check_before;
  // The elements of the initializer list opening at `open`, nested lists' too; designated ones are left as they are,
  // and so is a list with a '<' outside brackets, whose commas may separate template arguments (`f<T, 2>(x)`).
  std::function<void(std::size_t, const char*)> check_braced_elements = [&](std::size_t open, const char* check) {
    const std::size_t close = closing(open);
    if (close == npos) return;
    for (std::size_t q = next(open), depth = 0; q < close; q = next(q)) {
      const std::string& s = t[q].text;
      if (s == "(" || s == "[" || s == "{") ++depth;
      else if (s == ")" || s == "]" || s == "}") --depth;
      else if (depth == 0 && s == "<") return;
    }
    std::size_t first = next(open);
    while (first < close) {
      std::size_t last = first, after = first;
      for (int depth = 0; after < close; after = next(after)) {
        const std::string& s = t[after].text;
        if (depth == 0 && s == ",") break;
        if (s == "(" || s == "[" || s == "{") ++depth;
        else if (s == ")" || s == "]" || s == "}") --depth;
        last = after;
      }
      if (t[first].text == "{") check_braced_elements(first, check);
      else if (t[first].text != "." && t[first].text != "[" && first != after) {
        braced_check_before[first] = check;
        cast_ends.push_back(last);
      }
      first = after < close ? next(after) : close;
    }
  };
  // `T{...}`, `T name{...}` and `T name[N] = {...}` (each declarator of the declaration) for a type T of
  // braced_element_check, starting at the type's token.
  auto find_braced_initializers = [&](std::size_t type, const char* check) {
    std::size_t k = next(type);
    if (k < t.size() && t[k].text == "{") return check_braced_elements(k, check);
    while (k < t.size() && t[k].kind == Tok::Ident) {
      k = next(k);
      if (k < t.size() && t[k].text == "(") return;  // a function, or a constructor's parentheses
      while (k < t.size() && t[k].text == "[" && closing(k) != npos) k = next(closing(k));
      if (k < t.size() && t[k].text == "=") k = next(k);
      if (k < t.size() && t[k].text == "{") check_braced_elements(k, check);
      for (int depth = 0; k < t.size(); k = next(k)) {  // to the declarator's end
        const std::string& s = t[k].text;
        if (depth == 0 && (s == "," || s == ";" || s == ")")) break;
        if (s == "(" || s == "[" || s == "{") ++depth;
        else if (s == ")" || s == "]" || s == "}") --depth;
      }
      if (k >= t.size() || t[k].text != ",") return;
      k = next(k);
    }
  };
  // Functions overloaded by address space only: their declarations' tag parameters, and each call `f(...)`,
  // `ns::f(...)` or `f<T>(...)` made `::metal::__ms_space_call<tags...>("f", __MS_SPACE_CALLEE(f<T>))(...)` (a call of
  // another function of that name, a struct's static one, accepts no tag and is made as it was written).
  std::map<std::size_t, std::string> inserted_before;
  const SpaceOverloads overloads = find_space_overloads(t);
  r.space_overloads = overloads.tags;
  if (outer) r.space_overloads.insert(outer->space_overloads.begin(), outer->space_overloads.end());
  for (const auto& [open, tag] : overloads.tag_at) inserted_before[next(open)] += tag + ", ";
  for (std::size_t i = 0; i < t.size(); i = next(i)) {
    const auto overloaded = r.space_overloads.find(t[i].text);
    if (t[i].kind != Tok::Ident || overloaded == r.space_overloads.end() || overloads.declarations.count(i)) continue;
    std::size_t start = i;  // the qualified name's first token
    for (long colons = prev(start); colons >= 0 && t[colons].text == "::"; colons = prev(start)) {
      start = colons;  // `::f`, or a qualifier's `ns::`
      if (const long qualifier = prev(colons); qualifier >= 0 && t[qualifier].kind == Tok::Ident) start = qualifier;
      else break;
    }
    const long p = prev(start);
    if (p >= 0 && (t[p].text == "." || t[p].text == "->")) continue;
    std::size_t open = next(i);
    if (open < t.size() && t[open].text == "<") open = closing(open) == npos ? npos : next(closing(open));
    if (open >= t.size() || t[open].text != "(") continue;
    std::string tags;
    for (const std::string& tag : overloaded->second) tags += (tags.empty() ? "" : ", ") + tag;
    inserted_before[start] += "::metal::__ms_space_call<" + tags + ">(\"" + t[i].text + "\", __MS_SPACE_CALLEE(";
    inserted_before[open] += "))";
  }
  int next_id = id_base;
  bool line_start = true;
  std::string out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    for (auto e = cast_ends.begin(); e != cast_ends.end();)
      if (*e < i) out += ")", e = cast_ends.erase(e);
      else ++e;
    if (i > 0 && unswizzle_after.count(i - 1)) out += "::metal::__unswz(";
    if (const auto check = braced_check_before.find(i); check != braced_check_before.end()) out += check->second;
    if (const auto inserted = inserted_before.find(i); inserted != inserted_before.end()) out += inserted->second;
    const Token& k = t[i];
    bool at_line_start = line_start;
    if (k.kind == Tok::Space) {
      if (k.text.find('\n') != std::string::npos) line_start = true;
      out += k.text;
      continue;
    }
    line_start = false;
    // #include <metal_stdlib> and the other metal_* headers: the shim provides them. Any other include stays, for the
    // host compiler to refuse as a Mac's does (compile.cpp: no host header is found).
    if (at_line_start && k.text == "#" && next(i) < t.size() && t[next(i)].text == "include") {
      const std::size_t target = next(next(i));
      auto metal_header = [&](const std::string& name) { return name.rfind("metal_", 0) == 0; };
      const bool angled = target < t.size() && t[target].text == "<" && next(target) < t.size() &&
                          metal_header(t[next(target)].text) && next(next(target)) < t.size() &&
                          t[next(next(target))].text == ">";
      const bool quoted = target < t.size() && t[target].kind == Tok::String && metal_header(t[target].text.substr(1));
      if (angled || quoted) {
        i = angled ? next(next(target)) : target;
        continue;
      }
    }
    if (k.kind == Tok::Number) {
      out += rewrite_number(k.text);
      continue;
    }
    if (const auto direct = direct_initializer_at.find(i); direct != direct_initializer_at.end()) {
      out += " = ::metal::__ms_make<" + direct->second + ">(";
      continue;
    }
    if (const auto member = member_initializer_at.find(i); member != member_initializer_at.end()) {
      out += "(::metal::__ms_make<" + member->second + ">(";
      cast_ends.push_back(prev(closing(i)));
      continue;
    }
    if (k.text == "[" && is_lambda_introducer(i))
      r.errors.push_back({file, k.line, 0, "error", "lambda expressions are not supported in Metal (write a helper function or a template)"});
    // `float (*op)(float)`, `float (*)(float)`, `(*ops[k])(x)`: a parenthesized dereference that a call's '(' follows.
    if (k.text == "(" && next(i) < t.size() && t[next(i)].text == "*") {
      const std::size_t star_group_end = closing(i);
      if (star_group_end != npos && next(star_group_end) < t.size() && t[next(star_group_end)].text == "(")
        r.errors.push_back({file, k.line, 0, "error",
                            "function pointers are not supported in Metal kernels (call the function directly, or "
                            "choose it with a template parameter or a switch)"});
    }
    // Metal's vector casts convert each component; clang's reinterpret the bits: `(float4)i` and
    // `static_cast<float4>(i)` become the constructor `float4(i)`.
    std::size_t close = 0, end = 0;
    if (k.text == "(" && vector_cast(i, close, end)) {
      out += "::metal::__ms_make<" + text_between(next(i), prev(close)) + ">(" + newlines_between(i, close);
      cast_ends.push_back(end);
      i = close;
      continue;
    }
    if (k.kind != Tok::Ident) {
      out += k.text;
      continue;
    }
    const std::string& id = k.text;
    if (const char* check = braced_element_check(id)) find_braced_initializers(i, check);
    // Each declarator `name = initializer` of an `auto` declaration, up to its ',' or ';'.
    for (std::size_t d = i; id == "auto" && next(d) < t.size() && t[next(d)].kind == Tok::Ident;) {
      const std::size_t eq = next(next(d));
      if (eq >= t.size() || t[eq].text != "=") break;
      std::size_t q = next(eq);
      for (int depth = 0; q < t.size(); q = next(q)) {
        const std::string& s = t[q].text;
        if (s == "(" || s == "[" || s == "{") ++depth;
        else if ((s == ")" || s == "]" || s == "}") && --depth < 0) break;
        else if (depth == 0 && (s == ";" || s == ",")) break;
      }
      const long last = q < t.size() ? prev(q) : -1, dot = last >= 0 ? prev(last) : -1;
      if (dot >= 0 && t[dot].text == "." && is_swizzle(t[last].text)) {
        unswizzle_after.insert(eq);
        cast_ends.push_back(std::size_t(last));
      }
      if (q >= t.size() || t[q].text != ",") break;
      d = q;
    }
    if (id == "static_cast" && next(i) < t.size() && t[next(i)].text == "<") {
      const std::size_t type_end = vector_type_end(next(next(i)));
      const std::size_t args_end = type_end == npos ? npos : next(type_end);
      if (args_end < t.size() && t[args_end].text == ">" && next(args_end) < t.size() && t[next(args_end)].text == "(") {
        out += "::metal::__ms_make<" + text_between(next(next(i)), type_end) + ">" + newlines_between(i, args_end);
        i = args_end;
        continue;
      }
    }
    if (is_sync_name(id)) r.uses_sync = true;
    // `= delete` only removes a function; the operator is what Metal lacks.
    const long before = prev(i);
    if (const char* message = unsupported_keyword(id); message && !(id == "delete" && before >= 0 && t[before].text == "="))
      r.errors.push_back({file, k.line, 0, "error", message});
    // The host's C++ library is visible to the host build (`std::numeric_limits<float>`, `std::is_same_v`); a Mac's
    // Metal compiler has no namespace std.
    if (id == "std" && ((next(i) < t.size() && t[next(i)].text == "::") || (before >= 0 && t[before].text == "namespace")))
      r.errors.push_back({file, k.line, 0, "error",
                          "namespace std does not exist in Metal: its standard library is namespace metal "
                          "(metal::numeric_limits, metal::max, metal::is_same_v)"});
    if (id == "double") {
      r.errors.push_back({file, k.line, 0, "error", "double is not supported in Metal (use float)"});
      out += id;
      continue;
    }
    // Metal's built-in scalar types are keywords, as `float` is: nothing declared takes their name (`int half = n /
    // 2;`), which the host build, where they are typedefs, would let shadow the type. A name follows a type (a word,
    // `*`, `&`, `>`) and comes before `=`, `;`, `,`, `[`, `)`, `{` or `:`.
    if (id == "half" || id == "bfloat") {
      static const std::set<std::string> qualifiers = {"const", "volatile", "constant", "device", "thread", "threadgroup",
                                                       "operator", "typedef", "typename", "return", "else"};
      static const std::set<std::string> after_name = {"=", ";", ",", "[", ")", "{", ":"};
      const long p = prev(i);
      const std::size_t n = next(i);
      const bool after_type = p >= 0 && ((t[p].kind == Tok::Ident && !qualifiers.count(t[p].text)) || t[p].text == "*" ||
                                         t[p].text == "&" || t[p].text == "&&" || t[p].text == ">");
      if (after_type && n < t.size() && after_name.count(t[n].text))
        r.errors.push_back({file, k.line, 0, "error",
                            "'" + id + "' is a type in Metal, as float is: it cannot name a variable, parameter, field or function"});
    }
    // `constant` data is read-only: as `const`, a program-scope table stays out of the kernel's writable
    // sections (which are refused as mutable state); next to another `const` it just goes.
    if (id == "constant") {
      const long p = prev(i);
      const std::size_t j = next(i);
      const bool beside_const = (p >= 0 && t[p].text == "const") || (j < t.size() && t[j].text == "const");
      out += beside_const ? std::string(id.size(), ' ') : "const   ";
      continue;
    }
    if (id == "device" || id == "thread") {
      out += std::string(id.size(), ' ');
      continue;
    }
    // `alignas(16) threadgroup float tile[256];` (a float4 view of a float array): the alignment goes to the variables'
    // allocation, as a reference cannot carry it.
    if (id == "alignas" && next(i) < t.size() && t[next(i)].text == "(") {
      const std::size_t close = closing_bracket(t, next(i));
      if (close < t.size() && next(close) < t.size() && t[next(close)].text == "threadgroup") {
        threadgroup_alignment.clear();
        for (std::size_t q = next(i) + 1; q < close; ++q) threadgroup_alignment += t[q].text;
        out += newlines_between(i, close);
        i = close;
        continue;
      }
    }
    if (id == "threadgroup") {
      // Declaration `threadgroup T a[N], b;` -> arena references; anything else
      // (pointer, reference, cast, parameter) just loses the qualifier.
      std::size_t j = next(i);
      std::size_t end = j;
      int depth = 0;
      bool simple = true;
      std::vector<std::vector<std::size_t>> decls(1);
      for (; end < t.size(); ++end) {
        const std::string& s = t[end].text;
        if (t[end].kind == Tok::Space) continue;
        if (s == "<" || s == "[") ++depth;
        else if (s == ">" || s == "]") --depth;
        else if (s == ">>") depth -= 2;
        if (depth == 0 && s == ";") break;
        if (depth == 0 && (s == "*" || s == "&" || s == "(" || s == ")" || s == "=" || s == "{" || s == "&&")) {
          simple = false;
          break;
        }
        if (depth == 0 && s == ",") decls.emplace_back();
        else decls.back().push_back(end);
      }
      // A declarator's tokens `T name[N][M]`: the position of its name, the token before the first '[' (npos: none).
      auto name_position = [&](const std::vector<std::size_t>& toks) {
        std::size_t first_bracket = toks.size();
        for (std::size_t q = 0; q < toks.size(); ++q)
          if (t[toks[q]].text == "[") {
            first_bracket = q;
            break;
          }
        return first_bracket - 1;
      };
      // A threadgroup variable (not a pointer or reference to threadgroup memory) is the kernel's, one per
      // threadgroup: Metal refuses one declared in another function or at program scope (the header) and one with an
      // initializer (threadgroup memory is shared and starts undefined).
      const bool initialized = !simple && end < t.size() && (t[end].text == "=" || t[end].text == "{");
      if (((simple && end < t.size()) || initialized) && name_position(decls[0]) != npos) {
        const std::string& name = t[decls[0][name_position(decls[0])]].text;
        if (file == "header")
          r.errors.push_back({file, k.line, 0, "error",
                              "variables in the threadgroup address space cannot be declared outside the kernel "
                              "function in Metal ('" + name + "'): declare it in the kernel's body and pass a "
                              "threadgroup pointer to the functions that use it"});
        else if (initialized)
          r.errors.push_back({file, k.line, 0, "error",
                              "a threadgroup variable cannot have an initializer in Metal ('" + name +
                                  "'): declare it without one, store the value from one thread, then call "
                                  "threadgroup_barrier(mem_flags::mem_threadgroup)"});
      }
      if (!simple || end >= t.size()) {
        out += std::string(id.size(), ' ');
        continue;
      }
      std::string all_text;
      for (std::size_t q = i; q <= end; ++q) all_text += t[q].text;
      std::string type;
      std::string emitted;
      for (std::size_t d = 0; d < decls.size(); ++d) {
        auto& toks = decls[d];
        const std::size_t name_pos = name_position(toks);
        if (name_pos == npos) break;
        std::string dims;
        for (std::size_t q = name_pos + 1; q < toks.size(); ++q) dims += t[toks[q]].text;
        if (d == 0) {
          for (std::size_t q = 0; q < name_pos; ++q) type += (q ? " " : "") + t[toks[q]].text;
        }
        const std::string& name = t[toks[name_pos]].text;
        emitted += "auto& " + name + " = ::metal::__ms_tg<" + type + dims + ", " + std::to_string(next_id++) + "u, \"" +
                   name + "\"" + (threadgroup_alignment.empty() ? "" : ", " + threadgroup_alignment) + ">(); ";
      }
      threadgroup_alignment.clear();
      out += emitted + newlines_of(all_text);
      i = end;
      continue;
    }
    // `float4(...)`, `vec<float, 4>(x, y, z, w)` and `V(x)` for an alias or template parameter V: constructors
    // (`metal::float4(...)` is one too, already qualified).
    if (const std::size_t type_end = id == "vec" || is_vector_type_name(id) ? vector_type_end(i) : npos; type_end != npos) {
      const std::size_t j = next(type_end);
      const long p = prev(i);
      const bool in_metal = p >= 1 && t[p].text == "::" && prev(p) >= 0 && t[prev(p)].text == "metal";
      const bool member = p >= 0 && (t[p].text == "." || t[p].text == "->" || t[p].text == "::");
      // Declarations, not constructors: `operator V() const`, `thread V (&values)[4]`.
      const bool conversion_function = p >= 0 && t[p].text == "operator";
      const bool array_reference = next(j) < t.size() && t[next(j)].text == "&";
      if (j < t.size() && t[j].text == "(" && (in_metal || !member) && !conversion_function && !array_reference) {
        out += std::string(in_metal ? "" : "::metal::") + "__ms_make<" + text_between(i, type_end) + ">" +
               newlines_between(i, type_end);
        i = type_end;
        continue;
      }
      if (!member && !conversion_function) find_direct_initializers(j, text_between(i, type_end));
    }
    out += id;
  }
  out.append(cast_ends.size(), ')');
  r.text = out;
  return r;
}

}  // namespace ksearch::metalsim
