// Inline PTX that ports (docs/TRANSLATE.md): one-instruction math and hints of mappings.toml's "ptx:" table, plain
// global loads and stores (ld/st.global, vectors too), and cp.async's global -> shared copies with their commit and
// wait, as hand-written kernels spell them (`asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem),
// "l"(src))`, also predicated or with a source size that zero-fills the rest). As __pipeline_memcpy_async, each copy
// is done at the call (ks_memcpy_async) and commit and wait are dropped: CUDA lets the copying thread read the bytes
// only after its wait and other threads only after a barrier besides. The shared operand is a 32-bit address in the
// shared window, which Metal has no counterpart of: the port follows it back to the pointer given
// __cvta_generic_to_shared, in the operand itself, a variable, a helper's parameter or a helper's result.
// Tensor-core mma.sync (m16n8k*), ldmatrix and stmatrix are emulated over the SIMD group (ks_mma, ks_ldmatrix,
// ks_stmatrix: shuffles that move each element to the lane PTX's fragment layout puts it in), so that fragments built
// by hand stay correct.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// A call of __cvta_generic_to_shared, also one whose argument depends on a template parameter (`&tile[i]` of a
// `__shared__ half tile[BM][BK]` in a kernel template: the callee is then an unresolved name).
bool is_cvta_call(CXCursor c) {
  return clang_getCursorKind(c) == CXCursor_CallExpr && clang_Cursor_getNumArguments(c) == 1 &&
         (spelling(c) == "__cvta_generic_to_shared" || spelling(called_declaration(c)) == "__cvta_generic_to_shared");
}

// The parameter whose shared-window address a helper returns (`__device__ uint32_t smem_u32(const void* p) { return
// static_cast<uint32_t>(__cvta_generic_to_shared(p)); }`): its index, else -1.
int address_helper_parameter(CXCursor function) {
  const CXCursor definition = defining_cursor(function);
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(definition))) return -1;
  const std::vector<CXCursor> params = parameters_of(definition);
  for (CXCursor body : children(definition)) {
    if (clang_getCursorKind(body) != CXCursor_CompoundStmt) continue;
    const std::vector<CXCursor> statements = children(body);
    if (statements.size() != 1 || clang_getCursorKind(statements[0]) != CXCursor_ReturnStmt || children(statements[0]).size() != 1)
      return -1;
    const CXCursor call = strip_casts(children(statements[0])[0]);
    if (!is_cvta_call(call)) return -1;
    const CXCursor given = strip_casts(clang_Cursor_getArgument(call, 0));
    for (size_t i = 0; i < params.size(); ++i)
      if (clang_getCursorKind(given) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(given), params[i]))
        return int(i);
  }
  return -1;
}

// The pointer a shared-window address was made of: the argument of __cvta_generic_to_shared or of a helper returning
// its address, else a null cursor.
CXCursor converted_pointer(CXCursor c) {
  c = strip_casts(c);
  if (clang_getCursorKind(c) != CXCursor_CallExpr) return clang_getNullCursor();
  if (is_cvta_call(c)) return strip_implicit(clang_Cursor_getArgument(c, 0));
  const CXCursor callee = called_declaration(c);
  const int given = clang_Cursor_isNull(callee) ? -1 : address_helper_parameter(callee);
  return given < 0 || given >= clang_Cursor_getNumArguments(c) ? clang_getNullCursor()
                                                              : strip_implicit(clang_Cursor_getArgument(c, unsigned(given)));
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


// The instructions of a PTX template, trimmed, without the braces of its blocks; a vector operand (`{%0, %1, %2, %3}`)
// is written `<%0|%1|%2|%3>`, so that commas separate operands.
std::vector<std::string> ptx_instructions(std::string body) {
  static const std::regex vector_operand(R"(\{\s*(%\d+(?:\s*,\s*%\d+)*)\s*\})");
  for (std::smatch m; std::regex_search(body, m, vector_operand);) {
    std::string list = m[1];
    list.erase(std::remove(list.begin(), list.end(), ' '), list.end());
    std::replace(list.begin(), list.end(), ',', '|');
    body.replace(size_t(m.position(0)), size_t(m.length(0)), "<" + list + ">");
  }
  for (char& ch : body)
    if (ch == '\n' || ch == '{' || ch == '}') ch = ';';
  std::vector<std::string> out;
  for (std::stringstream lines(body); lines.good();) {
    std::string instruction;
    std::getline(lines, instruction, ';');
    const size_t first = instruction.find_first_not_of(" \t"), last = instruction.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(instruction.substr(first, last - first + 1));
  }
  return out;
}

// The operands an asm statement uses as addresses (`[%1]`, `[%1+16]`): integer registers used otherwise (mma.sync's
// fragments) are no shared-window addresses.
std::set<size_t> address_operands(const std::string& statement) {
  static const std::regex address(R"(\[\s*%(\d+))");
  std::set<size_t> out;
  const std::string ptx = asm_template(statement).value_or("");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), address); it != std::sregex_iterator(); ++it)
    out.insert(std::stoul((*it)[1]));
  return out;
}

}  // namespace

// Whether every use of a variable or parameter holding a shared-window address is one the port follows: an address
// operand of an asm statement, or an argument for a __device__ function's parameter that is such an address itself
// (through casts).
bool Translator::used_as_shared_address(CXCursor scope, const std::string& key, int depth) {
  int uses = 0, followed = 0;
  std::function<void(CXCursor, bool)> count = [&](CXCursor c, bool follows) {
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(c)) == key) {
      ++uses;
      followed += follows;
    }
    const CXCursorKind kind = clang_getCursorKind(c);
    const CXCursor called = kind == CXCursor_CallExpr ? called_declaration(c) : clang_getNullCursor();
    const auto callee = clang_Cursor_isNull(called) ? functions_.end() : functions_.find(decl_key(defining_cursor(called)));
    const std::vector<CXCursor> params = callee != functions_.end() ? parameters_of(callee->second.cursor) : std::vector<CXCursor>{};
    const std::vector<CXCursor> kids = children(c);
    const std::set<size_t> addresses = kind == CXCursor_AsmStmt ? address_operands(text(begin_offset(c), end_offset(c))) : std::set<size_t>{};
    for (size_t i = 0; i < kids.size(); ++i) {
      const CXCursor inner = strip_casts(kids[i]);
      const bool reference = clang_getCursorKind(inner) == CXCursor_DeclRefExpr;
      if (kind == CXCursor_AsmStmt && !addresses.count(i)) {  // a value, which counts as any other use
        count(kids[i], false);
        continue;
      }
      // a call's children: the callee's reference, then its arguments
      const bool passed = reference && i >= 1 && i - 1 < params.size() && depth < 8 && shared_address_parameter(params[i - 1], depth + 1);
      // an asm operand offsetting it by bytes (`"r"(base + 4 * i)`): its offsets are counted as any expression's
      const auto offset = kind == CXCursor_AsmStmt && !reference ? byte_offset(inner, [&](CXCursor b) {
        return clang_getCursorKind(strip_casts(b)) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(strip_casts(b))) == key;
      }) : std::nullopt;
      if (offset) {
        count(strip_casts(offset->base), true);
        for (CXCursor o : offset->offsets) count(o, false);
        continue;
      }
      count(kind == CXCursor_AsmStmt || passed ? inner : kids[i], (kind == CXCursor_AsmStmt && reference) || passed);
    }
  };
  count(scope, false);
  return uses > 0 && uses == followed;
}

// A __device__ function's integer parameter taking a shared-window address (`void cp_async16(unsigned dst, const float*
// src)`), used only as asm operands or passed on as such: it becomes a pointer (a template parameter), and callers pass
// the pointer they gave __cvta_generic_to_shared.
bool Translator::shared_address_parameter(CXCursor param, int depth) {
  const CXTypeKind kind = clang_getCanonicalType(clang_getCursorType(param)).kind;
  if (kind < CXType_UShort || kind > CXType_LongLong || spelling(param).empty()) return false;
  const std::string key = decl_key(param);
  if (const auto known = shared_address_parameters_.find(key); known != shared_address_parameters_.end()) return known->second;
  const bool is = used_as_shared_address(clang_getCursorSemanticParent(param), key, depth);
  if (depth == 0) shared_address_parameters_[key] = is;  // (deeper answers are cut short by the depth)
  return is;
}

// The pointer a shared-window address (an asm operand, an argument) stands for: the one given
// __cvta_generic_to_shared or an address helper, whose call the port then drops, or a name already holding one (a
// variable or parameter made a pointer above); else a null cursor.
CXCursor Translator::shared_pointer(CXCursor address) {
  if (const CXCursor pointer = converted_pointer(address); !clang_Cursor_isNull(pointer)) {
    cvta_followed_.insert(begin_offset(strip_casts(address)));
    return pointer;
  }
  const CXCursor named = strip_casts(address);
  if (clang_getCursorKind(named) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  const auto space = spaces_.find(decl_key(clang_getCursorReferenced(named)));
  return space != spaces_.end() && space->second == "threadgroup" ? named : clang_getNullCursor();
}

std::optional<Translator::ByteOffset> Translator::byte_offset(CXCursor operand, const std::function<bool(CXCursor)>& is_base) {
  const CXCursor e = strip_casts(operand);
  const std::vector<CXCursor> sides = children(e);
  if (clang_getCursorKind(e) != CXCursor_BinaryOperator || sides.size() != 2) return std::nullopt;
  if (operator_of(unit_, e) != "+") return std::nullopt;
  for (int b = 0; b < 2; ++b) {
    const CXCursor side = sides[size_t(b)], other = sides[size_t(1 - b)];
    if (is_base(side)) return ByteOffset{side, {other}};
    if (auto inner = byte_offset(side, is_base)) {  // (base + a) + b
      inner->offsets.push_back(other);
      return inner;
    }
  }
  return std::nullopt;
}

// An argument for such a parameter: the pointer given __cvta_generic_to_shared, or a name already holding one.
void Translator::pass_shared_address(CXCursor argument, Function& fn) {
  const CXCursor pointer = shared_pointer(argument);
  if (clang_Cursor_isNull(pointer))
    return problem(fn.record.problems, argument, "shared-window address argument",
                   "the parameter takes an address in PTX's shared window, which the port follows only from "
                   "__cvta_generic_to_shared(&array[i]) or a name holding one");
  if (begin_offset(pointer) != begin_offset(argument) || end_offset(pointer) != end_offset(argument))  // casts dropped
    rw_.replace(begin_offset(argument), end_offset(argument), [this, pointer] { return rw_.render(begin_offset(pointer), end_offset(pointer)); });
}

// A variable holding a shared-window address (`uint32_t smem = __cvta_generic_to_shared(&tile[i]);`) that is used only
// as an operand of asm statements (or passed to a parameter that is): it becomes the pointer itself (`auto smem =
// &tile[i];`), which the ported copies take.
bool Translator::shared_address_variable(CXCursor var, Function& fn) {
  const std::vector<CXCursor> kids = children(var);
  const CXCursor init = kids.empty() ? clang_getNullCursor() : kids.back();
  const CXCursor pointer = clang_Cursor_isNull(init) ? init : converted_pointer(init);
  if (clang_Cursor_isNull(pointer)) return false;
  const std::string key = decl_key(var);
  if (!used_as_shared_address(fn.cursor, key, 0)) return false;
  const unsigned name_at = position(var).offset;
  if (begin_offset(var) >= name_at) return false;  // a later declarator of `uint32_t a = ..., b = ...;`
  rw_.replace(begin_offset(var), name_at, "auto ");
  rw_.replace(begin_offset(init), end_offset(init), [this, pointer] { return rw_.render(begin_offset(pointer), end_offset(pointer)); });
  cvta_followed_.insert(begin_offset(strip_casts(init)));
  spaces_[key] = "threadgroup";
  ++fn.record.translated["__cvta_generic_to_shared (shared pointer)"];
  return true;
}

// An asm statement of instructions that port: true when it was rewritten (its operands are then visited), false when
// it holds anything else, which the caller reports. Besides cp.async and ld/st.global, an instruction of
// mappings.toml's "ptx:" table (ex2.approx.f32, tanh.approx.f32, prefetch.global.L2, ...) becomes its Metal statement
// over the operands.
bool Translator::port_ptx(CXCursor statement, Function& fn) {
  // `asm volatile("" ::: "memory")`: an empty template, a compiler barrier, emits no instruction.
  static const std::regex empty_template(R"(^(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(\s*""\s*(?::[^;]*)?\)\s*$)");
  if (std::regex_match(text(begin_offset(statement), end_offset(statement)), empty_template)) {
    rw_.replace(begin_offset(statement), end_offset(statement), "");
    ++fn.record.translated["empty asm (compiler barrier, dropped)"];
    const std::string note = "empty asm statements (compiler barriers) dropped: they emit no instruction";
    if (std::find(out_.notes.begin(), out_.notes.end(), note) == out_.notes.end()) out_.notes.push_back(note);
    return true;
  }
  const std::optional<std::string> ptx = asm_template(text(begin_offset(statement), end_offset(statement)));
  if (!ptx) return false;
  static const std::regex predicate_register(R"(^\.reg\s+\.pred\s+(\w+)$)");
  static const std::regex set_predicate(R"(^setp\.(ne|eq)\.[bsu]32\s+(\w+)\s*,\s*(%\d+)\s*,\s*0$)");
  static const std::regex guarded(R"(^(?:@(!?\w+)\s+)?(\S+)\s*(.*)$)");
  static const std::regex copy(
      R"(^cp\.async\.(?:ca|cg)\.shared(?:::cta)?\.global(?:\.L2::(?:64|128|256)B)?$)");
  static const std::regex ordering(R"(^cp\.async\.(commit_group|wait_all|wait_group)$)");
  // Plain (weak) global loads and stores with their cache hints: ld.global.nc.L1::no_allocate.v4.f32 and the like.
  static const std::regex global_access(
      R"(^(ld|st)\.global(?:\.nc)?(?:\.(?:ca|cg|cs|lu|cv|wb|wt))?(?:\.L1::(?:no_allocate|evict_\w+))?(?:\.L2::(?:64B|128B|256B|evict_\w+))?(?:\.v([24]))?\.([bfsu])(16|32|64)$)");
  // Tensor-core products and shared-memory fragment loads and stores of one warp (emulated by SIMD-group shuffles:
  // ks_mma, ks_ldmatrix, ks_stmatrix). m16n8k8/k16 of f16 or bf16 into f32 (f16 also into f16), m16n8k4/k8 of tf32,
  // m16n8k16/k32 of s8 and u8 into s32.
  static const std::regex matrix_multiply(
      R"(^mma\.sync\.aligned\.m16n8k(4|8|16|32)\.row\.col\.(f32|f16|s32)\.(f16|bf16|tf32|s8|u8)\.(f16|bf16|tf32|s8|u8)\.(f32|f16|s32)$)");
  // (ptxas takes ldmatrix's qualifiers in any order: LeetCUDA writes `ldmatrix.sync.aligned.x4.m8n8.shared.b16`)
  static const std::regex matrix_load(
      R"(^(ld|st)matrix\.sync\.aligned((?:\.m8n8|\.x[124]|\.trans|\.shared(?:::cta)?|\.b16)+)$)");
  std::vector<CXCursor> operands = children(statement);  // outputs, then inputs, as %0, %1, ...
  auto operand = [&](const std::string& written) -> std::optional<CXCursor> {
    if (written.size() < 2 || written.size() > 4 || written[0] != '%' ||
        !std::all_of(written.begin() + 1, written.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
      return std::nullopt;  // (asm statements have at most 30 operands)
    const size_t i = std::stoul(written.substr(1));
    if (i >= operands.size()) return std::nullopt;
    return strip_implicit(operands[i]);
  };
  // An operand as written, trimmed and out of its address brackets (`[%1]` is `%1`).
  auto bare = [](std::string written) {
    const size_t first = written.find_first_not_of(" \t"), last = written.find_last_not_of(" \t");
    written = first == std::string::npos ? "" : written.substr(first, last - first + 1);
    return written.size() > 2 && written.front() == '[' && written.back() == ']' ? written.substr(1, written.size() - 2) : written;
  };
  // An operand as Metal text, rendered when the file is (after the operand's own edits): `%N`, `[%N]`, a literal, %laneid.
  auto value = [&](const std::string& as_written) -> std::optional<std::function<std::string()>> {
    const std::string written = bare(as_written);
    if (const auto c = operand(written)) {
      const CXCursor e = *c;
      return [this, e] { return "(" + rw_.render(begin_offset(e), end_offset(e)) + ")"; };
    }
    // a special register read from the lane index (%laneid, %lanemask_lt, ...): its mapping, "ptx:%NAME"
    const std::string special = written.rfind("%%", 0) == 0 ? written.substr(1) : written;
    if (const auto s = maps_.functions.find("ptx:" + special); special.size() > 1 && special[0] == '%' && s != maps_.functions.end())
      return [metal = s->second.metal] { return metal; };
    if (!written.empty() && std::all_of(written.begin(), written.end(), ::isdigit)) return [written] { return written; };
    return std::nullopt;
  };
  // A register operand or a vector of them (`<%0|%1>`), each an operand of 32 bits where `bits` is set.
  auto registers_of = [&](std::string listed, bool bits) -> std::optional<std::vector<CXCursor>> {
    listed.erase(std::remove(listed.begin(), listed.end(), ' '), listed.end());
    if (listed.size() > 2 && listed.front() == '<' && listed.back() == '>') listed = listed.substr(1, listed.size() - 2);
    std::vector<CXCursor> registers;
    for (std::stringstream list(listed); list.good();) {
      std::string item;
      std::getline(list, item, '|');
      const auto c = operand(item);
      if (!c || (bits && clang_Type_getSizeOf(clang_getCanonicalType(clang_getCursorType(*c))) != 4)) return std::nullopt;
      registers.push_back(*c);
    }
    return registers;
  };
  // A shared-window address operand, or one offset by bytes (`base + 16 * i`): the pointer it stands for (null where
  // the port does not follow it) and the offsets.
  auto shared_operand = [&](CXCursor address) {
    std::pair<CXCursor, std::vector<CXCursor>> out{shared_pointer(address), {}};
    if (clang_Cursor_isNull(out.first))
      if (const auto offset = byte_offset(address, [this](CXCursor b) { return !clang_Cursor_isNull(shared_pointer(b)); }))
        out = {shared_pointer(offset->base), offset->offsets};
    return out;
  };
  auto rendered_offsets = [this](const std::vector<CXCursor>& offsets) {
    std::string bytes;
    for (CXCursor o : offsets) bytes += " + (" + rw_.render(begin_offset(o), end_offset(o)) + ")";
    return bytes;
  };
  auto rendered = [this](CXCursor e) { return rw_.render(begin_offset(e), end_offset(e)); };
  auto is_float = [](CXCursor e) { return clang_getCanonicalType(clang_getCursorType(e)).kind == CXType_Float; };
  // A 32-bit register's bits, and a register assigned bits (a float register takes them as its value's bits).
  auto bits_of = [=](CXCursor r) { return (is_float(r) ? "as_type<uint>(" : "uint(") + rendered(r) + ")"; };
  auto assign_bits = [=](CXCursor r, const std::string& bits) {
    return rendered(r) + " = " + (is_float(r) ? "as_type<float>(" + bits + ")" : bits) + "; ";
  };
  // The SIMD group's lane, for the warp-wide instructions (its built-in variables are the function's).
  const std::string lane = maps_.functions.at("ptx:%laneid").metal;
  auto names_builtins = [&](const std::string& metal) {
    for (const auto& [cuda, builtin] : kBuiltins)
      if (metal.find(builtin) != std::string::npos) fn.builtins.insert(cuda);
  };
  std::map<std::string, std::string> predicates;  // register -> "%i != 0" as written
  std::vector<std::function<std::string()>> pieces;  // the Metal statements, without their `;`
  std::vector<Problem>& problems = fn.record.problems;
  size_t copies = 0;
  for (const std::string& instruction : ptx_instructions(*ptx)) {
    std::smatch m;
    if (std::regex_match(instruction, m, predicate_register)) {
      predicates[m[1]] = "";
      continue;
    }
    if (std::regex_match(instruction, m, set_predicate) && predicates.count(m[2])) {
      predicates[m[2]] = std::string(m[3]) + (m[1] == "ne" ? " != 0" : " == 0");
      continue;
    }
    if (!std::regex_match(instruction, m, guarded)) return false;
    const std::string guard = m[1], mnemonic = m[2];
    std::vector<std::string> written;  // the operands as written
    for (std::stringstream list(m[3]); list.good();) {
      std::string item;
      std::getline(list, item, ',');
      if (item.find_first_not_of(' ') != std::string::npos) written.push_back(item);
    }
    if (std::regex_match(mnemonic, ordering)) continue;  // the copies are done at the call
    // `if ((%i) != 0)` of a .pred register set from an operand
    std::function<std::string()> condition = [] { return std::string(); };
    if (!guard.empty()) {
      const bool negated = guard[0] == '!';
      const auto set = predicates.find(negated ? guard.substr(1) : guard);
      if (set == predicates.end() || set->second.empty()) return false;
      const auto tested = value(set->second.substr(0, set->second.find(' ')));
      if (!tested) return false;
      condition = [tested = *tested, compare = set->second.substr(set->second.find(' ') + 1), negated] {
        return fmt::format("if ({}({} {})) ", negated ? "!" : "", tested(), compare);
      };
    }
    if (std::regex_match(mnemonic, m, global_access)) {  // ld dst, [addr] / st [addr], src: scalars or {vectors}
      if (written.size() != 2) return false;
      const bool load = m[1] == "ld";
      const size_t lanes = m[2].matched ? std::stoul(m[2]) : 1, bytes = std::stoul(m[4]) / 8;
      std::string at = written[load ? 1 : 0];
      at.erase(std::remove(at.begin(), at.end(), ' '), at.end());
      const auto listed = registers_of(written[load ? 0 : 1], false);
      if (!listed) return false;
      const std::vector<CXCursor>& registers = *listed;
      std::smatch a;
      static const std::regex address(R"(^\[(%\d+)(?:\+(\d+))?\]$)");
      if (registers.size() != lanes || !std::regex_match(at, a, address)) return false;
      const auto base = operand(a[1]);
      if (!base || !is_pointer(clang_getCursorType(strip_casts(*base)))) return false;
      const CXCursor pointer = strip_casts(*base);
      const std::string offset = a[2].matched ? std::string(a[2]) : "";
      // The registers' type, whose bits the access moves (a .b32 load into a float is the float's bits).
      const CXType element = clang_getCanonicalType(clang_getCursorType(registers[0]));
      if (clang_Type_getSizeOf(element) != (long long)bytes) return false;
      for (CXCursor r : registers)
        if (!clang_equalTypes(clang_getCanonicalType(clang_getCursorType(r)), element)) return false;
      const std::string type = metal_type(element);
      if (load) helpers_.insert("ks_ro_cast");
      pieces.push_back([this, condition, load, registers, pointer, offset, type] {
        const std::string p = rw_.render(begin_offset(pointer), end_offset(pointer));
        std::string out = condition() + "{ auto ks_at = ";
        if (load)
          out += offset.empty() ? "ks_ro_cast<" + type + ">(" + p + "); "
                                : "ks_ro_cast<" + type + ">(ks_ro_cast<uchar>(" + p + ") + " + offset + "); ";
        else
          out += offset.empty() ? "(device " + type + "*)(" + p + "); " : "(device " + type + "*)((device uchar*)(" + p + ") + " + offset + "); ";
        for (size_t i = 0; i < registers.size(); ++i) {
          const std::string r = rw_.render(begin_offset(registers[i]), end_offset(registers[i]));
          out += load ? fmt::format("{} = ks_at[{}]; ", r, i) : fmt::format("ks_at[{}] = {}; ", i, r);
        }
        return out + "}";
      });
      ++fn.record.translated[std::string("ptx ") + (load ? "ld.global" : "st.global")];
      continue;
    }
    if (std::regex_match(mnemonic, m, matrix_multiply)) {  // {d}, {a}, {b}, {c}
      const int k = std::stoi(m[1]);
      const std::string accumulated = m[2], input = m[3], added = m[5];
      static const std::map<std::string, std::pair<std::string, int>> kInputs = {  // Metal type, k per register block
          {"f16", {"half", 8}}, {"bf16", {"bfloat", 8}}, {"tf32", {"float", 4}}, {"s8", {"char", 16}}, {"u8", {"uchar", 16}}};
      const bool integer = accumulated == "s32", wide = accumulated != "f16" && added != "f16";
      const int per_block = kInputs.at(input).second, blocks = k / per_block;
      // A and B of one type (of any integer types), k one or two blocks, f16 accumulators only of f16 inputs
      if ((m[3] != m[4] && !(integer && kInputs.at(m[4]).second == 16)) || (input[0] == 's' || input[0] == 'u') != integer ||
          integer != (added == "s32") || blocks * per_block != k || blocks < 1 || blocks > 2 || (input != "f16" && !wide) ||
          written.size() != 4)
        return false;
      const auto d = registers_of(written[0], true), a = registers_of(written[1], true), b = registers_of(written[2], true),
                 c = registers_of(written[3], true);
      if (!d || !a || !b || !c || d->size() != (accumulated == "f16" ? 2u : 4u) || a->size() != size_t(2 * blocks) || b->size() != size_t(blocks) ||
          c->size() != (added == "f16" ? 2u : 4u))
        return false;
      const std::string types = fmt::format("{}, {}, {}, {}", blocks, kInputs.at(input).first, kInputs.at(m[4]).first,
                                            integer ? "int" : "float");
      pieces.push_back([=, d = *d, a = *a, b = *b, c = *c] {
        auto list = [&](const std::vector<CXCursor>& registers) {
          std::string out;
          for (CXCursor r : registers) out += (out.empty() ? "" : ", ") + bits_of(r);
          return out;
        };
        // the accumulator's four values, read as floats or ints (a register of the other kind gives its bits)
        std::string sum;
        if (added == "f16") {
          sum = "ks_mma_f16_accumulator(" + list(c) + ")";
        } else {
          for (CXCursor r : c)
            sum += (sum.empty() ? "" : ", ") +
                   (is_float(r) == !integer ? (integer ? "int(" : "(") + rendered(r) + ")"
                                            : std::string(integer ? "as_type<int>(" : "as_type<float>(") + bits_of(r) + ")");
          sum = (integer ? "int4(" : "float4(") + sum + ")";
        }
        std::string out = fmt::format("{{ const uint ks_a[{}] = {{{}}}; const uint ks_b[{}] = {{{}}}; ", a.size(), list(a), b.size(), list(b));
        out += fmt::format("const auto ks_d = ks_mma<{}>(ks_a, ks_b, {}, ushort{}); ", types, sum, lane);
        for (size_t i = 0; i < d.size(); ++i) {
          const std::string at = "ks_d[" + std::to_string(i) + "]";
          if (accumulated == "f16")
            out += assign_bits(d[i], i == 0 ? "ks_mma_f16_pair(ks_d.xy)" : "ks_mma_f16_pair(ks_d.zw)");
          else if (is_float(d[i]) == !integer)
            out += rendered(d[i]) + " = " + at + "; ";
          else
            out += assign_bits(d[i], "as_type<uint>(" + at + ")");
        }
        return out + "}";
      });
      helpers_.insert("ks_mma");
      names_builtins(lane);
      ++fn.record.translated["ptx mma.sync"];
      continue;
    }
    if (std::regex_match(mnemonic, m, matrix_load)) {  // ldmatrix {r}, [shared address]; stmatrix [shared address], {r}
      const bool load = m[1] == "ld";
      const std::string name = std::string(m[1]) + "matrix";
      std::set<std::string> qualifiers;
      std::string count_qualifier;
      for (std::stringstream list(std::string(m[2]).substr(1)); list.good();) {
        std::string q;
        std::getline(list, q, '.');
        if (q.size() == 2 && q[0] == 'x') count_qualifier = q;
        qualifiers.insert(q == "shared::cta" ? "shared" : q.size() == 2 && q[0] == 'x' ? "x" : q);
      }
      if (qualifiers != std::set<std::string>{"m8n8", "x", "shared", "b16"} &&
          qualifiers != std::set<std::string>{"m8n8", "x", "trans", "shared", "b16"})
        return false;
      const size_t count = std::stoul(count_qualifier.substr(1));
      const bool transposed = qualifiers.count("trans") > 0;
      const auto r = written.size() == 2 ? registers_of(written[load ? 0 : 1], true) : std::nullopt;
      const auto address = written.size() == 2 ? operand(bare(written[load ? 1 : 0])) : std::nullopt;
      if (!r || r->size() != count || !address) return false;
      const auto [pointer, offsets] = shared_operand(*address);
      if (clang_Cursor_isNull(pointer)) {
        problem(problems, statement, name,
                "its shared address is not followed back to its array: give the operand as __cvta_generic_to_shared(&array[i]) "
                "(plus a byte offset), or a variable initialized so and used only in asm statements");
        return true;
      }
      pieces.push_back([=, r = *r, pointer = pointer, offsets = offsets] {
        const std::string at = fmt::format("(threadgroup {}uchar*)({}){}", load ? "const " : "", rendered(pointer), rendered_offsets(offsets));
        std::string out = fmt::format("{{ uint ks_r[{}]; ", count);
        if (load) {
          out += fmt::format("ks_ldmatrix<{}, {}>(ks_r, {}, ushort{}); ", count, transposed, at, lane);
          for (size_t i = 0; i < r.size(); ++i) out += assign_bits(r[i], "ks_r[" + std::to_string(i) + "]");
        } else {
          for (size_t i = 0; i < r.size(); ++i) out += fmt::format("ks_r[{}] = {}; ", i, bits_of(r[i]));
          out += fmt::format("ks_stmatrix<{}, {}>({}, ks_r, ushort{}); ", count, transposed, at, lane);
        }
        return out + "}";
      });
      helpers_.insert("ks_" + name);
      names_builtins(lane);
      ++fn.record.translated["ptx " + name];
      continue;
    }
    // mov.b32 / mov.b64 between a register and a vector of its two halves (`mov.b32 %0, {%1, %2};` packs two 16-bit
    // registers, the first the low half; `mov.b32 {%0, %1}, %2;` unpacks): the bits move, whatever the registers' types.
    if ((mnemonic == "mov.b32" || mnemonic == "mov.b64") && written.size() == 2 &&
        (bare(written[0]).front() == '<' || bare(written[1]).front() == '<')) {
      const bool pack = bare(written[1]).front() == '<';
      const auto halves = registers_of(written[pack ? 1 : 0], false), whole = registers_of(written[pack ? 0 : 1], false);
      const std::string wide = mnemonic == "mov.b32" ? "uint" : "ulong", half = mnemonic == "mov.b32" ? "ushort" : "uint";
      const long long half_bytes = mnemonic == "mov.b32" ? 2 : 4;
      if (!halves || !whole || halves->size() != 2 || whole->size() != 1 ||
          clang_Type_getSizeOf(clang_getCanonicalType(clang_getCursorType(whole->front()))) != 2 * half_bytes)
        return false;
      for (CXCursor h : *halves)
        if (clang_Type_getSizeOf(clang_getCanonicalType(clang_getCursorType(h))) != half_bytes) return false;
      pieces.push_back([=, this, halves = *halves, whole = whole->front()] {
        auto type_of = [this](CXCursor e) { return metal_type(clang_getCanonicalType(clang_getCursorType(e))); };
        if (pack)
          return fmt::format("{} = as_type<{}>(as_type<{}>(vec<{}, 2>(as_type<{}>({}), as_type<{}>({}))))", rendered(whole), type_of(whole),
                             wide, half, half, rendered(halves[0]), half, rendered(halves[1]));
        return fmt::format("{{ const vec<{}, 2> ks_h = as_type<vec<{}, 2>>(as_type<{}>({})); {} = as_type<{}>(ks_h.x); {} = as_type<{}>(ks_h.y); }}",
                           half, half, wide, rendered(whole), rendered(halves[0]), type_of(halves[0]), rendered(halves[1]),
                           type_of(halves[1]));
      });
      ++fn.record.translated["ptx " + mnemonic + (pack ? " (pack)" : " (unpack)")];
      continue;
    }
    std::vector<std::function<std::string()>> values;
    for (const std::string& w : written) {
      const auto v = value(w);
      if (!v) return false;
      values.push_back(*v);
    }
    if (std::regex_match(mnemonic, copy)) {  // [dst], [src], size[, source size]
      if (written.size() < 3 || written.size() > 4) return false;
      const auto dst = operand(bare(written[0])), src = operand(bare(written[1]));
      if (!dst || !src) return false;
      const auto [pointer, offsets] = shared_operand(*dst);
      if (clang_Cursor_isNull(pointer)) {
        problem(problems, statement, "cp.async",
                "its shared address is not followed back to its array: give the operand as __cvta_generic_to_shared(&array[i]) "
                "(plus a byte offset), or a variable initialized so and used only in asm statements");
        return true;
      }
      const CXCursor source = strip_casts(*src);
      // A void* source is read in the destination's elements (ks_ro_cast), as the copies of calls.cpp.
      const CXType copied = clang_getCanonicalType(pointee_type(clang_getCursorType(pointer)));
      const bool untyped = is_pointer(clang_getCursorType(source)) &&
                           clang_getCanonicalType(pointee_type(clang_getCursorType(source))).kind == CXType_Void;
      if (!is_pointer(clang_getCursorType(source)) || (untyped && (copied.kind == CXType_Void || copied.kind == CXType_Invalid))) {
        problem(problems, statement, "cp.async",
                "its global operand is not a pointer to the copied elements: give it as one (\"l\"(src) with src a float*, float4*)");
        return true;
      }
      const std::string reinterpreted = untyped ? "ks_ro_cast<" + metal_type(copied) + ">" : "";
      if (untyped) helpers_.insert("ks_ro_cast");
      const auto size = values[2];
      const auto zero_filled = written.size() == 3 ? std::function<std::string()>([] { return std::string("0"); })
                                                   : std::function<std::string()>([size, source_size = values[3]] {
                                                       return size() + " - " + source_size();
                                                     });
      pieces.push_back([=, pointer = pointer, offsets = offsets] {
        return condition() + "ks_memcpy_async((threadgroup uchar*)(" + rendered(pointer) + ")" + rendered_offsets(offsets) + ", " +
               reinterpreted + "(" + rendered(source) + "), ulong(" + size() + "), ulong(" + zero_filled() + "))";
      });
      ++copies;
      continue;
    }
    const auto mapping = maps_.functions.find("ptx:" + mnemonic);
    if (mapping == maps_.functions.end()) return false;
    const std::string pattern = mapping->second.metal;
    for (size_t at = pattern.find('$'); at != std::string::npos; at = pattern.find('$', at + 1))  // as many operands as it names
      if (at + 1 < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[at + 1])) && size_t(pattern[at + 1] - '0') > values.size())
        return false;
    names_builtins(pattern + (instruction.find("%lane") != std::string::npos ? lane : ""));
    ++fn.record.translated["ptx " + mnemonic];
    if (pattern.empty()) continue;  // a hint (prefetch)
    pieces.push_back([condition, pattern, values] {
      std::string s = pattern;
      for (size_t i = values.size(); i >= 1; --i)
        for (size_t at; (at = s.find("$" + std::to_string(i))) != std::string::npos;) s.replace(at, 2, values[i - 1]());
      return condition() + s;
    });
  }
  if (copies > 0) {
    helpers_.insert("ks_memcpy_async");
    fn.record.translated["cp.async"] += int(copies);
  }
  if (copies == 0 && pieces.empty()) ++fn.record.translated["cp.async commit/wait, prefetch (dropped)"];
  rw_.replace(begin_offset(statement), end_offset(statement), [pieces] {
    std::string out;
    for (const auto& piece : pieces) out += piece() + "; ";
    // one statement takes the asm statement's own `;`
    return pieces.size() == 1 ? pieces[0]() : pieces.empty() ? std::string() : "{ " + out + "}";
  });
  for (CXCursor k : operands) visit(k, fn);
  return true;
}

}  // namespace ksearch::translate::detail
