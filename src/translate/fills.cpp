// A launch that only stores one value into one buffer before the kernel that updates it (`zero<<<...>>>(y, n)` then
// `atomicAdd(&y[r], ...)`, `fill<<<...>>>(m, -INFINITY, n)` then a CAS max): MLX kernels write fresh outputs, but
// fill them first with the call's init_value, so the fill becomes that directive instead of a kernel.
#include <fmt/format.h>

#include "core/error.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// A CUDA function that makes a value of its arguments alone: a vector from components, a conversion to half or bfloat16.
bool Translator::uniform_call(CXCursor call) {
  const std::string name = spelling(call);
  const CXCursor callee = clang_getCursorReferenced(call);
  return !clang_Cursor_isNull(callee) && from_prelude(callee) &&
         (name.rfind("make_", 0) == 0 || name.rfind("__float2half", 0) == 0 || name.rfind("__float2bfloat16", 0) == 0);
}

std::optional<Translator::Fill> Translator::constant_fill(CXCursor launch_call, const std::vector<std::string>& buffers) {
  const CXCursor callee = clang_getCursorReferenced(launch_call);
  if (clang_getCursorKind(callee) != CXCursor_FunctionDecl) return std::nullopt;  // dependent, or through a pointer
  const CXCursor definition = defining_cursor(callee);
  const std::vector<CXCursor> arguments = launch_arguments(launch_call), given = parameters_of(callee), defined = parameters_of(definition);
  if (given.size() != defined.size() || arguments.size() < given.size()) return std::nullopt;
  // The one buffer it writes, a task output or scratch buffer.
  int target = -1;
  for (size_t i = 0; i < given.size(); ++i) {
    const CXType type = clang_getCanonicalType(clang_getCursorType(given[i]));
    if (type.kind == CXType_Pointer && !clang_isConstQualifiedType(clang_getPointeeType(type)) && may_write_through(callee, given[i])) {
      if (target >= 0) return std::nullopt;
      target = int(i);
    }
  }
  if (target < 0 || size_t(target) >= buffers.size()) return std::nullopt;
  Fill fill{buffers[size_t(target)], ""};
  if (fill.buffer.empty()) return std::nullopt;
  const std::string target_key = decl_key(defined[size_t(target)]);
  // The value a store writes: a constant, or a value parameter (never assigned: only locals are) given one at the launch;
  // a vector of one value (`make_float4(0.f, 0.f, 0.f, 0.f)`) or a conversion of it (`__float2half(0.f)`) is that value.
  std::function<std::string(CXCursor)> value_of = [&](CXCursor stored) -> std::string {
    const CXCursor uncast = strip_casts(stored);
    if (clang_getCursorKind(uncast) == CXCursor_CallExpr && uniform_call(uncast)) {
      std::string value;
      for (int i = 0; i < clang_Cursor_getNumArguments(uncast); ++i) {
        const std::string each = value_of(clang_Cursor_getArgument(uncast, unsigned(i)));
        if (each.empty() || (i > 0 && each != value)) return "";
        value = each;
      }
      return value;
    }
    if (clang_getCursorKind(uncast) == CXCursor_DeclRefExpr) {
      const std::string key = decl_key(clang_getCursorReferenced(uncast));
      for (size_t i = 0; i < defined.size(); ++i)
        if (decl_key(defined[i]) == key) {
          if (std::string constant = constant_text(arguments[i]); !constant.empty()) return constant;
          try {
            return "(" + directive_expression(arguments[i], host_) + ")";
          } catch (const Error&) {
            return "";
          }
        }
    }
    return constant_text(stored);
  };
  auto is_local = [&](CXCursor reference) {
    const CXCursor declaration = clang_getCursorReferenced(reference);
    const CXCursorKind scope = clang_getCursorKind(clang_getCursorSemanticParent(declaration));
    return clang_getCursorKind(reference) == CXCursor_DeclRefExpr && clang_getCursorKind(declaration) == CXCursor_VarDecl &&
           (scope == CXCursor_FunctionDecl || scope == CXCursor_FunctionTemplate) &&
           !has_child(declaration, CXCursor_CUDASharedAttr);
  };
  // Whether every node is index arithmetic, control flow, a local's update or a store of the value into the target.
  bool only_stores = true;
  // `lhs = rhs`: a local, or an element of the target given the fill's one value.
  auto assignment = [&](CXCursor target, CXCursor stored) {
    const CXCursor lhs = strip_implicit(target);
    if (is_local(lhs)) return;
    const std::vector<CXCursor> element = children(lhs);
    // (`y[i]`, or `reinterpret_cast<float4*>(y)[i]` of a vector of the value)
    const bool into_target = clang_getCursorKind(lhs) == CXCursor_ArraySubscriptExpr && element.size() == 2 &&
                             clang_getCursorKind(strip_casts(element[0])) == CXCursor_DeclRefExpr &&
                             decl_key(clang_getCursorReferenced(strip_casts(element[0]))) == target_key;
    const std::string value = into_target ? value_of(stored) : "";
    if (value.empty() || (!fill.value.empty() && value != fill.value)) only_stores = false;
    fill.value = value;
  };
  std::function<void(CXCursor)> visit = [&](CXCursor c) {
    if (!only_stores) return;
    const CXCursorKind kind = clang_getCursorKind(c);
    const std::vector<CXCursor> parts = children(c);
    if (kind == CXCursor_CallExpr && uniform_call(c)) return;  // a stored value, checked by value_of
    // A vector's assignment (`y[i] = make_float4(...)`) is a call of its operator=.
    const bool vector_assignment = kind == CXCursor_CallExpr && spelling(c) == "operator=" &&
                                   clang_Cursor_getNumArguments(c) == 2 && from_prelude(clang_getCursorReferenced(c));
    if (vector_assignment) {
      assignment(clang_Cursor_getArgument(c, 0), clang_Cursor_getArgument(c, 1));
      visit(clang_Cursor_getArgument(c, 0));
      return;
    }
    if (kind == CXCursor_CallExpr || kind == CXCursor_AsmStmt || kind == CXCursor_LambdaExpr) {
      only_stores = false;  // a call may write elsewhere or wait on other threads
      return;
    }
    if (kind == CXCursor_UnaryOperator) {
      const std::vector<std::string> t = tokens_of(unit_, c);
      const bool steps = !t.empty() && (t.front() == "++" || t.front() == "--" || t.back() == "++" || t.back() == "--");
      if (steps && (parts.size() != 1 || !is_local(strip_implicit(parts[0])))) only_stores = false;
    }
    if (kind == CXCursor_CompoundAssignOperator && (parts.size() != 2 || !is_local(strip_implicit(parts[0])))) only_stores = false;
    if (kind == CXCursor_BinaryOperator && operator_of(unit_, c) == "=" && parts.size() == 2) assignment(parts[0], parts[1]);
    for (CXCursor k : parts) visit(k);
  };
  for (CXCursor k : children(definition))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) visit(k);
  if (!only_stores || fill.value.empty()) return std::nullopt;
  return fill;
}

namespace {

// An integer written as digits (a sign and parentheses allowed), or nullopt.
std::optional<long long> integer_text(std::string t) {
  while (t.size() > 2 && t.front() == '(' && t.back() == ')') t = t.substr(1, t.size() - 2);
  if (t.empty() || t.find_first_not_of("-0123456789") != std::string::npos || t.find('-', 1) != std::string::npos) return std::nullopt;
  try {
    size_t used = 0;
    const long long v = std::stoll(t, &used);
    return used == t.size() ? std::optional<long long>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void Translator::fold_fills(std::vector<CXCursor>& launches, std::vector<std::optional<LauncherCall>>& calls,
                            const std::vector<std::vector<std::string>>& buffers, std::map<std::string, std::string>& initial) {
  // Per launch, in its launcher call's scope: the fill it makes, the buffers its arguments name and those it writes.
  std::vector<std::optional<Fill>> fills;
  // (and those whose elements are integers: a float buffer rounds a stored value as CUDA's store does)
  std::vector<std::set<std::string>> named(launches.size()), writes(launches.size()), integers(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    fills.push_back(in_call(calls[i], [&] { return constant_fill(launches[i], buffers[i]); }));
    const CXCursor callee = clang_getCursorReferenced(launches[i]);
    const std::vector<CXCursor> params = clang_getCursorKind(callee) == CXCursor_FunctionDecl ? parameters_of(callee)
                                                                                               : std::vector<CXCursor>{};
    for (size_t a = 0; a < buffers[i].size(); ++a) {
      if (buffers[i][a].empty()) continue;
      named[i].insert(buffers[i][a]);
      const CXType type = a < params.size() ? clang_getCanonicalType(clang_getCursorType(params[a])) : CXType{};
      if (type.kind == CXType_Pointer && !clang_isConstQualifiedType(clang_getPointeeType(type)) &&
          may_write_through(callee, params[a]))
        writes[i].insert(buffers[i][a]);
      if (type.kind == CXType_Pointer && is_integer_kind(clang_getCanonicalType(clang_getPointeeType(type)).kind))
        integers[i].insert(buffers[i][a]);
    }
  }
  // A fill is dropped where no launch before it names its buffer and the next launch naming it writes it (not a fill).
  std::vector<bool> dropped(launches.size(), false);
  for (size_t i = 0; i < launches.size(); ++i) {
    if (!fills[i]) continue;
    const std::string& buffer = fills[i]->buffer;
    bool earlier = false;
    for (size_t j = 0; j < i; ++j) earlier |= named[j].count(buffer) > 0;
    size_t next = i + 1;
    while (next < launches.size() && !named[next].count(buffer)) ++next;
    if (earlier || next == launches.size() || fills[next] || !writes[next].count(buffer)) continue;
    dropped[i] = true;
    // An integer value that init_value (a float) does not hold is reported rather than ported wrong: INT_MAX, an
    // atomicMin's usual sentinel, would start as 2^31, which no int holds.
    if (const std::optional<long long> v = integer_text(fills[i]->value); integers[i].count(buffer) && v && !init_value_holds(*v)) {
      problem(out_.problems, launches[i], "fill of '" + buffer + "' with " + fills[i]->value,
              fmt::format("the fill would become the next kernel's init_value, which MLX takes as a float, and {} is {} "
                          "there: start from a value a float holds exactly (below 2^24 in magnitude, such as -1 or the "
                          "row length)",
                          *v, fmt::format("{:.0f}", static_cast<double>(static_cast<float>(*v)))));
      continue;
    }
    initial[buffer] = fills[i]->value;
    out_.notes.push_back(fmt::format("line {}: the launch of {}, which only stores {} into {}, became `init_value: {}` of "
                                     "the kernel that writes {} next (MLX fills every output of that kernel with it)",
                                     position(launches[i]).line, spelling(clang_getCursorReferenced(launches[i])),
                                     fills[i]->value, buffer, fills[i]->value, buffer));
  }
  for (size_t i = launches.size(); i-- > 0;)
    if (dropped[i]) {
      launches.erase(launches.begin() + long(i));
      calls.erase(calls.begin() + long(i));
    }
}

}  // namespace ksearch::translate::detail
