// Accessors of the dynamic shared memory (docs/TRANSLATE.md): a function or method whose body declares extern
// __shared__ arrays and returns one, cast (the CUDA samples' SharedMemory<T>, whose conversion operator the kernel
// calls implicitly; `template <typename T> __device__ T* shared_memory_proxy()`). Metal declares threadgroup memory
// in the kernel only, so each call becomes the kernel's dynamic threadgroup array (passed down to a __device__
// function), cast to the pointer type the call gives (or, in a template, the type of what it initializes or is
// assigned or cast to); the accessors and their structs are left out of the header.
#include <fmt/format.h>

#include <algorithm>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// The extern __shared__ array a function returns, where its body is only their declarations and `return (cast) array;`.
CXCursor returned_shared_array(CXCursor function) {
  std::vector<CXCursor> statements;
  for (CXCursor k : children(function))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) statements = children(k);
  if (statements.size() < 2 || clang_getCursorKind(statements.back()) != CXCursor_ReturnStmt) return clang_getNullCursor();
  std::vector<CXCursor> arrays;
  for (size_t i = 0; i + 1 < statements.size(); ++i) {
    if (clang_getCursorKind(statements[i]) != CXCursor_DeclStmt) return clang_getNullCursor();
    for (CXCursor var : children(statements[i])) {
      if (clang_getCursorKind(var) != CXCursor_VarDecl || clang_Cursor_getStorageClass(var) != CX_SC_Extern ||
          !has_child(var, CXCursor_CUDASharedAttr))
        return clang_getNullCursor();
      arrays.push_back(var);
    }
  }
  const std::vector<CXCursor> returned = children(statements.back());
  if (returned.size() != 1) return clang_getNullCursor();
  const CXCursor value = strip_casts(returned[0]);
  if (clang_getCursorKind(value) != CXCursor_DeclRefExpr) return clang_getNullCursor();
  const CXCursor named = clang_getCursorReferenced(value);
  for (CXCursor a : arrays)
    if (clang_equalCursors(a, named)) return a;
  return clang_getNullCursor();
}

}  // namespace

void Translator::find_shared_accessors() {
  for (auto f = functions_.begin(); f != functions_.end();) {
    const CXCursor array = f->second.kernel ? clang_getNullCursor() : returned_shared_array(f->second.cursor);
    if (clang_Cursor_isNull(array)) {
      ++f;
      continue;
    }
    shared_accessors_[f->first] = array;
    f = functions_.erase(f);  // neither walked nor written: its calls become the kernel's array
  }
  // A struct whose methods are all accessors, and which has no data: its objects are dropped with it.
  std::function<void(CXCursor)> records = [&](CXCursor parent) {
    for (CXCursor c : children(parent)) {
      const CXCursorKind kind = clang_getCursorKind(c);
      if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) continue;
      if (kind == CXCursor_Namespace || kind == CXCursor_UnexposedDecl) records(c);
      if (!is_record(kind) || !clang_isCursorDefinition(c)) continue;
      bool methods = false, only_accessors = true;
      for (CXCursor m : children(c)) {
        const CXCursorKind mk = clang_getCursorKind(m);
        if (mk == CXCursor_FieldDecl || mk == CXCursor_Constructor || mk == CXCursor_Destructor) only_accessors = false;
        if (mk == CXCursor_CXXMethod || mk == CXCursor_ConversionFunction || mk == CXCursor_FunctionTemplate) {
          methods = true;
          only_accessors &= shared_accessors_.count(decl_key(m)) > 0;
        }
      }
      if (methods && only_accessors) accessor_records_.insert(decl_key(c));
    }
  };
  records(clang_getTranslationUnitCursor(unit_));
}

CXCursor Translator::shared_accessor_array(CXCursor expression) {
  const CXCursor c = strip_implicit(expression);
  // (asked of every call, pointer declaration and cast: most files have no accessor)
  if (shared_accessors_.empty() || clang_getCursorKind(c) != CXCursor_CallExpr) return clang_getNullCursor();
  // A call of an accessor: explicit, through an object (`smem.getPointer()`), or a conversion operator's implicit one.
  const CXCursor callee = called_declaration(c);
  if (!clang_Cursor_isNull(callee))
    if (auto a = shared_accessors_.find(decl_key(defining_cursor(callee))); a != shared_accessors_.end()) return a->second;
  // In a template, `SharedMemory<T>()` is a temporary whose conversion is chosen at instantiation: the primary
  // template's accessor (its first, as the conversions' differ only in const).
  // (the constructed type's name is the first reference among its children: `Wrap<SharedMemory<T>>()` names Wrap)
  for (CXCursor k : children(c)) {
    if (clang_getCursorKind(k) != CXCursor_TemplateRef && clang_getCursorKind(k) != CXCursor_TypeRef) continue;
    const CXCursor record = clang_getCursorReferenced(k);
    if (!accessor_records_.count(decl_key(record))) break;
    for (CXCursor m : children(record))
      if (auto a = shared_accessors_.find(decl_key(m)); a != shared_accessors_.end()) return a->second;
    break;
  }
  return clang_getNullCursor();
}

void Translator::note_accessor_target(CXCursor expression, CXType target) {
  CXCursor c = strip_implicit(expression);
  while (clang_getCursorKind(c) == CXCursor_ParenExpr && !children(c).empty()) c = strip_implicit(children(c)[0]);
  if (!clang_Cursor_isNull(shared_accessor_array(c))) accessor_targets_[begin_offset(c)] = target;
}

bool Translator::map_shared_accessor(CXCursor call, Function& fn) {
  const CXCursor array = shared_accessor_array(call);
  if (clang_Cursor_isNull(array)) return false;
  // The pointer type: the call's own, else (a template's temporary) the one it initializes, is assigned or cast to.
  CXType type = clang_getCursorType(call);
  if (!is_pointer(type))
    if (auto t = accessor_targets_.find(begin_offset(call)); t != accessor_targets_.end()) type = t->second;
  if (!is_pointer(type)) {
    problem(fn.record.problems, call, "dynamic shared memory accessor",
            "the pointer type it converts to is not known here: initialize a pointer variable with it (`T* s = "
            "SharedMemory<T>();`)");
    return true;
  }
  if (!fn.kernel) pass_down_dynamic_shared(fn, array);
  else if (std::none_of(fn.dynamic_shared.begin(), fn.dynamic_shared.end(), [&](CXCursor d) { return clang_equalCursors(d, array); })) {
    fn.dynamic_shared.push_back(array);
  }
  rw_.replace(begin_offset(call), end_offset(call),
              fmt::format("((threadgroup {}*){})", metal_type(pointee_type(type)), dynamic_shared_name(array)));
  ++fn.record.translated["extern __shared__ (accessor)"];
  return true;
}

// An extern __shared__ array a __device__ function names (a file-scope one, or an accessor's): the kernel's dynamic
// array, passed down as a pointer under the array's name, as one the function declares is.
void Translator::pass_down_dynamic_shared(Function& fn, CXCursor array) {
  const std::string element = metal_type(clang_getArrayElementType(clang_getCursorType(array)));
  HoistedShared h{decl_key(fn.cursor), dynamic_shared_name(array), spelling(fn.cursor) + "_" + dynamic_shared_name(array),
                  element, "", element, "", true};
  fn.shared.insert(h.hoisted);
  hoisted_.emplace(h.hoisted, h);
}

std::string dynamic_shared_name(CXCursor array) {
  std::string name = spelling(array);
  if (name.rfind("__", 0) != 0) return name;
  return "ks_" + name.substr(name.find_first_not_of('_'));  // `__smem`: Metal reserves names starting with __
}

bool Translator::drop_accessor_object(CXCursor var) {
  bool accessor = accessor_records_.count(decl_key(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(var))))) > 0;
  for (CXCursor k : children(var))
    accessor |= (clang_getCursorKind(k) == CXCursor_TemplateRef || clang_getCursorKind(k) == CXCursor_TypeRef) &&
                accessor_records_.count(decl_key(clang_getCursorReferenced(k)));
  if (!accessor) return false;
  rw_.replace(begin_offset(var), end_offset(var), "");
  return true;
}

}  // namespace ksearch::translate::detail
