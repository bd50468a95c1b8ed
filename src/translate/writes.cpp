// Whether a kernel (or a __device__ function) may write through one of its pointer parameters: TVM's generated code and
// many tutorials declare every pointer without const, a scratch buffer read by a later kernel too (`float* partial`),
// and an MLX kernel can read a buffer an earlier one wrote but not update it. Conservative: any use this reading does
// not recognise as a read (an atomic, a non-const reference, a pointer returned or stored away) counts as a write.
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

bool const_pointee(CXType t) {
  const CXType c = clang_getCanonicalType(t);
  return (c.kind == CXType_Pointer || c.kind == CXType_LValueReference) && clang_isConstQualifiedType(clang_getPointeeType(c));
}

}  // namespace

bool Translator::may_write_through(CXCursor function, CXCursor parameter, int depth) {
  if (depth > 8) return true;
  // The parameter as the defining declaration names it (a specialization's differ from its template's).
  const CXCursor body = defining_cursor(function);
  const std::vector<CXCursor> given = parameters_of(function), defined = parameters_of(body);
  const auto at = std::find_if(given.begin(), given.end(), [&](CXCursor p) { return clang_equalCursors(p, parameter); });
  if (at == given.end() || size_t(at - given.begin()) >= defined.size()) return true;
  std::set<std::string> pointers = {decl_key(defined[size_t(at - given.begin())])};  // and the local pointers made from it
  bool writes = false;
  // The use of `ref` (a pointer to the buffer) given its ancestors, innermost last: whether it may write, new aliases
  // of the buffer noted.
  auto use_writes = [&](CXCursor ref, const std::vector<CXCursor>& ancestors) {
    CXCursor cur = ref;
    bool element = false;  // cur is an element of the buffer (an lvalue), not a pointer into it
    for (size_t a = ancestors.size(); a-- > 0;) {
      const CXCursor p = ancestors[a];
      const CXCursorKind k = clang_getCursorKind(p);
      const std::vector<CXCursor> kids = children(p);
      const bool first = !kids.empty() && clang_equalCursors(kids[0], cur);
      if (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_MemberRefExpr) {
        // implicit conversions, parentheses, a field of an element (`v[i].x`)
        if (k == CXCursor_MemberRefExpr && !element) return true;  // `p->x` written or read: not followed
      } else if (is_cast(k)) {
        if (!element && const_pointee(clang_getCursorType(p))) return false;
      } else if (k == CXCursor_ArraySubscriptExpr) {
        if (!first) return false;  // an index
        element = true;
      } else if (k == CXCursor_UnaryOperator) {
        // (inside a macro's expansion the tokens are the macro's use: not an operator, so a write)
        const std::vector<std::string> t = tokens_of(unit_, p);
        const std::string op = t.empty() ? "" : t.front() == spelling(ref) ? t.back() : t.front();
        if (op == "*" && !element) element = true;
        else if (op == "&" && element) element = false;
        else if (op == "++" || op == "--") return element;  // an element incremented; the pointer stepped
        else if (op == "-" || op == "!" || op == "~" || op == "+") return false;
        else return true;  // the pointer's own address, or not read here
      } else if (k == CXCursor_BinaryOperator) {
        const std::string op = operator_of(unit_, p);
        if (op == "=") {
          if (first) return element;  // an element assigned, or the pointer variable itself
          const CXCursor target = strip_implicit(kids[0]);
          if (element) return false;
          if (clang_getCursorKind(target) != CXCursor_DeclRefExpr) return true;  // stored into a field or an array
          pointers.insert(decl_key(clang_getCursorReferenced(target)));
          return false;
        }
        if (op.empty()) return true;                         // not read here (a macro's expansion)
        if (!element && (op == "+" || op == "-")) {          // pointer arithmetic: still the buffer
          cur = p;
          continue;
        }
        return false;  // compared, or an element read into arithmetic
      } else if (k == CXCursor_CompoundAssignOperator) {
        return first && element;
      } else if (k == CXCursor_VarDecl) {
        const CXType type = clang_getCanonicalType(clang_getCursorType(p));
        if (type.kind == CXType_LValueReference) return !const_pointee(type);
        if (element || type.kind != CXType_Pointer) return false;  // a copy of an element
        if (!const_pointee(type)) pointers.insert(decl_key(p));
        return false;
      } else if (k == CXCursor_CallExpr) {
        const CXCursor callee = clang_getCursorReferenced(p);
        int argument = -1;
        for (int i = 0; i < clang_Cursor_getNumArguments(p); ++i)
          if (clang_equalCursors(clang_Cursor_getArgument(p, unsigned(i)), cur)) argument = i;
        if (argument < 0 || clang_Cursor_isNull(callee)) return true;  // a call through the pointer, or unresolved
        const std::vector<CXCursor> params = parameters_of(callee);
        if (argument >= int(params.size())) return true;  // variadic
        const CXType param_type = clang_getCanonicalType(clang_getCursorType(params[size_t(argument)]));
        if (element) return param_type.kind == CXType_LValueReference && !const_pointee(param_type);
        if (const_pointee(param_type)) return false;
        if (!in_main_file(callee) || param_type.kind != CXType_Pointer) return true;  // atomicAdd(p, v), memcpy(p, ...)
        return may_write_through(callee, params[size_t(argument)], depth + 1);
      } else {
        return !element;  // a pointer returned, stored in a struct, chosen by ?: ... ; an element read
      }
      cur = p;
    }
    return false;
  };
  // Until no new alias appears: a pointer made from one may be named before the line that makes it in a loop.
  for (size_t known = 0; known != pointers.size() && !writes;) {
    known = pointers.size();
    std::vector<CXCursor> ancestors;
    std::function<void(CXCursor)> visit = [&](CXCursor c) {
      if (writes) return;
      if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && pointers.count(decl_key(clang_getCursorReferenced(c))) &&
          use_writes(c, ancestors)) {
        writes = true;
        return;
      }
      ancestors.push_back(c);
      for (CXCursor k : children(c)) visit(k);
      ancestors.pop_back();
    };
    visit(body);
  }
  return writes;
}

}  // namespace ksearch::translate::detail
