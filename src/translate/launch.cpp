#include "translate/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "translate/clang_util.hpp"

namespace ksearch::translate {

namespace {

// The macro whose use `c` is written in (the identifier where its expansion starts), or "".
std::string macro_of(CXTranslationUnit unit, CXCursor c) {
  CXFile file = nullptr;
  unsigned offset = 0;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), &file, nullptr, nullptr, &offset);
  size_t size = 0;
  const char* text = file ? clang_getFileContents(unit, file, &size) : nullptr;
  std::string name;
  while (text && offset < size && (std::isalnum(static_cast<unsigned char>(text[offset])) || text[offset] == '_')) name += text[offset++];
  return name;
}

// Where an expression is, and what it is in words (libclang's kind names, `MemberRefExpr`, are no user's).
std::string what(CXCursor c) {
  static const std::map<CXCursorKind, const char*> words = {
      {CXCursor_CallExpr, "a call"}, {CXCursor_MemberRefExpr, "a member"}, {CXCursor_DeclRefExpr, "a name"},
      {CXCursor_UnaryOperator, "an operator"}, {CXCursor_BinaryOperator, "an operator"},
      {CXCursor_CompoundAssignOperator, "an assignment"}, {CXCursor_ConditionalOperator, "a conditional"},
      {CXCursor_ArraySubscriptExpr, "an element"}, {CXCursor_CStyleCastExpr, "a cast"}, {CXCursor_CXXStaticCastExpr, "a cast"},
      {CXCursor_InitListExpr, "a brace list"}, {CXCursor_LambdaExpr, "a lambda"}};
  const Position p = position(c);
  const auto word = words.find(clang_getCursorKind(c));
  return fmt::format("line {}: {}", p.line, word != words.end() ? word->second : "an expression");
}

// The initializer of a variable declaration (its last expression child), or a null cursor.
CXCursor initializer(CXCursor var) {
  std::vector<CXCursor> kids = children(var);
  for (auto it = kids.rbegin(); it != kids.rend(); ++it)
    if (clang_isExpression(clang_getCursorKind(*it))) return *it;
  return clang_getNullCursor();
}

bool is_dim3(CXType t) {
  const std::string name = take(clang_getTypeSpelling(clang_getCanonicalType(t)));
  return name.find("dim3") != std::string::npos || name.find("uint3") != std::string::npos;
}

// What an assignment's left side names: a variable of the entry, and the dim3 field (-1: all of
// it, -2: a member of a member, which is not followed) or the struct field (`member`).
struct Target {
  CXCursor var = clang_getNullCursor();
  int field = -1;
  std::string member;
};

Target target_of(CXCursor lhs) {
  Target t;
  CXCursor c = strip_casts(lhs);
  if (clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr) {  // an element of a variable (of its field) is not followed
    std::vector<CXCursor> kids = children(c);
    if (!kids.empty()) {
      const Target array = target_of(kids[0]);
      t.var = array.var;
      t.member = array.member;
    }
    t.field = -2;
    return t;
  }
  if (clang_getCursorKind(c) == CXCursor_MemberRefExpr) {
    std::vector<CXCursor> kids = children(c);
    if (kids.empty()) return t;
    const std::string m = spelling(c);
    CXCursor base = strip_casts(kids[0]);
    if (is_dim3(clang_getCursorType(base)) && (m == "x" || m == "y" || m == "z")) t.field = m[0] - 'x';
    else if (clang_getCursorKind(base) == CXCursor_DeclRefExpr) t.member = m;
    else {  // a member of a member (`p.in.data`): not followed
      Target outer = target_of(base);
      outer.field = -2;
      return outer;
    }
    c = base;
  }
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return t;
  CXCursor decl = clang_getCursorReferenced(c);
  if (clang_getCursorKind(decl) == CXCursor_VarDecl || clang_getCursorKind(decl) == CXCursor_ParmDecl) t.var = decl;
  return t;
}

bool is_assignment(const std::string& op) {
  return !op.empty() && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=";
}

// `++` or `--` where a unary operator increments or decrements (before its operand or after it), else "".
std::string increment_of(CXTranslationUnit unit, CXCursor unary) {
  if (clang_getCursorKind(unary) != CXCursor_UnaryOperator) return "";
  const std::vector<std::string> tokens = tokens_of(unit, unary);
  for (const std::string& op : {tokens.empty() ? "" : tokens.front(), tokens.empty() ? "" : tokens.back()})
    if (op == "++" || op == "--") return op;
  return "";
}

// Whether an expression writes its operand itself: an assignment (`=`, `op=`) or an increment.
bool is_write(CXTranslationUnit unit, CXCursor e) {
  const CXCursorKind kind = clang_getCursorKind(e);
  return kind == CXCursor_CompoundAssignOperator || (kind == CXCursor_BinaryOperator && is_assignment(operator_of(unit, e))) ||
         !increment_of(unit, e).empty();
}

// The answers a device query of the host gets where the port sizes launches (`cudaDeviceGetAttribute(&sms,
// cudaDevAttrMultiProcessorCount, device)`, cudaGetDeviceProperties' fields, the occupancy API): an Apple GPU of the
// M-series base size as CUDA would describe it, 10 cores (SMs) of at most 1024 threads a threadgroup and 32 KiB of
// threadgroup memory, SIMD groups of 32. Code that sizes a grid from them stays correct for any positive answer, as
// it must on CUDA's GPUs, whose counts differ; only the grid's size (the kernel's speed) depends on them.
const std::map<std::string, int>& device_answers() {
  static const std::map<std::string, int> answers = {
      {"multiProcessorCount", 10},      {"maxThreadsPerBlock", 1024},       {"maxThreadsPerMultiProcessor", 1024},
      {"warpSize", 32},                 {"sharedMemPerBlock", 32768},       {"sharedMemPerBlockOptin", 32768},
      {"sharedMemPerMultiprocessor", 32768}, {"maxBlocksPerMultiProcessor", 4}, {"regsPerBlock", 65536}};
  return answers;
}
// cudaOccupancyMaxPotentialBlockSize's block size: a common one, well inside the threads a threadgroup may have.
constexpr int kPotentialBlockSize = 256;
// cudaDeviceGetAttribute's attributes by the property each names.
const std::map<std::string, std::string>& device_attributes() {
  static const std::map<std::string, std::string> attributes = {
      {"cudaDevAttrMultiProcessorCount", "multiProcessorCount"},
      {"cudaDevAttrMaxThreadsPerBlock", "maxThreadsPerBlock"},
      {"cudaDevAttrMaxThreadsPerMultiProcessor", "maxThreadsPerMultiProcessor"},
      {"cudaDevAttrWarpSize", "warpSize"},
      {"cudaDevAttrMaxSharedMemoryPerBlock", "sharedMemPerBlock"},
      {"cudaDevAttrMaxSharedMemoryPerBlockOptin", "sharedMemPerBlockOptin"},
      {"cudaDevAttrMaxSharedMemoryPerMultiprocessor", "sharedMemPerMultiprocessor"},
      {"cudaDevAttrMaxBlocksPerMultiprocessor", "maxBlocksPerMultiProcessor"},
      {"cudaDevAttrMaxRegistersPerBlock", "regsPerBlock"}};
  return attributes;
}

// The function a call names (in a template, where the call depends on its parameters, the overloads named; for a
// lambda's call, the variable that holds the lambda).
std::string called_name(CXCursor call) {
  const CXCursor declaration = called_declaration(call);
  if (is_lambda_operator(declaration) && object_arguments(call, declaration) == 1) {
    const CXCursor object = strip_implicit(clang_Cursor_getArgument(call, 0));
    if (clang_getCursorKind(object) == CXCursor_DeclRefExpr) return spelling(object);
  }
  return spelling(declaration);
}

// The queries device_query answers.
bool is_device_query(CXCursor call) {
  static const std::set<std::string> queries = {"cudaGetDevice", "cudaDeviceGetAttribute", "cudaGetDeviceProperties",
                                                "cudaFuncGetAttributes", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                                                "cudaOccupancyMaxPotentialBlockSize"};
  return clang_getCursorKind(call) == CXCursor_CallExpr && queries.count(called_name(call));
}

// A for statement's header parts (libclang leaves out the empty ones), told apart by the semicolons between them.
struct LoopParts {
  CXCursor init = clang_getNullCursor(), condition = clang_getNullCursor(), step = clang_getNullCursor(),
           body = clang_getNullCursor();
};

std::optional<LoopParts> loop_parts(CXTranslationUnit unit, CXCursor loop) {
  const std::vector<CXCursor> kids = children(loop);
  LoopParts parts;
  if (clang_getCursorKind(loop) == CXCursor_WhileStmt) {
    if (kids.size() != 2 || !clang_isExpression(clang_getCursorKind(kids[0]))) return std::nullopt;  // (`while (T v = ...)`)
    parts.condition = kids[0];
    parts.body = kids[1];
    return parts;
  }
  if (clang_getCursorKind(loop) != CXCursor_ForStmt || kids.empty()) return std::nullopt;
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(loop), &tokens, &n);
  std::vector<unsigned> semicolons;  // the header's two, at parenthesis depth 1
  int depth = 0;
  for (unsigned i = 0; i < n && semicolons.size() < 2; ++i) {
    const std::string t = take(clang_getTokenSpelling(unit, tokens[i]));
    if (t == "(") ++depth;
    else if (t == ")") --depth;
    else if (t == ";" && depth == 1) {
      unsigned offset = 0;
      clang_getSpellingLocation(clang_getRangeStart(clang_getTokenExtent(unit, tokens[i])), nullptr, nullptr, nullptr, &offset);
      semicolons.push_back(offset);
    }
  }
  clang_disposeTokens(unit, tokens, n);
  if (semicolons.size() != 2) return std::nullopt;
  parts.body = kids.back();
  for (size_t i = 0; i + 1 < kids.size(); ++i) {
    const unsigned at = begin_offset(kids[i]);
    (at < semicolons[0] ? parts.init : at < semicolons[1] ? parts.condition : parts.step) = kids[i];
  }
  return parts;
}

// `v += c`, `++v`, `v <<= c`, `v = v * c`, ...: the variable a loop steps, how (+ - * / << >>) and by what constant.
struct Step {
  Target target;
  std::string op;
  long long by = 0;
};

std::optional<Step> step_of(CXTranslationUnit unit, CXCursor e) {
  e = strip_implicit(e);
  const std::vector<CXCursor> kids = children(e);
  const CXCursorKind kind = clang_getCursorKind(e);
  Step step;
  if (kind == CXCursor_UnaryOperator && kids.size() == 1) {
    const std::string op = increment_of(unit, e);
    if (op.empty()) return std::nullopt;
    step = {target_of(kids[0]), op.substr(0, 1), 1};
  } else if (kind == CXCursor_CompoundAssignOperator && kids.size() == 2) {
    const std::string op = operator_of(unit, e);
    const auto by = integer_constant(kids[1]);
    if (!by) return std::nullopt;
    step = {target_of(kids[0]), op.substr(0, op.size() - 1), *by};
  } else if (kind == CXCursor_BinaryOperator && kids.size() == 2 && operator_of(unit, e) == "=") {
    const CXCursor value = strip_casts(kids[1]);
    const std::vector<CXCursor> operands = children(value);
    if (clang_getCursorKind(value) != CXCursor_BinaryOperator || operands.size() != 2) return std::nullopt;
    const Target t = target_of(kids[0]);
    const std::string op = operator_of(unit, value);
    auto names = [&](CXCursor operand) { return !clang_Cursor_isNull(t.var) && clang_equalCursors(target_of(operand).var, t.var); };
    const bool commutes = op == "+" || op == "*";
    if (names(operands[0]) && integer_constant(operands[1])) step = {t, op, *integer_constant(operands[1])};
    else if (commutes && names(operands[1]) && integer_constant(operands[0])) step = {t, op, *integer_constant(operands[0])};
    else return std::nullopt;
  } else {
    return std::nullopt;
  }
  static const std::set<std::string> ops = {"+", "-", "*", "/", "<<", ">>"};
  const bool moves = (step.op == "+" || step.op == "-") ? step.by != 0 : (step.op == "<<" || step.op == ">>") ? step.by > 0 : step.by > 1;
  const CXTypeKind type = clang_getCanonicalType(clang_getCursorType(step.target.var)).kind;
  if (!ops.count(step.op) || !moves || step.target.field != -1 || !step.target.member.empty() || !is_integer_kind(type))
    return std::nullopt;
  return step;
}

// v_i, the value after i steps from v (false where its magnitude passes `most`, by default int64's).
bool stepped(const std::string& op, long long by, long long v, long long i, long long& out, __int128 most = INT64_MAX) {
  __int128 x = v;
  for (long long k = 0; k < i; ++k) {
    if (op == "+") x += by;
    else if (op == "-") x -= by;
    else if (op == "*") x *= by;
    else if (op == "/") x /= by;
    else if (op == "<<") x *= __int128(1) << std::min<long long>(by, 64);
    else x >>= std::min<long long>(by, 127);
    if (x > most || x < -most - 1) return false;
  }
  out = static_cast<long long>(x);
  return true;
}

struct Collector {
  HostScope& scope;
  std::vector<std::pair<CXCursor, bool>> guards;
  std::string context;  // why an assignment here is not followed (in a loop, a switch)

  // A device query writing its answers through the addresses it is given (device_answers), or cudaDeviceGetAttribute
  // of an attribute the port has no answer for, reported with why; false for another call, or a query not given the
  // address of a local, which is then reported as any call taking an address is.
  bool device_query(CXCursor call) {
    if (!is_device_query(call)) return false;
    const std::string name = called_name(call);
    const int count = clang_Cursor_getNumArguments(call);
    auto address_of = [&](int i) {
      const CXCursor arg = strip_casts(clang_Cursor_getArgument(call, unsigned(i)));
      return clang_getCursorKind(arg) == CXCursor_UnaryOperator && tokens_of(scope.unit, arg).front() == "&" ? target_of(children(arg).at(0))
                                                                                                              : Target{};
    };
    auto answer = [&](const Target& t, int value) {
      if (clang_Cursor_isNull(t.var)) return false;
      add(call, t, "=", clang_getNullCursor(), "", std::to_string(value));
      return true;
    };
    const auto& answers = device_answers();
    if (name == "cudaGetDevice" && count == 1) return answer(address_of(0), 0);
    if (name == "cudaDeviceGetAttribute" && count == 3) {
      const CXCursor attribute = strip_casts(clang_Cursor_getArgument(call, 1));
      const auto property = device_attributes().find(spelling(clang_getCursorReferenced(attribute)));
      if (property != device_attributes().end()) return answer(address_of(0), answers.at(property->second));
      const Target t = address_of(0);
      if (clang_Cursor_isNull(t.var)) return false;
      add(call, t, "", clang_getNullCursor(),
          "cudaDeviceGetAttribute writes it an attribute the port has no Metal answer for (it answers the SM count, the "
          "warp size, the threads and shared memory of a block or an SM and the blocks per SM)");
      return true;
    }
    if (name == "cudaGetDeviceProperties" && count == 2) {
      Target t = address_of(0);
      if (clang_Cursor_isNull(t.var) || !t.member.empty() || t.field != -1) return false;
      for (const auto& [field, value] : answers) {
        t.member = field;
        answer(t, value);
      }
      return true;
    }
    // a kernel's limits: the threads and dynamic shared memory a threadgroup may have (its registers, static shared
    // and local memory are the Metal compiler's: no answer, so a launch reading them is reported)
    if (name == "cudaFuncGetAttributes" && count == 2) {
      Target t = address_of(0);
      if (clang_Cursor_isNull(t.var) || !t.member.empty() || t.field != -1) return false;
      for (const auto& [field, property] : {std::pair{"maxThreadsPerBlock", "maxThreadsPerBlock"},
                                            std::pair{"maxDynamicSharedSizeBytes", "sharedMemPerBlockOptin"}}) {
        t.member = field;
        answer(t, answers.at(property));
      }
      return true;
    }
    if (name == "cudaOccupancyMaxActiveBlocksPerMultiprocessor" && count >= 3)
      return answer(address_of(0), answers.at("maxBlocksPerMultiProcessor"));
    if (name == "cudaOccupancyMaxPotentialBlockSize" && count >= 3) {
      const Target grid = address_of(0), block = address_of(1);
      if (clang_Cursor_isNull(grid.var) || clang_Cursor_isNull(block.var)) return false;
      answer(grid, answers.at("multiProcessorCount") * answers.at("maxBlocksPerMultiProcessor"));
      return answer(block, kPotentialBlockSize);
    }
    return false;
  }

  void add(CXCursor at, const Target& t, const std::string& op, CXCursor value, std::string why, const std::string& answer = "") {
    if (clang_Cursor_isNull(t.var)) return;
    if (why.empty() && !context.empty()) why = context;
    else if (why.empty() && t.field == -2)
      why = "a member or an element of it is assigned (give it its value where it is declared instead, a struct by a brace "
            "list: `Pack p{{x, w}, y};`)";
    Assignment a;
    a.at = end_offset(at);
    a.line = position(at).line;
    a.field = t.field;
    a.member = t.member;
    a.guards = guards;
    if (why.empty()) {
      a.op = op;
      a.value = value;
      a.answer = answer;
    } else {
      a.why = std::move(why);
    }
    scope.assignments[decl_key(t.var)].push_back(a);
  }

  // A loop that only steps one integer variable while a condition holds (`while (log2 < 15 && (2 << log2) <= cols)
  // ++log2;`, `for (b = 32; b < n && b < 1024; b *= 2) {}`): an assignment of op "loop" that value_at follows
  // through its steps. The steps are bounded by the condition's comparisons of the variable with constants, from a
  // constant start, or by the int64 range for a loop that multiplies, shifts or divides. False for another loop.
  bool counting_loop(CXCursor loop) {
    const auto parts = loop_parts(scope.unit, loop);
    if (!parts || clang_Cursor_isNull(parts->condition)) return false;
    CXCursor statement = clang_Cursor_isNull(parts->step) ? parts->body : parts->step;
    if (!clang_Cursor_isNull(parts->step)) {  // a for loop stepping in its header: an empty body
      const CXCursorKind body = clang_getCursorKind(parts->body);
      if (!(body == CXCursor_NullStmt || (body == CXCursor_CompoundStmt && children(parts->body).empty()))) return false;
    }
    while (clang_getCursorKind(statement) == CXCursor_CompoundStmt && children(statement).size() == 1) statement = children(statement)[0];
    const auto step = step_of(scope.unit, statement);
    if (!step || clang_Cursor_isNull(step->target.var)) return false;
    // The condition only reads.
    bool writes = false;
    std::pair<CXTranslationUnit, bool*> check(scope.unit, &writes);
    clang_visitChildren(
        parts->condition,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* d = static_cast<std::pair<CXTranslationUnit, bool*>*>(data);
          if (is_write(d->first, c)) *d->second = true;
          return CXChildVisit_Recurse;
        },
        &check);
    if (writes) return false;
    if (!clang_Cursor_isNull(parts->init)) node(parts->init);
    const std::string key = decl_key(step->target.var);
    // The start, where it is a constant: the last assignment's value, or the initializer's.
    std::optional<long long> start;
    if (auto a = scope.assignments.find(key); a != scope.assignments.end() && !a->second.empty()) {
      const Assignment& last = a->second.back();
      if (last.op == "=" && last.guards.empty() && last.answer.empty()) start = integer_constant(last.value);
      else if (last.op == "=" && last.guards.empty()) start = std::stoll(last.answer);
    } else if (clang_getCursorKind(step->target.var) == CXCursor_VarDecl) {
      start = integer_constant(initializer(step->target.var));
    }
    // The comparisons of the variable with constants that the condition's && requires.
    std::vector<std::pair<std::string, long long>> limits;  // (`v op constant`)
    std::function<void(CXCursor)> conjuncts = [&](CXCursor e) {
      e = strip_implicit(e);
      while (clang_getCursorKind(e) == CXCursor_ParenExpr && !children(e).empty()) e = strip_implicit(children(e)[0]);
      const std::vector<CXCursor> kids = children(e);
      if (clang_getCursorKind(e) != CXCursor_BinaryOperator || kids.size() != 2) return;
      const std::string op = operator_of(scope.unit, e);
      if (op == "&&") {
        conjuncts(kids[0]);
        conjuncts(kids[1]);
        return;
      }
      static const std::map<std::string, std::string> mirrored = {{"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}, {"!=", "!="}};
      if (!mirrored.count(op)) return;
      if (clang_equalCursors(target_of(kids[0]).var, step->target.var) && clang_getCursorKind(strip_casts(kids[0])) == CXCursor_DeclRefExpr)
        if (auto k = integer_constant(kids[1])) limits.push_back({op, *k});
      if (clang_equalCursors(target_of(kids[1]).var, step->target.var) && clang_getCursorKind(strip_casts(kids[1])) == CXCursor_DeclRefExpr)
        if (auto k = integer_constant(kids[0])) limits.push_back({mirrored.at(op), *k});
    };
    conjuncts(parts->condition);
    // A shift by the variable (`(1 << log2) < n`) is defined only below 64: a loop counting up must stop there.
    bool shift_count = false;
    int shift_bits = 64;  // the width of the narrowest type shifted by it
    std::function<void(CXCursor)> shifts = [&](CXCursor e) {
      const std::vector<CXCursor> kids = children(e);
      if (clang_getCursorKind(e) == CXCursor_BinaryOperator && kids.size() == 2) {
        const std::string op = operator_of(scope.unit, e);
        if (op == "<<" || op == ">>") {
          std::pair<CXCursor, bool*> search(step->target.var, &shift_count);
          clang_visitChildren(
              kids[1],
              [](CXCursor c, CXCursor, CXClientData data) {
                auto* d = static_cast<std::pair<CXCursor, bool*>*>(data);
                if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), d->first))
                  *d->second = true;
                return CXChildVisit_Recurse;
              },
              &search);
          if (shift_count) shift_bits = std::min(shift_bits, int(clang_Type_getSizeOf(clang_getCursorType(e)) * 8));
        }
      }
      for (CXCursor k : kids) shifts(k);
    };
    shifts(parts->condition);
    if (shift_count && step->op == "+" && step->by > 0 && shift_bits > 0) limits.push_back({"<", shift_bits});
    auto holds = [&](long long v) {
      return std::all_of(limits.begin(), limits.end(), [&](const auto& l) {
        return l.first == "<" ? v < l.second : l.first == "<=" ? v <= l.second : l.first == ">" ? v > l.second : l.first == ">=" ? v >= l.second : v != l.second;
      });
    };
    constexpr int kMostSteps = 64;  // (the value is written as conditionals nested as deep)
    int steps = kMostSteps + 1;
    if (start && !limits.empty()) {
      long long v = 0;
      for (int i = 0; i <= kMostSteps; ++i)
        if (!stepped(step->op, step->by, *start, i, v) || !holds(v)) {
          steps = i;
          break;
        }
    }
    // A product or shift leaves the variable type's range, and a quotient or right shift reaches 0 (where it stays),
    // within a few dozen steps from any start: where `by` to the i-th power (times a constant start) overflows it.
    const CXType type = clang_getCanonicalType(clang_getCursorType(step->target.var));
    const int bits = int(clang_Type_getSizeOf(type)) * 8;
    const bool is_signed = type.kind >= CXType_Char_S && type.kind <= CXType_Int128;
    const __int128 most = bits >= 64 ? __int128(is_signed ? INT64_MAX : UINT64_MAX) : (__int128(1) << (bits - (is_signed ? 1 : 0))) - 1;
    const long long from = step->op == "*" || step->op == "<<" ? std::max(1LL, start.value_or(1)) : 1;
    int range = kMostSteps + 1;
    if (step->op != "+" && step->op != "-")
      for (int i = 1; i <= 64; ++i)
        if (long long v = 0; !stepped(step->op == "*" || step->op == "/" ? "*" : "<<", step->by, from, i, v, most)) {
          range = step->op == "*" || step->op == "<<" ? i - 1 : i;  // (v_range of a quotient is 0)
          break;
        }
    steps = std::min(steps, range);
    if (steps > kMostSteps) {
      add(loop, step->target, "", clang_getNullCursor(),
          fmt::format("it is stepped by a loop whose number of steps the port cannot bound by {} (compare it with a "
                      "constant in the condition, from a constant start)", kMostSteps));
      return true;
    }
    add(loop, step->target, "loop", parts->condition, "");
    Assignment& a = scope.assignments[key].back();
    if (a.op == "loop") {
      a.start = start;
      a.step_op = step->op;
      a.step = step->by;
      a.steps = steps;
    }
    return true;
  }

  void node(CXCursor c) {
    const CXCursorKind kind = clang_getCursorKind(c);
    std::vector<CXCursor> kids = children(c);
    if (kind == CXCursor_IfStmt && (kids.size() == 2 || kids.size() == 3) && clang_isExpression(clang_getCursorKind(kids[0]))) {
      node(kids[0]);
      for (size_t i = 1; i < kids.size(); ++i) {
        guards.push_back({kids[0], i == 1});
        node(kids[i]);
        guards.pop_back();
      }
      return;
    }
    if (kind == CXCursor_CallExpr && device_query(c)) return;  // (its `&v` arguments are no other writes)
    if ((kind == CXCursor_WhileStmt || kind == CXCursor_ForStmt) && context.empty() && counting_loop(c)) return;
    const std::string outer = context;
    if (kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt || kind == CXCursor_DoStmt || kind == CXCursor_CXXForRangeStmt)
      context = "it is assigned inside a loop";
    else if (kind == CXCursor_SwitchStmt || kind == CXCursor_IfStmt)
      context = "it is assigned inside a switch or an if with an initializer";
    else if (kind == CXCursor_LambdaExpr)
      context = "it is assigned inside a lambda";
    else if (kind == CXCursor_ConditionalOperator)
      context = "it is assigned inside a conditional expression";
    if ((kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) && kids.size() == 2) {
      const std::string op = operator_of(scope.unit, c);
      if (op == "&&" || op == "||") context = "it is assigned inside a conditional expression";
      if (is_assignment(op)) add(c, target_of(kids[0]), op, kids[1], "");
    } else if (kind == CXCursor_UnaryOperator && kids.size() == 1) {
      const std::vector<std::string> tokens = tokens_of(scope.unit, c);
      if (const std::string op = increment_of(scope.unit, c); !op.empty()) add(c, target_of(kids[0]), op, clang_getNullCursor(), "");
      else if (!tokens.empty() && tokens.front() == "&") add(c, target_of(kids[0]), "", clang_getNullCursor(), "its address is taken");
    } else if (kind == CXCursor_CallExpr && spelling(clang_getCursorReferenced(c)).rfind("operator", 0) == 0 &&
               clang_Cursor_getNumArguments(c) == 2 && is_assignment(spelling(clang_getCursorReferenced(c)).substr(8))) {
      // A struct's assignment operator (`p.in = Inputs{x, n};`).
      add(c, target_of(clang_Cursor_getArgument(c, 0)), spelling(clang_getCursorReferenced(c)).substr(8),
          clang_Cursor_getArgument(c, 1), "");
    } else if (kind == CXCursor_CallExpr) {
      // A call writes through an address or a non-const reference it is given.
      CXCursor callee = clang_getCursorReferenced(c);
      for (int i = 0; i < clang_Cursor_getNumArguments(c); ++i) {
        CXCursor arg = strip_casts(clang_Cursor_getArgument(c, unsigned(i)));
        CXCursor param = clang_Cursor_isNull(callee) ? clang_getNullCursor() : clang_Cursor_getArgument(callee, unsigned(i));
        CXType type = clang_getCursorType(param);
        if (clang_getCursorKind(arg) == CXCursor_UnaryOperator && tokens_of(scope.unit, arg).front() == "&")
          add(arg, target_of(children(arg).at(0)), "", clang_getNullCursor(), "its address is passed to '" + spelling(c) + "'");
        else if (!clang_Cursor_isNull(param) && clang_getCanonicalType(type).kind == CXType_LValueReference &&
                 !clang_isConstQualifiedType(pointee_type(type)))
          add(arg, target_of(arg), "", clang_getNullCursor(), "it is passed by reference to '" + spelling(c) + "'");
      }
    }
    for (CXCursor k : kids) node(k);
    context = outer;
  }
};

// Directive expressions of the values value_at combines.
ValueText directive_text(const HostScope& scope) {
  ValueText t;
  t.value = [&scope](CXCursor v, int field) {
    return "(" + (field >= 0 ? directive_dim3(v, scope)[size_t(field)] : directive_expression(v, scope)) + ")";
  };
  t.operand = [&scope](CXCursor c) { return directive_expression(c, scope); };
  // 2^bitlength(v) - 1 through the parser's clz64 (2v + 1 has one bit more than v, and no clz of 0 to avoid); a
  // negative signed value smears to -1.
  t.smear = [](const std::string& v, int bits, bool is_signed) {
    const std::string ones = bits <= 32 ? fmt::format("(2 ^ (63 - clz64(2 * ({}) + 1)) - 1)", v)
                                        : fmt::format("(({0}) == 0 ? 0 : 2 ^ (64 - clz64({0})) - 1)", v);
    return is_signed ? fmt::format("(({}) < 0 ? -1 : {})", v, ones) : ones;
  };
  t.binary = [](const std::string& op, const std::string& a, const std::string& b) {
    // Integer division and remainder: directive expressions are floating point, and rint(x - 0.5)
    // is floor(x) (exactly, for the integer quotients of launch sizes).
    if (op == "/") return fmt::format("rint(({}) / ({}) - 0.5)", a, b);
    if (op == "%") return fmt::format("(({}) - ({}) * rint(({}) / ({}) - 0.5))", a, b, a, b);
    if (op == "<<") return fmt::format("(({}) * 2 ^ ({}))", a, b);
    if (op == ">>") return fmt::format("rint(({}) / 2 ^ ({}) - 0.5)", a, b);
    // Bitwise operators as the task parser's functions over integers (docs/TASKS.md).
    if (op == "&" || op == "|" || op == "^") return fmt::format("{}({}, {})", op == "&" ? "bitand" : op == "|" ? "bitor" : "bitxor", a, b);
    static const std::vector<std::string> same = {"+", "-", "*", "<", ">", "<=", ">=", "==", "!=", "&&", "||"};
    for (const auto& s : same)
      if (op == s) return a + " " + op + " " + b;
    throw Error(fmt::format("operator '{}' is not supported in launch sizes", op));
  };
  return t;
}

}  // namespace

std::vector<CXCursor> fields_of(CXType record) {
  std::vector<CXCursor> fields;
  clang_Type_visitFields(
      clang_getCanonicalType(record),
      [](CXCursor field, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(field);
        return CXVisit_Continue;
      },
      &fields);
  return fields;
}

std::vector<CXCursor> brace_values(CXCursor e, const std::vector<CXCursor>& fields) {
  try {
    if (auto by_field = brace_fields(e, fields)) return *by_field;
  } catch (const Error&) {  // a designator or an elision brace_fields does not follow
  }
  std::vector<CXCursor> values = children(strip_implicit(e));
  values.resize(fields.size(), clang_getNullCursor());
  return values;
}

std::optional<std::vector<CXCursor>> brace_fields(CXCursor e, const std::vector<CXCursor>& fields) {
  e = strip_implicit(e);
  if (clang_getCursorKind(e) == CXCursor_CXXFunctionalCastExpr || clang_getCursorKind(e) == CXCursor_CompoundLiteralExpr) {
    const std::vector<CXCursor> kids = children(e);
    if (!kids.empty()) e = strip_implicit(kids.back());
  }
  if (clang_getCursorKind(e) != CXCursor_InitListExpr) return std::nullopt;
  std::vector<CXCursor> by_field(fields.size(), clang_getNullCursor());
  size_t next = 0;
  for (CXCursor element : children(e)) {
    std::vector<CXCursor> designators;  // `.x = x`: a member reference, then the value
    for (CXCursor k : children(element))
      if (clang_getCursorKind(k) == CXCursor_MemberRef) designators.push_back(k);
    const std::vector<std::string> tokens = tokens_of(clang_Cursor_getTranslationUnit(element), element);
    if (designators.size() > 1 || (designators.empty() && !tokens.empty() && tokens.front() == "["))
      throw Error(fmt::format("line {}: a designator of a member's member or of an element is not followed: name whole fields",
                              position(element).line));
    if (designators.size() == 1) {
      element = children(element).back();
      next = size_t(std::find_if(fields.begin(), fields.end(), [&](CXCursor f) { return spelling(f) == spelling(designators[0]); }) -
                    fields.begin());
    }
    if (next >= fields.size()) throw Error(fmt::format("line {}: more values than fields", position(element).line));
    // Brace elision (`{x, n, w}` for `{{x, n}, w}`) would give a nested struct's values to the outer fields.
    const CXType field_type = clang_getCanonicalType(clang_getCursorType(fields[next]));
    const CXCursor stripped = strip_implicit(element);
    if (field_type.kind == CXType_Record && clang_getCursorKind(stripped) != CXCursor_InitListExpr &&
        !clang_equalCursors(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(stripped))),
                            clang_getTypeDeclaration(field_type)))
      throw Error(fmt::format("line {}: the braces of the struct field '{}' are left out: write them", position(element).line,
                              spelling(fields[next])));
    by_field[next++] = element;
  }
  return by_field;
}

namespace {
// No initializer, or a call of a default constructor that sets nothing (`Plan plan;`): the fields take their default
// member initializers.
bool default_initialized(CXCursor init) {
  if (clang_Cursor_isNull(init)) return true;
  const CXCursor constructor = clang_getCursorReferenced(init);
  if (clang_getCursorKind(init) != CXCursor_CallExpr || clang_Cursor_getNumArguments(init) != 0 ||
      clang_getCursorKind(constructor) != CXCursor_Constructor)
    return false;
  const std::vector<CXCursor> parts = children(clang_getCursorDefinition(constructor));
  return std::all_of(parts.begin(), parts.end(), [](CXCursor part) {
    return clang_getCursorKind(part) == CXCursor_CompoundStmt && children(part).empty();
  });
}

// The value a struct of type `record` that `init` initializes gives its field `member`: what a brace list (`{rows,
// 256}`, `Plan{rows, 256}`) gives it, else the field's default member initializer (`int threads = 64;`) where the brace
// list leaves the field out or the struct is default-initialized; a null cursor for none.
CXCursor braced_field(CXCursor init, CXType record, const std::string& member) {
  const std::vector<CXCursor> fields = fields_of(record);
  const auto elements = clang_Cursor_isNull(init) ? std::nullopt : brace_fields(init, fields);
  for (size_t i = 0; i < fields.size(); ++i)
    if (spelling(fields[i]) == member) {
      if (elements && !clang_Cursor_isNull((*elements)[i])) return (*elements)[i];
      if (elements || default_initialized(init)) return initializer(fields[i]);
    }
  return clang_getNullCursor();
}
}  // namespace

CXCursor initial_field(CXCursor var, const std::string& member) {
  return braced_field(initializer(var), clang_getCursorType(var), member);
}

void collect_assignments(CXCursor entry, HostScope& scope) {
  Collector{scope, {}, ""}.node(entry);
  for (auto& [key, list] : scope.assignments)
    std::stable_sort(list.begin(), list.end(), [](const Assignment& a, const Assignment& b) { return a.at < b.at; });
}

namespace {
// The value a counting loop leaves (Collector::counting_loop): with v_i its value after i steps from `start`, the
// first v_i whose condition fails, as (c(v_0) ? (c(v_1) ? ... v_steps ... : v_1) : v_0).
std::string loop_value(const std::string& key, const Assignment& loop, const std::string& start, const HostScope& scope,
                       const ValueText& text) {
  std::vector<std::string> values{start};
  for (int i = 1; i <= loop.steps; ++i) {
    // the steps at once: +, - by i * step; *, / by step^i; <<, >> by i * step (a quotient past the int64 range is 0);
    // numbers from a constant start
    long long total = i * loop.step, value = 0;
    const bool power = loop.step_op == "*" || loop.step_op == "/";
    if (loop.start && stepped(loop.step_op, loop.step, *loop.start, i, value)) values.push_back(std::to_string(value));
    else if ((power && !stepped("*", loop.step, 1, i, total)) || (loop.step_op == ">>" && total >= 63)) values.push_back("0");
    else values.push_back(text.binary(loop.step_op, "(" + start + ")", std::to_string(total)));
  }
  if (loop.start) values[0] = std::to_string(*loop.start);
  const unsigned begin = begin_offset(loop.value), end = end_offset(loop.value);
  std::string value = values.back();
  try {
    for (int i = loop.steps - 1; i >= 0; --i) {
      scope.loop_values[key] = {values[size_t(i)], begin, end};
      const std::string holds = text.operand(loop.value);
      value = fmt::format("(({}) ?{}({}) : ({}))", holds, text.line_break, value, values[size_t(i)]);
    }
  } catch (...) {
    scope.loop_values.erase(key);
    throw;
  }
  scope.loop_values.erase(key);
  // (a directive is one line of a candidate, at most 10000 characters)
  constexpr size_t kLongest = 6000;
  if (text.line_break.empty() && value.size() > kLongest)
    throw Error(fmt::format("line {}: the value a loop leaves takes {} characters to write as a launch size ({} steps of "
                            "its condition; at most {}): compute it from a constant start, or with a constant bound",
                            position(loop.value).line, value.size(), loop.steps, kLongest));
  return value;
}

// The number of assignments from assignments[i] on (before `at`) that smear the bits of `var` down from its highest
// set bit (`v |= v >> 1; v |= v >> 2; ... v |= v >> 16;` of a next power of two, `>> 32` too for 64 bits): each step
// reads the variable twice, so a value written step by step doubles at each; 0 where they are not such a run.
size_t bit_smear(const std::vector<Assignment>& assignments, size_t i, unsigned at, CXCursor var, CXTranslationUnit unit) {
  const CXType type = clang_getCanonicalType(clang_getCursorType(var));
  if (!is_integer_kind(type.kind)) return 0;
  const long long bits = clang_Type_getSizeOf(type) * 8;
  std::set<long long> shifts;
  size_t run = 0;
  for (; i + run < assignments.size() && assignments[i + run].at <= at; ++run) {
    const Assignment& a = assignments[i + run];
    if (a.op != "|=" || !a.guards.empty() || a.field >= 0 || !a.member.empty()) break;
    const CXCursor value = strip_casts(a.value);
    const std::vector<CXCursor> operands = children(value);
    if (clang_getCursorKind(value) != CXCursor_BinaryOperator || operands.size() != 2 || operator_of(unit, value) != ">>" ||
        !clang_equalCursors(target_of(operands[0]).var, var))
      break;
    const std::optional<long long> shift = integer_constant(operands[1]);
    if (!shift || !shifts.insert(*shift).second) break;
  }
  std::set<long long> whole;  // 1, 2, 4, ... up to half the width: every bit below the highest
  for (long long s = 1; s < bits; s *= 2) whole.insert(s);
  return shifts == whole ? run : 0;
}

}  // namespace

std::string value_at(CXCursor var, unsigned at, int field, const HostScope& scope, const ValueText& text,
                     const std::string& member) {
  const std::string key = decl_key(var);
  if (auto loop = scope.loop_values.find(key); loop != scope.loop_values.end() && at >= loop->second.begin && at < loop->second.end)
    return "(" + loop->second.value + ")";
  std::optional<std::string> current;
  auto now = [&]() -> std::string {
    if (!current) current = text.initial();
    return *current;
  };
  auto found = scope.assignments.find(key);
  if (found == scope.assignments.end()) return now();
  const std::vector<Assignment>& assignments = found->second;
  for (size_t i = 0; i < assignments.size(); ++i) {
    const Assignment& a = assignments[i];
    if (a.at > at) break;
    if (const size_t run = text.smear ? bit_smear(assignments, i, at, var, scope.unit) : 0) {
      const CXType type = clang_getCanonicalType(clang_getCursorType(var));
      current = text.smear(now(), int(clang_Type_getSizeOf(type) * 8), type.kind >= CXType_Char_S && type.kind <= CXType_Int128);
      i += run - 1;
      continue;
    }
    const bool by_field = a.field >= 0 || !a.member.empty();
    if (by_field && field < 0 && member.empty())
      throw Error(fmt::format("'{}' is modified field by field (line {}): use its fields", spelling(var), a.line));
    if ((a.field >= 0 && a.field != field) || (!a.member.empty() && a.member != member)) continue;
    if (a.op.empty())
      throw Error(fmt::format("'{}' is modified after its declaration (line {}): {}, which the port cannot follow",
                              spelling(var), a.line, a.why));
    if (!member.empty() && a.member.empty())
      throw Error(fmt::format("'{}' is assigned as a whole (line {}): build it field by field", spelling(var), a.line));
    std::string next;
    if (a.op == "loop") next = loop_value(key, a, now(), scope, text);
    else if (a.op == "=") next = !a.answer.empty() ? a.answer : text.value(a.value, a.field >= 0 ? -1 : field);
    else if (a.op == "++" || a.op == "--") next = "(" + text.binary(a.op.substr(0, 1), "(" + now() + ")", "1") + ")";
    else next = "(" + text.binary(a.op.substr(0, a.op.size() - 1), "(" + now() + ")", "(" + text.operand(a.value) + ")") + ")";
    // Under an if, innermost first: (c ? new : old), or (c ? old : new) in the else branch.
    for (auto g = a.guards.rbegin(); g != a.guards.rend(); ++g) {
      const std::string c = text.operand(g->first), old = now();
      next = g->second ? fmt::format("({} ? {} : {})", c, next, old) : fmt::format("({} ? {} : {})", c, old, next);
    }
    current = next;
  }
  return now();
}

StructLocal struct_local(CXCursor base, unsigned at, const HostScope& scope) {
  base = strip_casts(base);
  // (`&params` given to a launcher's pointer, `*params` or `params->rows` through it: the local itself)
  while (scope.unit && is_address_operation(scope.unit, base)) base = strip_casts(children(base)[0]);
  const bool own = clang_Cursor_isNull(base) || clang_getCursorKind(base) == CXCursor_CXXThisExpr;
  const CXCursor var = own ? clang_getNullCursor() : clang_getCursorReferenced(base);
  if (auto given = scope.objects.find(own ? "this" : decl_key(var)); given != scope.objects.end()) return given->second;
  if (own || clang_getCursorKind(base) != CXCursor_DeclRefExpr || clang_getCursorKind(var) != CXCursor_VarDecl ||
      clang_getCanonicalType(clang_getCursorType(var)).kind != CXType_Record)
    return {};
  return {var, at};
}

StructLocal method_object(CXCursor call, const HostScope& scope) {
  const std::vector<CXCursor> kids = children(call);
  const std::vector<CXCursor> parts = kids.empty() || clang_getCursorKind(kids[0]) != CXCursor_MemberRefExpr ? std::vector<CXCursor>{}
                                                                                                          : children(kids[0]);
  // (a functor's call `launch(x, y, stream)` is an operator call, the object its first argument)
  const CXCursor object = object_arguments(call, defining_cursor(called_declaration(call))) == 1 ? clang_Cursor_getArgument(call, 0)
                          : parts.empty()                                                      ? clang_getNullCursor()
                                                                                               : parts[0];
  return struct_local(object, begin_offset(call), scope);
}

CXCursor pure_helper(CXCursor call, std::string* why, HostScope* body) {
  CXCursor callee = clang_getCursorReferenced(call);
  CXCursor pattern = clang_Cursor_isNull(callee) ? callee : clang_getSpecializedCursorTemplate(callee);
  CXCursor definition = clang_Cursor_isNull(callee) ? callee : clang_getCursorDefinition(clang_Cursor_isNull(pattern) ? callee : pattern);
  const CXCursorKind kind = clang_getCursorKind(definition);
  // A static method (`LaunchConfig::blocks(n)`) is a function of the file too, and so is a const method, of the object
  // it is called on (`plan.blocks()`, inline_call).
  const bool member = is_record(clang_getCursorKind(clang_getCursorSemanticParent(definition)));
  const bool function = ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate) && !member) ||
                        ((kind == CXCursor_CXXMethod || kind == CXCursor_FunctionTemplate) &&
                         (clang_CXXMethod_isStatic(definition) || clang_CXXMethod_isConst(definition))) ||
                        is_lambda_operator(definition);
  if (clang_Cursor_isNull(definition) || !clang_Location_isFromMainFile(clang_getCursorLocation(definition)) || !function ||
      has_child(definition, CXCursor_CUDAGlobalAttr)) {
    *why = "only min, max, clamp, ceil, floor and functions of this file are understood";
    return clang_getNullCursor();
  }
  std::vector<CXCursor> statements;
  for (CXCursor k : children(definition))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) statements = children(k);
  const bool returns_last = !statements.empty() && clang_getCursorKind(statements.back()) == CXCursor_ReturnStmt &&
                            children(statements.back()).size() == 1;
  // Before it: declarations (initialized, or of a struct a device query fills), assignments to locals and parameters,
  // under ifs and in loops too (followed as the entry's are, or reported where a launch uses them), device queries,
  // and statements that never run (`if (kDebug) printf(...);` with kDebug 0); no other call or return.
  const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(call);
  std::function<bool(CXCursor)> computes = [&](CXCursor s) {
    const CXCursorKind kind = clang_getCursorKind(s);
    const std::vector<CXCursor> parts = children(s);
    if (is_device_query(strip_implicit(s))) return true;
    if (kind == CXCursor_IfStmt && parts.size() == 2 && integer_constant(parts[0]) == 0) return true;
    if (kind == CXCursor_DeclStmt)
      return std::all_of(parts.begin(), parts.end(), [](CXCursor var) {
        return !clang_Cursor_isNull(initializer(var)) || clang_getCanonicalType(clang_getCursorType(var)).kind == CXType_Record;
      });
    if (kind == CXCursor_NullStmt) return true;
    if (kind == CXCursor_CompoundStmt) return std::all_of(parts.begin(), parts.end(), computes);
    // (a condition may be any expression; the statements it runs compute)
    if ((kind == CXCursor_IfStmt || kind == CXCursor_WhileStmt) && !parts.empty() && clang_isExpression(clang_getCursorKind(parts[0])))
      return std::all_of(parts.begin() + 1, parts.end(), computes);
    if (kind == CXCursor_DoStmt && !parts.empty()) return std::all_of(parts.begin(), parts.end() - 1, computes);
    if (kind == CXCursor_ForStmt) {
      const auto header = loop_parts(unit, s);
      if (!header) return false;
      for (CXCursor part : {header->init, header->step, header->body})
        if (!clang_Cursor_isNull(part) && !computes(part)) return false;
      return true;
    }
    return is_write(unit, strip_implicit(s));
  };
  const bool computed = returns_last && std::all_of(statements.begin(), statements.end() - 1, computes);
  if (!computed) {
    *why = "its body is not `return expression;` after declarations, assignments and device queries, so it is not "
           "followed (a function of the sizes, such as ceil_div or a next power of two, is)";
    return clang_getNullCursor();
  }
  if (body) {
    *body = HostScope{};
    body->unit = unit;
    collect_assignments(definition, *body);
  }
  return definition;
}

bool asks_device(CXCursor code) {
  bool asks = false;
  clang_visitChildren(
      code,
      [](CXCursor c, CXCursor, CXClientData data) {
        *static_cast<bool*>(data) |= is_device_query(c);
        return *static_cast<bool*>(data) ? CXChildVisit_Break : CXChildVisit_Recurse;
      },
      &asks);
  return asks;
}

std::vector<std::pair<CXCursor, TemplateArgument>> class_template_arguments(CXType type) {
  type = clang_getCanonicalType(type);
  const CXCursor pattern = clang_getSpecializedCursorTemplate(clang_getTypeDeclaration(type));
  // (libclang gives a class specialization's value arguments only in the type's spelling: `integral_constant<int, 256>`)
  const std::vector<std::string> written = type_template_arguments(type);
  std::vector<std::pair<CXCursor, TemplateArgument>> bound;
  int index = 0;  // the template parameter's position
  for (CXCursor parameter : children(pattern)) {
    const CXCursorKind kind = clang_getCursorKind(parameter);
    if (kind != CXCursor_NonTypeTemplateParameter && kind != CXCursor_TemplateTypeParameter && kind != CXCursor_TemplateTemplateParameter)
      continue;
    TemplateArgument argument;
    if (kind == CXCursor_TemplateTypeParameter) argument.type = clang_Type_getTemplateArgumentAsType(type, unsigned(index));
    else if (size_t(index) < written.size()) argument.value = written[size_t(index)] == "true" ? "1" : written[size_t(index)] == "false" ? "0" : written[size_t(index)];
    if (argument.type.kind != CXType_Invalid || !argument.value.empty()) bound.emplace_back(parameter, argument);
    ++index;
  }
  return bound;
}

namespace {

// The static member `name` of a struct type: its initializer, read with the parameters of the class template the type
// instantiates (`template <typename T, T v> struct integral_constant`) bound to the type's arguments; nullopt for none.
std::optional<std::string> static_member_value(CXType type, const std::string& name, const HostScope& scope) {
  const CXCursor record = clang_getTypeDeclaration(clang_getCanonicalType(type));
  const CXCursor pattern = clang_getSpecializedCursorTemplate(record);
  HostScope inner = scope;
  for (const auto& [parameter, argument] : class_template_arguments(type)) {
    if (argument.type.kind == CXType_Invalid) inner.parameters[decl_key(parameter)] = argument.value;
    else inner.types[decl_key(parameter)] = argument.type;
  }
  for (CXCursor member : children(clang_Cursor_isNull(pattern) ? record : pattern))
    if (clang_getCursorKind(member) == CXCursor_VarDecl && spelling(member) == name && !clang_Cursor_isNull(initializer(member)))
      return "(" + directive_expression(initializer(member), inner) + ")";
  return std::nullopt;
}

bool is_floating(CXType t) {
  const CXTypeKind k = clang_getCanonicalType(t).kind;
  return k == CXType_Float || k == CXType_Double || k == CXType_LongDouble || k == CXType_Half || k == CXType_Float16;
}

bool is_integral(CXType t) {
  const CXTypeKind k = clang_getCanonicalType(t).kind;
  return k >= CXType_Bool && k <= CXType_Int128;
}

// A call to a pure helper of the file: its return expression, in a scope where its parameters are
// the call's arguments and its locals their initializers (as directive text).
std::pair<CXCursor, HostScope> inline_call(CXCursor call, const HostScope& scope) {
  std::string why;
  HostScope body;
  CXCursor definition = pure_helper(call, &why, &body);
  if (clang_Cursor_isNull(definition))
    throw Error(fmt::format("{}: call to '{}' in a launch size: {}", what(call), called_name(call), why));
  if (scope.inlined_calls >= 16) throw Error(fmt::format("{}: '{}' calls itself", what(call), called_name(call)));
  // A lambda's captures are the caller's variables as its body reads them, which is what the call reads (by reference)
  // and what the lambda copied where it was made (by copy) unless the caller assigns them after that.
  if (is_lambda_operator(definition)) {
    struct Search {
      const HostScope* scope;
      unsigned made;
      CXCursor found = clang_getNullCursor();
    } search{&scope, begin_offset(definition)};
    clang_visitChildren(
        definition,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto* s = static_cast<Search*>(data);
          const CXCursor var = clang_getCursorReferenced(c);
          const bool outside = begin_offset(var) < s->made;  // (not the lambda's own parameter or local)
          const auto assigned = clang_getCursorKind(c) == CXCursor_DeclRefExpr && outside ? s->scope->assignments.find(decl_key(var))
                                                                                            : s->scope->assignments.end();
          if (assigned != s->scope->assignments.end() &&
              std::any_of(assigned->second.begin(), assigned->second.end(), [&](const Assignment& a) { return a.at > s->made; }))
            s->found = c;
          return clang_Cursor_isNull(s->found) ? CXChildVisit_Recurse : CXChildVisit_Break;
        },
        &search);
    if (!clang_Cursor_isNull(search.found))
      throw Error(fmt::format("{}: the lambda '{}' reads '{}', which is assigned after the lambda is made: pass it as an argument",
                              what(call), called_name(call), spelling(search.found)));
  }
  HostScope inner = scope;
  ++inner.inlined_calls;
  if (clang_getCursorKind(definition) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(definition) && !is_lambda_operator(definition)) {
    inner.objects["this"] = method_object(call, scope);
    if (clang_Cursor_isNull(inner.objects["this"].var))
      throw Error(fmt::format("{}: '{}' is a method called on something other than a local struct of the entry", what(call),
                              called_name(call)));
  }
  const std::vector<CXCursor> parameters = parameters_of(definition);
  const int object = object_arguments(call, definition);
  const int count = clang_Cursor_getNumArguments(call) - object;
  for (size_t i = 0; i < parameters.size(); ++i) {
    CXCursor value = int(i) < count ? clang_Cursor_getArgument(call, unsigned(int(i) + object)) : initializer(parameters[i]);  // default
    if (clang_Cursor_isNull(value)) throw Error(fmt::format("{}: '{}' is called with too few arguments", what(call), called_name(call)));
    inner.parameters[decl_key(parameters[i])] = "(" + directive_expression(value, scope) + ")";
  }
  // A function template's values (`plan<256>(rows)`): the call's template arguments.
  const CXCursor specialization = clang_getCursorReferenced(call);
  if (clang_getCursorKind(definition) == CXCursor_FunctionTemplate && !clang_Cursor_isNull(specialization)) {
    int index = 0;
    for (CXCursor k : children(definition)) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_NonTypeTemplateParameter && index < clang_Cursor_getNumTemplateArguments(specialization) &&
          clang_Cursor_getTemplateArgumentKind(specialization, unsigned(index)) == CXTemplateArgumentKind_Integral)
        inner.parameters[decl_key(k)] = integral_template_argument(specialization, unsigned(index), k);
      if (kind == CXCursor_NonTypeTemplateParameter || kind == CXCursor_TemplateTypeParameter || kind == CXCursor_TemplateTemplateParameter)
        ++index;
    }
  }
  // Its locals and parameters take the assignments of its body where they are read, device queries' answers among them.
  for (const auto& [key, list] : body.assignments) inner.assignments[key] = list;
  CXCursor result = clang_getNullCursor();
  for (CXCursor k : children(definition))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt)
      for (CXCursor statement : children(k)) {
        if (clang_getCursorKind(statement) == CXCursor_ReturnStmt) result = children(statement).at(0);
        else if (clang_getCursorKind(statement) == CXCursor_DeclStmt)
          for (CXCursor var : children(statement))
            // (a struct local is read field by field where it is used: `prop.multiProcessorCount`)
            if (clang_getCanonicalType(clang_getCursorType(var)).kind != CXType_Record)
              inner.parameters[decl_key(var)] = "(" + directive_expression(initializer(var), inner) + ")";
      }
  return {result, inner};
}

// An integer made of an entry parameter bound to a task tensor (`reinterpret_cast<uintptr_t>(x)`, `(size_t)y`).
bool is_tensor_address(CXCursor e, const HostScope& scope) {
  e = strip_implicit(e);
  while (clang_getCursorKind(e) == CXCursor_ParenExpr && !children(e).empty()) e = strip_implicit(children(e)[0]);
  const CXCursorKind kind = clang_getCursorKind(e);
  if ((kind != CXCursor_CXXReinterpretCastExpr && kind != CXCursor_CStyleCastExpr) || !is_integral(clang_getCursorType(e)) ||
      children(e).empty())
    return false;
  const CXCursor pointer = strip_casts(children(e).back());
  return clang_getCursorKind(pointer) == CXCursor_DeclRefExpr && is_pointer(clang_getCursorType(pointer)) &&
         scope.parameters.count(decl_key(clang_getCursorReferenced(pointer)));
}

// A launch size without the conversion of a floating value to an integer, which directive_expression adds.
std::string directive_value(CXCursor expression, const HostScope& scope) {
  CXCursor c = strip_implicit(expression);
  const CXCursorKind kind = clang_getCursorKind(c);
  CXCursor referenced = kind == CXCursor_DeclRefExpr ? clang_getCursorReferenced(c) : clang_getNullCursor();
  // A variable of the host's global state may have changed before the launch.
  const CXCursorKind parent = clang_getCursorKind(clang_getCursorSemanticParent(referenced));
  if (clang_getCursorKind(referenced) == CXCursor_VarDecl && !scope.parameters.count(decl_key(referenced)) &&
      (parent == CXCursor_TranslationUnit || parent == CXCursor_Namespace) && !clang_isConstQualifiedType(clang_getCursorType(referenced)))
    throw Error(fmt::format("{}: '{}' is a global variable of the host, whose value at the launch is known only at run time",
                            what(c), spelling(referenced)));
  // Constants (literals, sizeof, constexpr arithmetic) evaluate directly.
  if (kind != CXCursor_DeclRefExpr || clang_getCursorKind(referenced) != CXCursor_ParmDecl) {
    if (std::string text = constant_text(c); !text.empty()) return text;
  }
  std::vector<CXCursor> kids = children(c);
  switch (kind) {
    case CXCursor_ParenExpr:
      return "(" + directive_expression(kids.at(0), scope) + ")";
    case CXCursor_ArraySubscriptExpr: {
      // An element of a constant table of integers (`kBlockForLog2Cols[log2_cols]`): the expressions' pick().
      const CXCursor table = kids.size() == 2 ? strip_casts(kids[0]) : clang_getNullCursor();
      const CXCursor array = clang_getCursorReferenced(table);
      const CXType type = clang_getCanonicalType(clang_getCursorType(array));
      const CXCursor init = clang_getCursorKind(table) == CXCursor_DeclRefExpr && clang_getCursorKind(array) == CXCursor_VarDecl &&
                                    type.kind == CXType_ConstantArray &&
                                    (clang_isConstQualifiedType(type) || clang_isConstQualifiedType(clang_getArrayElementType(type)))
                                ? strip_implicit(initializer(array))
                                : clang_getNullCursor();
      if (clang_getCursorKind(init) != CXCursor_InitListExpr)
        throw Error(fmt::format("{}: an element of '{}' (only a constant table of integers is read in launch sizes)", what(c),
                                fmt::join(tokens_of(scope.unit, kids.at(0)), "")));
      std::vector<std::string> elements;
      for (CXCursor element : children(init)) {
        const auto value = integer_constant(element);
        if (!value) throw Error(fmt::format("{}: '{}' holds a value that is not an integer constant", what(c), spelling(array)));
        elements.push_back(std::to_string(*value));
      }
      elements.resize(size_t(clang_getArraySize(type)), "0");  // (C++ zeroes the elements an initializer leaves out)
      return fmt::format("pick({}, {})", directive_expression(kids[1], scope), fmt::join(elements, ", "));
    }
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXFunctionalCastExpr:
    case CXCursor_UnexposedExpr:
      if (!kids.empty()) return directive_expression(kids.back(), scope);
      break;
    case CXCursor_UnaryExpr: {  // `sizeof(T)`, `alignof(T)` of a launcher's type parameter
      const std::vector<std::string> tokens = tokens_of(scope.unit, c);
      for (CXCursor k : kids) {
        const auto bound = clang_getCursorKind(k) == CXCursor_TypeRef ? scope.types.find(decl_key(clang_getCursorReferenced(k))) : scope.types.end();
        if (bound == scope.types.end() || tokens.empty()) continue;
        if (tokens.front() == "sizeof") return std::to_string(clang_Type_getSizeOf(bound->second));
        if (tokens.front() == "alignof") return std::to_string(clang_Type_getAlignOf(bound->second));
      }
      break;
    }
    case CXCursor_DeclRefExpr: {
      // `std::is_same_v<T, float>` (`std::is_same<T, float>::value`) of a launcher's type parameter
      if (const std::vector<std::string> tokens = tokens_of(scope.unit, c);
          std::find(tokens.begin(), tokens.end(), "is_same_v") != tokens.end() ||
          (std::find(tokens.begin(), tokens.end(), "is_same") != tokens.end() && !tokens.empty() && tokens.back() == "value")) {
        std::vector<std::string> types;
        for (const WrittenArgument& argument : written_template_arguments(scope.unit, c)) {
          std::string type = canonical_builtin_type(argument.text);
          for (CXCursor k : kids)
            if (clang_getCursorKind(k) == CXCursor_TypeRef && begin_offset(k) >= argument.begin && end_offset(k) <= argument.end) {
              const auto bound = scope.types.find(decl_key(clang_getCursorReferenced(k)));
              type = take(clang_getTypeSpelling(clang_getCanonicalType(bound != scope.types.end() ? bound->second : clang_getCursorType(k))));
            }
          types.push_back(type);
        }
        if (types.size() == 2) return types[0] == types[1] ? "1" : "0";
      }
      auto param = scope.parameters.find(decl_key(referenced));
      if (param == scope.parameters.end() && clang_getCursorKind(referenced) == CXCursor_ParmDecl)
        throw Error(fmt::format("{}: parameter '{}' is not an axis or param of the task's entry", what(c), spelling(referenced)));
      if (param == scope.parameters.end() && clang_Cursor_isNull(referenced)) {
        // `Traits::kTile`: a static member of the type a launcher's template parameter is bound to; `decltype(block)::value`
        // of the type a launcher's parameter is given (`std::integral_constant<int, 256>{}` for a lambda's `auto block`).
        const std::vector<std::string> tokens = tokens_of(scope.unit, c);
        for (CXCursor k : kids) {
          const CXCursorKind kind = clang_getCursorKind(k);
          auto bound = kind == CXCursor_TypeRef || kind == CXCursor_DeclRefExpr ? scope.types.find(decl_key(clang_getCursorReferenced(k)))
                                                                                : scope.types.end();
          if (bound == scope.types.end() || tokens.empty()) continue;
          if (auto value = static_member_value(bound->second, tokens.back(), scope)) return *value;
        }
        // `T::kThreads` with `using T = Tile<BM, BN, ...>;` in a launcher template: the class template's member, its
        // parameters the alias's arguments (as the launcher's scope gives them).
        for (CXCursor k : kids) {
          const CXCursor alias = clang_getCursorKind(k) == CXCursor_TypeRef ? clang_getCursorReferenced(k) : clang_getNullCursor();
          if ((clang_getCursorKind(alias) != CXCursor_TypeAliasDecl && clang_getCursorKind(alias) != CXCursor_TypedefDecl) ||
              tokens.empty())
            continue;
          CXCursor class_template = clang_getNullCursor();
          std::vector<CXCursor> arguments;
          for (CXCursor part : children(alias)) {
            if (clang_getCursorKind(part) == CXCursor_TemplateRef) class_template = clang_getCursorReferenced(part);
            else if (!clang_Cursor_isNull(class_template) && clang_isExpression(clang_getCursorKind(part))) arguments.push_back(part);
          }
          if (clang_getCursorKind(class_template) != CXCursor_ClassTemplate) continue;
          HostScope inner = scope;
          size_t next = 0;
          CXCursor value = clang_getNullCursor();
          for (CXCursor member : children(class_template)) {
            if (clang_getCursorKind(member) == CXCursor_NonTypeTemplateParameter && next < arguments.size())
              inner.parameters[decl_key(member)] = "(" + directive_expression(arguments[next++], scope) + ")";
            if (clang_getCursorKind(member) == CXCursor_VarDecl && spelling(member) == tokens.back()) value = initializer(member);
          }
          if (!clang_Cursor_isNull(value)) return "(" + directive_expression(value, inner) + ")";
        }
        throw Error(fmt::format("{}: '{}' names a member of a template parameter, which launch sizes cannot read: write "
                                "the value, or launch from a function that is no template",
                                what(c), fmt::join(tokens, "")));
      }
      if (param == scope.parameters.end() && clang_getCursorKind(referenced) != CXCursor_VarDecl)
        throw Error(fmt::format("{}: '{}' has no value the launch can be computed from", what(c), spelling(referenced)));
      ValueText text = directive_text(scope);
      if (is_floating(clang_getCursorType(referenced)))  // `blocks /= 2.5f` divides exactly
        text.binary = [integer = text.binary](const std::string& op, const std::string& a, const std::string& b) {
          return op == "/" ? a + " / " + b : integer(op, a, b);
        };
      text.initial = [&]() -> std::string {
        if (param != scope.parameters.end()) return param->second;
        CXCursor init = initializer(referenced);
        if (clang_Cursor_isNull(init))
          throw Error(fmt::format("{}: '{}' has no value the launch can be computed from", what(c), spelling(referenced)));
        return "(" + directive_expression(init, scope) + ")";
      };
      return value_at(referenced, begin_offset(c), -1, scope, text);
    }
    case CXCursor_MemberRefExpr: {
      const std::string m = spelling(c);  // `block.x` of a dim3
      if (!kids.empty() && is_dim3(clang_getCursorType(strip_implicit(kids[0]))) && (m == "x" || m == "y" || m == "z"))
        return "(" + directive_dim3(kids[0], scope)[size_t(m[0] - 'x')] + ")";
      // A field of a struct local (`p.tiles_x`; through a launcher's parameter given one; in a method called on one,
      // `tiles_x` or `this->tiles_x`): its brace-list value with the assignments to it applied.
      const StructLocal object = struct_local(kids.empty() ? clang_getNullCursor() : kids[0], begin_offset(c), scope);
      const CXCursor var = object.var;
      if (!clang_Cursor_isNull(var)) {
        ValueText text = directive_text(scope);
        text.initial = [&]() -> std::string {
          const CXCursor element = initial_field(var, m);
          if (!clang_Cursor_isNull(element)) return "(" + directive_expression(element, scope) + ")";
          // A struct a pure helper returns (`const LaunchPlan p = plan<256>(rows);`): the field of its return's braces.
          const CXCursor init = strip_casts(initializer(var));
          if (clang_getCursorKind(init) == CXCursor_CallExpr && !clang_Cursor_isNull(clang_getCursorReferenced(init))) {
            auto [value, inner] = inline_call(init, scope);
            if (const CXCursor returned = braced_field(value, clang_getCursorType(var), m); !clang_Cursor_isNull(returned))
              return "(" + directive_expression(returned, inner) + ")";
          }
          throw Error(fmt::format("{}: '{}.{}' has no value the launch can be computed from", what(c), spelling(var), m));
        };
        return value_at(var, object.at, -1, scope, text, m);
      }
      break;
    }
    case CXCursor_BinaryOperator: {
      const std::string op = operator_of(scope.unit, c);
      // A task tensor's address tested for alignment (`reinterpret_cast<uintptr_t>(x) % 16 == 0`, `(uintptr_t)y & 15`):
      // MLX passes each tensor as its own buffer, whose start is aligned to 16 bytes and more.
      if ((op == "%" || op == "&") && is_tensor_address(kids.at(0), scope)) {
        const std::string k = constant_text(strip_implicit(kids.at(1)));
        const long long divisor = k.empty() || !std::all_of(k.begin(), k.end(), ::isdigit) ? 0 : std::stoll(k) + (op == "&" ? 1 : 0);
        if (divisor > 0 && 16 % divisor == 0) return "0";
      }
      const std::string a = directive_expression(kids.at(0), scope), b = directive_expression(kids.at(1), scope);
      if (op.empty())
        throw Error(fmt::format("{}: an operator written inside the macro '{}', which libclang does not show: expand the "
                                "macro by hand, or use a function (ceil_div) or a constexpr value",
                                what(c), macro_of(scope.unit, c)));
      if (op == "/" && is_floating(clang_getCursorType(c))) return a + " / " + b;
      try {
        return directive_text(scope).binary(op, a, b);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}", what(c), e.what()));
      }
    }
    case CXCursor_UnaryOperator: {
      const std::vector<std::string> tokens = tokens_of(scope.unit, c);
      const std::string op = tokens.empty() ? "" : tokens.front(), a = kids.empty() ? "" : directive_expression(kids[0], scope);
      if (op == "-") return "(-(" + a + "))";
      if (op == "+") return a;
      if (op == "!") return "((" + a + ") == 0)";
      if (op == "~") return "(-(" + a + ") - 1)";  // two's complement
      // `return ++v;` of a helper: the step itself is an assignment where the expression ends, so the operand reads
      // the value before it; a prefix step's value is the one after, a postfix step's the one before.
      if (const std::string step = increment_of(scope.unit, c); !step.empty())
        return op == step ? "(" + directive_text(scope).binary(step.substr(0, 1), a, "1") + ")" : a;
      break;
    }
    case CXCursor_ConditionalOperator:
      return fmt::format("({} ? {} : {})", directive_expression(kids.at(0), scope), directive_expression(kids.at(1), scope),
                         directive_expression(kids.at(2), scope));
    case CXCursor_CallExpr: {
      const std::string name = spelling(c);
      const int count = clang_Cursor_getNumArguments(c);
      CXCursor callee = clang_getCursorReferenced(c);
      const bool library = !clang_Cursor_isNull(callee) && !clang_Location_isFromMainFile(clang_getCursorLocation(callee));
      auto argument = [&](int i) { return directive_expression(clang_Cursor_getArgument(c, unsigned(i)), scope); };
      if (library && (name == "min" || name == "max" || name == "fmin" || name == "fmax" || name == "fminf" || name == "fmaxf") &&
          count == 2)
        return fmt::format("{}({}, {})", name.substr(name[0] == 'f' ? 1 : 0, 3), argument(0), argument(1));
      if (library && name == "clamp" && count == 3) return fmt::format("min(max({}, {}), {})", argument(0), argument(1), argument(2));
      // `std::max({a, b, c})`: over an initializer list's elements
      if (library && (name == "min" || name == "max") && count == 1) {
        CXCursor list = strip_implicit(clang_Cursor_getArgument(c, 0));
        while (clang_getCursorKind(list) != CXCursor_InitListExpr && children(list).size() == 1) list = strip_implicit(children(list)[0]);
        if (clang_getCursorKind(list) == CXCursor_InitListExpr && !children(list).empty()) {
          std::string folded;
          for (CXCursor element : children(list))
            folded = folded.empty() ? directive_expression(element, scope) : fmt::format("{}({}, {})", name, folded, directive_expression(element, scope));
          return folded;
        }
      }
      // muparser has no floor or ceil; its rint rounds halves up, so rint(x - 0.5) is floor(x).
      if (library && (name == "floor" || name == "floorf") && count == 1) return fmt::format("rint(({}) - 0.5)", argument(0));
      if (library && (name == "ceil" || name == "ceilf") && count == 1) return fmt::format("(-rint(-({}) - 0.5))", argument(0));
      // GCC's bit counts (a block size rounded up to a power of two, `1 << (32 - __builtin_clz(n - 1))`), by their
      // suffix's width.
      static const std::map<std::string, std::string> bit_counts = {
          {"__builtin_clz", "clz32"},           {"__builtin_clzl", "clz64"},           {"__builtin_clzll", "clz64"},
          {"__builtin_ctz", "ctz32"},           {"__builtin_ctzl", "ctz64"},           {"__builtin_ctzll", "ctz64"},
          {"__builtin_popcount", "popcount32"}, {"__builtin_popcountl", "popcount64"}, {"__builtin_popcountll", "popcount64"}};
      if (const auto b = bit_counts.find(name); library && count == 1 && b != bit_counts.end())
        return fmt::format("{}({})", b->second, argument(0));
      if (library && name == "ceil_div" && count == 2)  // libcu++'s cuda::ceil_div, of integers
        return directive_text(scope).binary("/", fmt::format("(({}) + ({}) - 1)", argument(0), argument(1)), "(" + argument(1) + ")");
      if (clang_getCursorKind(callee) == CXCursor_FunctionDecl || clang_getCursorKind(callee) == CXCursor_FunctionTemplate ||
          clang_CXXMethod_isStatic(callee) || clang_CXXMethod_isConst(callee) || is_lambda_operator(callee)) {
        auto [value, inner] = inline_call(c, scope);
        try {
          return "(" + directive_expression(value, inner) + ")";
        } catch (const Error& e) {  // (what the helper's body computes that cannot be followed, in the call's words)
          throw Error(fmt::format("{}: call to '{}' in a launch size: {}", what(c), called_name(c), e.what()));
        }
      }
      if (kids.size() == 1) return directive_expression(kids[0], scope);  // a conversion written as a call
      throw Error(fmt::format("{}: call to '{}' in a launch size", what(c), called_name(c)));
    }
    default:
      break;
  }
  throw Error(fmt::format("{}: not understood in a launch size", what(c)));
}

}  // namespace

std::string directive_expression(CXCursor expression, const HostScope& scope) {
  const std::string value = directive_value(expression, scope);
  // A floating value converted to an integer (a cast, or an int initialized from a float) truncates.
  CXCursor inner = strip_implicit(expression);
  const CXCursorKind kind = clang_getCursorKind(inner);
  if ((kind == CXCursor_CStyleCastExpr || kind == CXCursor_CXXStaticCastExpr || kind == CXCursor_CXXFunctionalCastExpr) &&
      !children(inner).empty())
    inner = strip_implicit(children(inner).back());
  if (is_integral(clang_getCursorType(expression)) && is_floating(clang_getCursorType(inner)))
    return fmt::format("(sign({0}) * rint(abs({0}) - 0.5))", value);
  return value;
}

std::array<std::string, 3> directive_dim3(CXCursor expression, const HostScope& scope) {
  CXCursor c = strip_implicit(expression);
  auto from_sizes = [&](const std::vector<CXCursor>& sizes) {
    std::array<std::string, 3> out = {"1", "1", "1"};
    if (sizes.size() > 3) throw Error(what(c) + ": a dim3 with more than three sizes");
    for (size_t i = 0; i < sizes.size(); ++i) out[i] = directive_expression(sizes[i], scope);
    return out;
  };
  std::vector<CXCursor> args;
  for (CXCursor k : children(c))
    if (clang_isExpression(clang_getCursorKind(k))) args.push_back(k);
  // `dim3 block(Traits::kTile, 8)` in a template: a list of sizes whose type is not known yet.
  if (!is_dim3(clang_getCursorType(c)) && clang_getCursorKind(c) == CXCursor_UnexposedExpr && args.size() > 1)
    return from_sizes(args);
  if (!is_dim3(clang_getCursorType(c))) return {directive_expression(c, scope), "1", "1"};
  const CXCursorKind kind = clang_getCursorKind(c);
  // A dim3 variable's sizes where `c` reads it (`member`: a struct local's dim3 field): its initial value with the
  // assignments before `c` applied, size by size.
  auto assigned_sizes = [&](CXCursor var, const std::string& member, const std::function<CXCursor()>& initial_value,
                            const std::string& missing) {
    std::optional<std::array<std::string, 3>> initial;
    std::array<std::string, 3> out;
    for (int i = 0; i < 3; ++i) {
      ValueText text = directive_text(scope);
      text.initial = [&] {
        if (!initial) {
          const CXCursor init = initial_value();
          if (clang_Cursor_isNull(init)) throw Error(missing);
          initial = directive_dim3(init, scope);
        }
        return (*initial)[size_t(i)];
      };
      out[size_t(i)] = value_at(var, begin_offset(c), i, scope, text, member);
    }
    return out;
  };
  if (kind == CXCursor_DeclRefExpr) {
    const CXCursor var = clang_getCursorReferenced(c);
    if (auto given = scope.dims.find(decl_key(var)); given != scope.dims.end() && !scope.assignments.count(decl_key(var)))
      return given->second;
    return assigned_sizes(var, "", [&] { return initializer(var); }, what(c) + ": a dim3 without an initializer");
  }
  if (kind == CXCursor_MemberRefExpr) {
    // a dim3 field of a struct local (`config.gridDim` of a cudaLaunchConfig_t)
    const std::vector<CXCursor> kids = children(c);
    const CXCursor base = kids.empty() ? clang_getNullCursor() : strip_casts(kids[0]);
    const CXCursor var = clang_getCursorReferenced(base);
    const std::string member = spelling(c);
    if (clang_getCursorKind(base) == CXCursor_DeclRefExpr && clang_getCursorKind(var) == CXCursor_VarDecl &&
        clang_getCanonicalType(clang_getCursorType(var)).kind == CXType_Record)
      return assigned_sizes(var, member, [&] { return initial_field(var, member); },
                            fmt::format("{}: '{}.{}' has no value the launch can be computed from", what(c), spelling(var), member));
  }
  const CXCursorKind callee = clang_getCursorKind(clang_getCursorReferenced(c));
  if (kind == CXCursor_CallExpr && (callee == CXCursor_FunctionDecl || callee == CXCursor_FunctionTemplate)) {
    auto [value, inner] = inline_call(c, scope);  // a helper returning a dim3
    return directive_dim3(value, inner);
  }
  if (kind == CXCursor_CallExpr || kind == CXCursor_UnexposedExpr || kind == CXCursor_CXXFunctionalCastExpr) {
    // dim3(x) from a single dim3 (a copy) or from up to three sizes.
    if (args.size() == 1 && is_dim3(clang_getCursorType(strip_implicit(args[0])))) return directive_dim3(args[0], scope);
    return from_sizes(args);
  }
  throw Error(what(c) + ": a dim3 that is not a variable or a constructor call");
}

}  // namespace ksearch::translate
