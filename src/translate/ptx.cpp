// Inline PTX that ports (docs/TRANSLATE.md): cp.async's global -> shared copies and their commit and wait, as
// hand-written kernels spell them (`asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem), "l"(src))`,
// also predicated or with a source size that zero-fills the rest). As __pipeline_memcpy_async, each copy is done at
// the call (ks_memcpy_async) and commit and wait are dropped: CUDA lets the copying thread read the bytes only after
// its wait and other threads only after a barrier besides. The shared operand is a 32-bit address in the shared
// window, which Metal has no counterpart of: the port follows it back to the pointer given __cvta_generic_to_shared,
// in the operand itself or in a variable used for nothing else.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <regex>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// The expression under its casts and parentheses (`static_cast<uint32_t>(__cvta_generic_to_shared(p))`).
CXCursor strip_casts(CXCursor c) {
  for (;;) {
    c = strip_implicit(c);
    const CXCursorKind kind = clang_getCursorKind(c);
    if (kind != CXCursor_ParenExpr && kind != CXCursor_CStyleCastExpr && kind != CXCursor_CXXStaticCastExpr &&
        kind != CXCursor_CXXReinterpretCastExpr && kind != CXCursor_CXXFunctionalCastExpr)
      return c;
    const std::vector<CXCursor> kids = children(c);
    if (kids.empty()) return c;
    c = kids.back();  // a cast's written type (a TypeRef) comes first
  }
}

// The pointer a shared-window address was made of: the argument of __cvta_generic_to_shared, else a null cursor.
CXCursor converted_pointer(CXCursor c) {
  c = strip_casts(c);
  if (clang_getCursorKind(c) != CXCursor_CallExpr || spelling(c) != "__cvta_generic_to_shared" || clang_Cursor_getNumArguments(c) != 1)
    return clang_getNullCursor();
  return strip_implicit(clang_Cursor_getArgument(c, 0));
}

// The PTX template of an asm statement: its string literals, concatenated and unescaped.
std::optional<std::string> asm_template(const std::string& statement) {
  size_t at = statement.find('(');
  if (at == std::string::npos) return std::nullopt;
  std::string out;
  for (++at;;) {
    while (at < statement.size() && std::isspace(static_cast<unsigned char>(statement[at]))) ++at;
    if (at >= statement.size() || statement[at] != '"') break;
    for (++at; at < statement.size() && statement[at] != '"'; ++at) {
      if (statement[at] != '\\' || at + 1 >= statement.size()) {
        out += statement[at];
        continue;
      }
      const char escaped = statement[++at];
      out += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
    }
    ++at;
  }
  return out.empty() ? std::nullopt : std::optional<std::string>(out);
}

// One cp.async of the template: its operands as written (`%1`, or a literal size), under an optional predicate.
struct Copy {
  std::string predicate;  // "" or the .pred register's name, "!" first when negated
  std::string dst, src, size, source_size;
};

}  // namespace

// A variable holding a shared-window address (`uint32_t smem = __cvta_generic_to_shared(&tile[i]);`) that is used only
// as an operand of asm statements: it becomes the pointer itself (`auto smem = &tile[i];`), which the ported copies take.
bool Translator::shared_address_variable(CXCursor var, Function& fn) {
  const std::vector<CXCursor> kids = children(var);
  if (kids.empty() || clang_Cursor_isNull(converted_pointer(kids.back()))) return false;
  const std::string key = decl_key(var);
  int uses = 0, operands = 0;
  std::function<void(CXCursor, bool)> count = [&](CXCursor c, bool operand) {
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(c)) == key) {
      ++uses;
      operands += operand;
    }
    const bool is_asm = clang_getCursorKind(c) == CXCursor_AsmStmt;
    for (CXCursor k : children(c)) {
      const CXCursor inner = is_asm ? strip_casts(k) : k;
      count(inner, is_asm && clang_getCursorKind(inner) == CXCursor_DeclRefExpr);
    }
  };
  count(fn.cursor, false);
  if (uses == 0 || uses != operands) return false;
  const CXCursor init = kids.back();
  const unsigned name_at = position(var).offset;
  if (begin_offset(var) >= name_at) return false;  // a later declarator of `uint32_t a = ..., b = ...;`
  rw_.replace(begin_offset(var), name_at, "auto ");
  const CXCursor pointer = converted_pointer(init);
  rw_.replace(begin_offset(init), end_offset(init), [this, pointer] { return rw_.render(begin_offset(pointer), end_offset(pointer)); });
  cvta_followed_.insert(begin_offset(strip_casts(init)));
  spaces_[key] = "threadgroup";
  ++fn.record.translated["__cvta_generic_to_shared (shared pointer)"];
  return true;
}

// cp.async in an asm statement: true when the statement was rewritten (its operands are then visited), false when it
// holds anything else, which the caller reports.
bool Translator::port_cp_async(CXCursor statement, Function& fn) {
  const std::optional<std::string> ptx = asm_template(text(begin_offset(statement), end_offset(statement)));
  if (!ptx || ptx->find("cp.async") == std::string::npos) return false;
  static const std::regex predicate_register(R"(^\.reg\s+\.pred\s+(\w+)$)");
  static const std::regex set_predicate(R"(^setp\.(ne|eq)\.[bsu]32\s+(\w+)\s*,\s*(%\d+)\s*,\s*0$)");
  static const std::regex copy(
      R"(^(?:@(!?\w+)\s+)?cp\.async\.(?:ca|cg)\.shared(?:::cta)?\.global(?:\.L2::(?:64|128|256)B)?\s+\[\s*(%\d+)\s*\]\s*,\s*\[\s*(%\d+)\s*\]\s*,\s*(%\d+|\d+)\s*(?:,\s*(%\d+|\d+)\s*)?$)");
  static const std::regex ordering(R"(^cp\.async\.(commit_group|wait_all|wait_group\s+(%\d+|\d+))$)");
  std::map<std::string, std::string> predicates;  // register -> "%i != 0" as written
  std::vector<Copy> copies;
  std::string body = *ptx;
  std::replace(body.begin(), body.end(), '\n', ';');
  for (char& ch : body)
    if (ch == '{' || ch == '}') ch = ';';
  for (size_t from = 0; from <= body.size();) {
    size_t to = body.find(';', from);
    if (to == std::string::npos) to = body.size();
    std::string instruction = body.substr(from, to - from);
    from = to + 1;
    const size_t first = instruction.find_first_not_of(" \t"), last = instruction.find_last_not_of(" \t");
    if (first == std::string::npos) continue;
    instruction = instruction.substr(first, last - first + 1);
    std::smatch m;
    if (std::regex_match(instruction, m, predicate_register)) {
      predicates[m[1]] = "";
    } else if (std::regex_match(instruction, m, set_predicate) && predicates.count(m[2])) {
      predicates[m[2]] = std::string(m[3]) + (m[1] == "ne" ? " != 0" : " == 0");
    } else if (std::regex_match(instruction, m, copy)) {
      const std::string guard = m[1];
      const std::string name = guard.empty() || guard[0] != '!' ? guard : guard.substr(1);
      if (!name.empty() && (!predicates.count(name) || predicates[name].empty())) return false;
      copies.push_back({guard, m[2], m[3], m[4], m[5]});
    } else if (!std::regex_match(instruction, ordering)) {
      return false;
    }
  }
  std::vector<CXCursor> operands = children(statement);  // outputs, then inputs, as %0, %1, ...
  auto operand = [&](const std::string& written) -> std::optional<CXCursor> {
    if (written.empty() || written[0] != '%') return std::nullopt;
    const size_t i = std::stoul(written.substr(1));
    if (i >= operands.size()) return std::nullopt;
    return operands[i];
  };
  std::vector<Problem>& problems = fn.record.problems;
  // Each piece of the Metal statement, rendered when the file is (after the operands' own edits).
  std::vector<std::function<std::string()>> pieces;
  auto value = [&](const std::string& written) -> std::function<std::string()> {
    if (const auto c = operand(written)) {
      const CXCursor e = strip_implicit(*c);
      return [this, e] { return "ulong(" + rw_.render(begin_offset(e), end_offset(e)) + ")"; };
    }
    return [written] { return written + "ul"; };
  };
  for (const Copy& c : copies) {
    const auto dst = operand(c.dst), src = operand(c.src);
    if (!dst || !src || (!c.size.empty() && c.size[0] == '%' && !operand(c.size)) ||
        (!c.source_size.empty() && c.source_size[0] == '%' && !operand(c.source_size)))
      return false;
    CXCursor pointer = converted_pointer(*dst);
    if (clang_Cursor_isNull(pointer)) {
      const CXCursor named = strip_casts(*dst);
      if (clang_getCursorKind(named) != CXCursor_DeclRefExpr || spaces_[decl_key(clang_getCursorReferenced(named))] != "threadgroup") {
        problem(problems, statement, "cp.async",
                "its shared address is not followed back to its array: give the operand as __cvta_generic_to_shared(&array[i]), "
                "or a variable initialized so and used only in asm statements");
        return true;
      }
      pointer = named;
    } else {
      cvta_followed_.insert(begin_offset(strip_casts(*dst)));
    }
    const CXCursor source = strip_casts(*src);
    if (!is_pointer(clang_getCursorType(source)) ||
        clang_getCanonicalType(pointee_type(clang_getCursorType(source))).kind == CXType_Void) {
      problem(problems, statement, "cp.async",
              "its global operand is not a pointer to the copied elements: give it as one (\"l\"(src) with src a float*, float4*)");
      return true;
    }
    std::function<std::string()> condition = [] { return std::string(); };
    if (!c.predicate.empty()) {
      const bool negated = c.predicate[0] == '!';
      const std::string& set = predicates[negated ? c.predicate.substr(1) : c.predicate];
      const CXCursor tested = strip_implicit(*operand(set.substr(0, set.find(' '))));
      const std::string compare = set.substr(set.find(' ') + 1);
      condition = [this, tested, compare, negated] {
        return fmt::format("if ({}(({}) {})) ", negated ? "!" : "", rw_.render(begin_offset(tested), end_offset(tested)), compare);
      };
    }
    const auto size = value(c.size);
    const auto zero_filled = c.source_size.empty() ? std::function<std::string()>([] { return std::string("0ul"); })
                                                   : std::function<std::string()>([size, source_size = value(c.source_size)] {
                                                       return size() + " - " + source_size();
                                                     });
    pieces.push_back([this, condition, pointer, source, size, zero_filled] {
      return condition() + "ks_memcpy_async((threadgroup uchar*)(" + rw_.render(begin_offset(pointer), end_offset(pointer)) + "), " +
             rw_.render(begin_offset(source), end_offset(source)) + ", " + size() + ", " + zero_filled() + ");";
    });
  }
  if (!copies.empty()) helpers_.insert("ks_memcpy_async");
  ++fn.record.translated[copies.empty() ? "cp.async commit/wait (dropped)" : "cp.async"];
  rw_.replace(begin_offset(statement), end_offset(statement), [pieces] {
    std::string out;
    for (const auto& piece : pieces) out += piece() + " ";
    return pieces.empty() ? std::string() : pieces.size() == 1 ? out.substr(0, out.size() - 2) : "{ " + out + "}";
  });
  for (CXCursor k : operands) visit(k, fn);
  return true;
}

}  // namespace ksearch::translate::detail
