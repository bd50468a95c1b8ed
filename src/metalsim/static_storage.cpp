// Read-only variables of static storage outside the constant address space. Metal requires `constant` for every variable that
// outlives a call: at program scope ("program scope variable must reside in constant address space", constexpr and
// const ones too: MLX writes `static constant constexpr int ...` and `MTL_CONST`), a struct's static data member and a
// function's static local. The host build keeps a const one as read-only data, so neither it nor the symbol-table
// check of writable ones (mutable_state.cpp) refuses it. A reading of the declarations' tokens, scope by scope:
// namespaces, struct bodies, function bodies and brace initializers.
#include <algorithm>
#include <cctype>

#include "metalsim/source_internal.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

namespace {

enum class Scope { names, record, block, initializer };

bool has(const std::vector<const Token*>& s, const std::string& word) {
  return std::any_of(s.begin(), s.end(), [&](const Token* t) { return t->text == word; });
}

// The message for a declaration statement of `scope` that needs `constant` and lacks it; "" where none is needed.
std::string missing_constant(std::vector<const Token*> s, Scope scope) {
  // `template <...>` headers
  while (!s.empty() && s.front()->text == "template") {
    if (s.size() < 2 || s[1]->text != "<") return "";  // an explicit instantiation
    std::size_t i = 1;
    for (int depth = 0; i < s.size(); ++i) {
      if (s[i]->text == "<") ++depth;
      else if (s[i]->text == ">" && --depth == 0) break;
      else if (s[i]->text == ">>" && (depth -= 2) <= 0) break;
    }
    s.erase(s.begin(), s.begin() + long(std::min(i + 1, s.size())));
  }
  if (s.empty()) return "";
  static const std::set<std::string> not_variables = {"typedef", "using", "static_assert", "friend", "namespace", "return",
                                                      "extern", "threadgroup", "struct", "class", "union", "enum",
                                                      "operator", "break", "continue", "goto", "case", "default"};
  // The declaration's part before its initializer: a parenthesis there is a function's (or a call's).
  std::vector<const Token*> head;
  for (const Token* t : s) {
    if (t->text == "=" || t->text == "{") break;
    head.push_back(t);
  }
  if (head.size() < 2 || has(head, "(") || std::any_of(head.begin(), head.end(), [](const Token* t) { return not_variables.count(t->text); }))
    return "";
  if (scope != Scope::names && !has(head, "static")) return "";
  // a writable one is mutable state, which the symbol table check reports (mutable_state.cpp)
  if (has(head, "constant") || (!has(head, "const") && !has(head, "constexpr"))) return "";
  // a macro may say `constant` (MLX's `static MTL_CONST constexpr int ...`, steel's STEEL_CONST), also one of a header
  // the text includes, which is not read here
  if (std::any_of(head.begin(), head.end(), [](const Token* t) {
        return t->kind == Tok::Ident && t->text.size() > 1 &&
               std::all_of(t->text.begin(), t->text.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
      }))
    return "";
  std::string name;
  for (const Token* t : head) {
    if (t->text == "[") break;
    if (t->kind == Tok::Ident) name = t->text;
  }
  if (scope == Scope::names)
    return "program scope variable must reside in constant address space ('" + name + "'): declare it `constant` (`constant constexpr float k = ...;`)";
  if (scope == Scope::record)
    return "a static data member must reside in the constant address space in Metal ('" + name + "'): declare it `static constant constexpr`";
  return "a static local variable must reside in the constant address space in Metal ('" + name + "'): declare it `constant`, or drop `static`";
}

}  // namespace

std::vector<CompileMessage> static_storage_outside_constant(const std::string& text, const std::string& file) {
  const std::vector<Token> tokens = tokenize(text);
  const std::vector<bool> directive = directive_tokens(tokens);
  std::vector<CompileMessage> out;
  // Each open scope and the statement being read in it (the body starts inside the kernel's function).
  struct Level {
    Scope scope;
    std::vector<const Token*> statement;
    bool defines_type = false;  // the statement so far holds a struct's body (`struct S { ... } s;`)
  };
  std::vector<Level> levels = {{file == "body" ? Scope::block : Scope::names, {}}};
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Tok::Space || directive[i]) continue;
    Level& level = levels.back();
    if (t.text == "{") {
      const std::vector<const Token*>& s = level.statement;
      Scope inner = Scope::block;
      const bool after_name = !s.empty() && (s.back()->kind == Tok::Ident || s.back()->text == "]");
      if (level.scope == Scope::initializer || has(s, "=")) inner = Scope::initializer;
      else if (has(s, "namespace") || has(s, "extern")) inner = Scope::names;
      else if ((has(s, "struct") || has(s, "class") || has(s, "union") || has(s, "enum")) && !has(s, "(")) inner = Scope::record;
      else if (!has(s, ")") && after_name && level.scope != Scope::names) inner = Scope::initializer;  // `T x{...}`
      if (inner == Scope::initializer) level.statement.push_back(&t);
      levels.push_back({inner, {}});
      continue;
    }
    if (t.text == "}") {
      if (levels.size() == 1) continue;  // unbalanced: nothing to close
      const Scope closed = levels.back().scope;
      levels.pop_back();
      Level& outer = levels.back();
      if (closed == Scope::record) outer.defines_type = true;
      // a function's or a namespace's body ends its statement; a struct's or an initializer's continues it
      else if (closed == Scope::block || closed == Scope::names) outer.statement.clear(), outer.defines_type = false;
      continue;
    }
    if (level.scope == Scope::initializer) continue;
    if (t.text == ";") {
      if (!level.defines_type && !level.statement.empty())
        if (std::string why = missing_constant(level.statement, level.scope); !why.empty())
          out.push_back({file, level.statement.front()->line, 0, "error", why});
      level.statement.clear();
      level.defines_type = false;
      continue;
    }
    // `public:`, `case 1:` and labels end nothing, and start a statement of their own
    if (t.text == ":" && level.statement.size() == 1 && level.statement.front()->kind == Tok::Ident) {
      level.statement.clear();
      continue;
    }
    level.statement.push_back(&t);
  }
  return out;
}

}  // namespace ksearch::metalsim
