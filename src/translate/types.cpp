// Metal types and address spaces (docs/TRANSLATE.md): a CUDA type as Metal spells it, the address
// space a pointer expression points into or a reference binds (device, threadgroup, constant, thread),
// __device__ functions overloaded per the spaces their reference parameters bind, pointer casts and
// pointer typedefs given their spaces. Metal's pointer and reference types name their space, and it
// converts none between spaces, so every pointer the port writes needs one.
#include <algorithm>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

bool pointer_typedef(CXCursor decl) {
  const CXCursorKind kind = clang_getCursorKind(decl);
  return (kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl) && clang_Location_isFromMainFile(clang_getCursorLocation(decl)) &&
         is_pointer(clang_getTypedefDeclUnderlyingType(decl));
}

std::vector<size_t> reference_parameters(CXCursor function) {
  std::vector<size_t> out;
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (is_reference(clang_getCursorType(params[i])) && group_of(clang_getCursorType(params[i])).kind == Group::none) out.push_back(i);
  return out;
}

// A type as Metal spells it: CUDA type names mapped, `long long` as long, `signed char` as char, qualifiers kept.
std::string Translator::metal_type(CXType t) {
  // libcu++'s cuda::atomic<T, scope>: Metal's atomic<T> (kept in threadgroup memory, device_code.cpp)
  if (is_atomic_object(t)) return "atomic<" + metal_type(clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(t), 0)) + ">";
  // A pointer typedef (`typedef float* fptr;`) is spelled out: a Metal pointer's type names its address space.
  if ((t.kind == CXType_Typedef || t.kind == CXType_Elaborated) && is_pointer(t))
    return metal_type(pointee_type(t)) + " *" + (clang_isConstQualifiedType(t) ? " const" : "");
  std::string s = take(clang_getTypeSpelling(t));
  for (const std::string drop : {"__restrict__ ", "__restrict ", " __restrict__", " __restrict", "__restrict__", "__restrict"})
    for (size_t at; (at = s.find(drop)) != std::string::npos;) s.erase(at, drop.size());
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"unsigned long long", "ulong"}, {"long long", "long"}, {"unsigned int", "uint"}, {"unsigned short", "ushort"},
           {"unsigned char", "uchar"}, {"unsigned long", "ulong"}, {"signed char", "char"}})  // Metal's char is signed
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  std::string out, word;
  auto flush = [&] {
    auto m = maps_.types.find(word);
    auto renamed = keyword_renames_.find(word);  // (the file's names Metal reserves: a namespace `device`)
    out += m != maps_.types.end() ? m->second : word == "double" ? "float" : renamed != keyword_renames_.end() ? renamed->second : word;
    word.clear();
  };
  for (char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      word += ch;
    } else {
      flush();
      out += ch;
    }
  }
  flush();
  return out;
}

std::string Translator::unqualified_type(CXType t) {
  const std::string name = metal_type(clang_getCanonicalType(t));
  return name.rfind("const ", 0) == 0 ? name.substr(6) : name;
}

// Where a pointer expression points: device (kernel arguments), threadgroup (__shared__), constant
// (__constant__) or thread (locals), found from the variable it is derived from.
std::string Translator::space_of(CXCursor expression) {
  CXCursor c = strip_implicit(expression);
  if (!clang_Cursor_isNull(shared_accessor_array(c))) return "threadgroup";  // `SharedMemory<T>()`
  switch (clang_getCursorKind(c)) {
    case CXCursor_DeclRefExpr: {
      CXCursor decl = clang_getCursorReferenced(c);
      auto s = spaces_.find(decl_key(decl));
      if (s != spaces_.end()) return s->second;
      if (clang_getCursorKind(decl) == CXCursor_VarDecl && !is_pointer(clang_getCursorType(decl)))
        return clang_getCursorSemanticParent(decl).kind == CXCursor_TranslationUnit ? "constant" : "thread";
      // a value parameter is the function's own copy
      if (clang_getCursorKind(decl) == CXCursor_ParmDecl && !is_pointer(clang_getCursorType(decl)) &&
          !is_reference(clang_getCursorType(decl)))
        return "thread";
      return "device";
    }
    case CXCursor_MemberRefExpr: {
      // A struct's pointer field (`p.x` of a kernel's struct argument) points into a buffer.
      if (is_pointer(clang_getCursorType(c))) return "device";
      std::vector<CXCursor> kids = children(c);
      // A member of the object a method runs on (implicit `this`): Metal's methods take a thread object.
      if (kids.empty() || clang_getCursorKind(strip_implicit(kids.back())) == CXCursor_CXXThisExpr) return "thread";
      return space_of(kids.back());
    }
    case CXCursor_CallExpr: {
      // A __device__ function's returned pointer (its result type became `auto`): where it points.
      const CXCursor callee = clang_getCursorReferenced(c);
      if (!clang_Cursor_isNull(callee) && is_pointer(clang_getCursorType(c)))
        if (const auto fn = functions_.find(decl_key(defining_cursor(callee))); fn != functions_.end())
          return returned_space(fn->first);
      return "device";
    }
    default: {
      const CXCursor operand = pointer_operand(c);
      return clang_Cursor_isNull(operand) ? "device" : space_of(operand);
    }
  }
}

// The operand a pointer expression points through, whose space and variable it has: a cast's, a subscript's base, an
// arithmetic's or a conditional's pointer (or array) side; null for none.
CXCursor Translator::pointer_operand(CXCursor c) {
  // (an array sized by a template's parameters, `float buf[UNROLL * 4]`, is a dependent-sized one)
  const auto points = [](CXCursor k) {
    const CXTypeKind type = clang_getCanonicalType(clang_getCursorType(k)).kind;
    return is_pointer(clang_getCursorType(k)) || type == CXType_ConstantArray || type == CXType_IncompleteArray ||
           type == CXType_DependentSizedArray || type == CXType_VariableArray;
  };
  const CXCursorKind kind = clang_getCursorKind(c);
  const std::vector<CXCursor> kids = children(c);
  switch (kind) {
    case CXCursor_ParenExpr:
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXReinterpretCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXConstCastExpr:
    case CXCursor_UnaryOperator:
    case CXCursor_ArraySubscriptExpr:
    case CXCursor_UnexposedExpr: {
      if (kids.empty()) return clang_getNullCursor();
      // In a template an arithmetic on a pointer may be unexposed (`buf + i * STEP` with STEP the template's): its
      // pointer side, not its last operand.
      if (kind == CXCursor_UnexposedExpr && kids.size() > 1)
        if (const auto side = std::find_if(kids.begin(), kids.end(), points); side != kids.end()) return *side;
      return kind == CXCursor_ArraySubscriptExpr ? kids.front() : kids.back();
    }
    case CXCursor_BinaryOperator:
    case CXCursor_ConditionalOperator: {
      const auto side = std::find_if(kids.begin(), kids.end(), points);
      return side == kids.end() ? clang_getNullCursor() : *side;
    }
    default: return clang_getNullCursor();
  }
}

// The variable or parameter (decl_key) a pointer expression points through, as space_of follows it; "" for none.
std::string Translator::pointer_root(CXCursor expression, int depth) {
  const CXCursor c = strip_implicit(expression);
  if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) return decl_key(clang_getCursorReferenced(c));
  const CXCursor operand = pointer_operand(c);
  return depth > 16 || clang_Cursor_isNull(operand) ? "" : pointer_root(operand, depth + 1);
}

// The spaces of what a function's assignments to the local pointer `key` give (null assignments give none).
std::set<std::string> Translator::assigned_spaces(const std::string& key, const std::string& function) {
  std::set<std::string> spaces;
  if (!functions_.count(function)) return spaces;
  std::function<void(CXCursor)> find = [&](CXCursor c) {
    if (clang_getCursorKind(c) == CXCursor_BinaryOperator && operator_of(unit_, c) == "=") {
      const std::vector<CXCursor> kids = children(c);
      const CXCursor target = strip_implicit(kids[0]);
      if (clang_getCursorKind(target) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(target)) == key &&
          !null_pointer_constant(kids[1]))
        spaces.insert(space_of(kids[1]));
    }
    for (CXCursor k : children(c)) find(k);
  };
  find(functions_.at(function).cursor);
  return spaces;
}

// The space of the pointers a function returns, where all its return statements agree (a parameter's, which its calls
// give); else device.
std::string Translator::returned_space(const std::string& function) {
  if (!returning_.insert(function).second) return "device";
  std::set<std::string> spaces;
  std::function<void(CXCursor)> find = [&](CXCursor c) {
    const CXCursorKind kind = clang_getCursorKind(c);
    if (kind == CXCursor_LambdaExpr) return;
    if (kind == CXCursor_ReturnStmt) {
      const std::vector<CXCursor> kids = children(c);
      if (!kids.empty()) spaces.insert(space_of(kids.front()));
      return;
    }
    for (CXCursor k : children(c)) find(k);
  };
  find(functions_.at(function).cursor);
  returning_.erase(function);
  return spaces.size() == 1 ? *spaces.begin() : "device";
}

// A __device__ function's pointer parameter points into whatever its calls give it (its type is a template
// parameter), but the casts and atomics written on it name one space: where every call gives one space, that space
// (a helper given a __shared__ counter casts to `threadgroup atomic<int>*`), asked again through the callers' own
// parameters and the local pointers their initializers point through; where calls give several, such a cast is
// refused (its text would be wrong for all but one).
void Translator::resolve_pointer_parameter_spaces() {
  std::map<std::string, std::set<std::string>> given;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    given.clear();
    for (const CallSite& site : call_sites_)
      for (const auto& [key, parameter] : pointer_parameters_) {
        if (parameter.function != site.callee) continue;
        const std::vector<CXCursor> args = written_arguments(site.call);
        if (parameter.index < args.size()) given[key].insert(space_of(args[parameter.index]));
      }
    for (const auto& [key, spaces] : given)
      if (spaces.size() == 1 && spaces_[key] != *spaces.begin()) {
        spaces_[key] = *spaces.begin();
        changed = true;
      }
    for (const auto& [key, init] : pointer_initializers_)
      if (const std::string space = space_of(init); spaces_[key] != space) {
        spaces_[key] = space;
        changed = true;
      }
    for (const auto& [key, declared] : assigned_pointers_)
      if (const std::set<std::string> spaces = assigned_spaces(key, declared.first); spaces.size() == 1 && spaces_[key] != *spaces.begin()) {
        spaces_[key] = *spaces.begin();
        changed = true;
      }
    if (!changed) break;
  }
  // "device and threadgroup"
  const auto listed = [](const std::set<std::string>& spaces) {
    std::string list;
    for (const auto& space : spaces) list += (list.empty() ? "" : " and ") + space;
    return list;
  };
  for (const auto& [key, declared] : assigned_pointers_)
    if (const std::set<std::string> spaces = assigned_spaces(key, declared.first); spaces.size() > 1 && functions_.count(declared.first))
      problem(functions_.at(declared.first).record.problems, declared.second,
              "pointer '" + spelling(declared.second) + "' assigned pointers into " + listed(spaces) + " memory",
              "a Metal pointer points into one address space: use one pointer per space, or branch around the code that uses it");
  for (const auto& [function, operand] : space_casts_) {
    std::string root = pointer_root(operand);
    for (int depth = 0; depth < 16 && pointer_initializers_.count(root); ++depth) root = pointer_root(pointer_initializers_.at(root));
    const auto spaces = given.find(root);
    if (spaces == given.end() || spaces->second.size() < 2 || !functions_.count(function)) continue;
    const std::string list = listed(spaces->second);
    const CXCursor parameter = clang_getCursorReferenced(strip_implicit(operand));
    problem(functions_.at(function).record.problems, operand, "cast of a pointer its calls give into " + list + " memory",
            "a Metal pointer's type names its address space, and the calls of this function give '" +
                (clang_Cursor_isNull(parameter) ? std::string("it") : spelling(parameter)) + "' pointers into " + list +
                " memory: write the function once per space, or cast at the calls");
  }
}

// A pointer type with `space` written for what it points to (`const device float*`).
std::string Translator::spaced_pointer(CXType pointer, const std::string& space) {
  const std::string type = metal_type(pointee_type(pointer));
  return (type.rfind("const ", 0) == 0 ? "const " + space + " " + type.substr(6) : space + " " + type) + "*" +
         (clang_isConstQualifiedType(pointer) ? " const" : "");
}

// The address space of what a reference parameter binds: a variable, an element or a member of one
// has its space; anything else (a temporary, a value) is a thread one. What a reference parameter of
// the calling function refers to is `param:KEY`, resolved once every call is known.
std::string Translator::bound_space(CXCursor argument) {
  CXCursor a = strip_implicit(argument);
  while (clang_getCursorKind(a) == CXCursor_ParenExpr && !children(a).empty()) a = strip_implicit(children(a).front());
  const CXCursorKind kind = clang_getCursorKind(a);
  if (kind == CXCursor_UnaryOperator && !children(a).empty() && clang_getCursorKind(strip_implicit(children(a).front())) == CXCursor_CXXThisExpr)
    return "this:" + visiting_;  // `*this`
  if (kind != CXCursor_DeclRefExpr && kind != CXCursor_ArraySubscriptExpr && kind != CXCursor_MemberRefExpr) return "thread";
  CXCursor base = a;
  while (clang_getCursorKind(base) != CXCursor_DeclRefExpr && !children(base).empty())
    base = strip_implicit(children(base).front());
  // A member of the object a method is called on (`sum`, `this->sum`, an element of an array member) is in that
  // object's space; not what a pointer member points to (`data[i]`).
  for (CXCursor at = a;;) {
    const CXCursorKind k = clang_getCursorKind(at);
    const std::vector<CXCursor> inner = children(at);
    if (k == CXCursor_CXXThisExpr || (k == CXCursor_MemberRefExpr && inner.empty())) return "this:" + visiting_;
    if ((k != CXCursor_MemberRefExpr && k != CXCursor_ArraySubscriptExpr && k != CXCursor_ParenExpr) || inner.empty()) break;
    const CXCursor next = strip_implicit(inner.front());
    if (k != CXCursor_ParenExpr && clang_getCursorKind(next) != CXCursor_CXXThisExpr && is_pointer(clang_getCursorType(next))) break;
    at = next;
  }
  const CXCursor decl = clang_getCursorReferenced(base);
  if (clang_getCursorKind(base) == CXCursor_DeclRefExpr && clang_getCursorKind(decl) == CXCursor_ParmDecl &&
      !spaces_.count(decl_key(decl)))
    // a function's own value parameter is a thread one; its reference parameter binds what its calls bind
    return is_reference(clang_getCursorType(decl)) ? "param:" + decl_key(decl) : "thread";
  return space_of(a);
}

// A bound space with `param:KEY` (a reference parameter passed on) or `this:KEY` (the object of the method KEY)
// resolved: each space that parameter's or object's function is called with (its overloads each bind one).
std::set<std::string> Translator::resolved_spaces(const std::string& space, int depth) const {
  const bool param = space.rfind("param:", 0) == 0, object = space.rfind("this:", 0) == 0;
  if (!param && !object) return {space};
  std::set<std::string> out;
  if (depth < 8)
    for (const auto& [key, fn] : functions_) {
      const std::vector<CXCursor> params = parameters_of(fn.cursor);
      const std::vector<size_t> refs = reference_parameters(fn.cursor);
      std::optional<size_t> at;
      if (object && space == "this:" + key) at = refs.size();  // the object's space follows the parameters'
      for (size_t j = 0; param && j < refs.size(); ++j)
        if ("param:" + decl_key(params[refs[j]]) == space) at = j;
      if (!at) continue;
      for (const auto& spaces : fn.reference_spaces)
        if (*at < spaces.size())
          for (const auto& s : resolved_spaces(spaces[*at], depth + 1)) out.insert(s);
    }
  if (out.empty()) out.insert("thread");
  return out;
}

// The address space of the object a call of a method of the file's structs is called on (`red[w].merge(acc)`:
// threadgroup), "" for a call of no such method; a member operator's object is its call's first argument, which
// is taken off `args`.
std::string Translator::object_space(CXCursor call, CXCursor callee, std::vector<CXCursor>& args) {
  if (clang_getCursorKind(callee) != CXCursor_CXXMethod || clang_CXXMethod_isStatic(callee)) return "";
  const std::vector<CXCursor> kids = children(call);
  if (!kids.empty() && clang_getCursorKind(kids[0]) == CXCursor_MemberRefExpr) {
    const std::vector<CXCursor> object = children(kids[0]);
    if (object.empty() || clang_getCursorKind(strip_implicit(object[0])) == CXCursor_CXXThisExpr) return "this:" + visiting_;
    return bound_space(object[0]);
  }
  if (spelling(callee).rfind("operator", 0) == 0 && !args.empty() && args.size() > parameters_of(callee).size()) {
    const CXCursor object = args.front();
    args.erase(args.begin());
    return bound_space(object);
  }
  // A functor called through its kernel's template parameter (`f(r)` of `F f`): the callee expression is the object.
  if (spelling(callee) == "operator()" && !kids.empty() && clang_getCursorKind(strip_implicit(kids[0])) == CXCursor_DeclRefExpr)
    return bound_space(kids[0]);
  return "this:" + visiting_;  // an implicit `this->`
}

// A __device__ function's text for the address spaces its reference parameters bind at its calls
// (`thread` as written, `threadgroup` for `f(partial[tid])`): when every call agrees, the one
// definition takes their spaces; otherwise each other set is an overload. metalsim drops address
// spaces, so overloads that differ only in them would be redefinitions there: each overload gets
// a number of unused defaulted template parameters of its own (valid Metal, and the plain thread
// definition stays the better match on the host).
std::string Translator::with_reference_spaces(const Function& fn, const std::string& text) {
  const std::vector<CXCursor> params = parameters_of(fn.cursor);
  const std::vector<size_t> refs = reference_parameters(fn.cursor);
  std::set<std::vector<std::string>> bound;
  // Each combination of the spaces each parameter (and a method's object, last) binds.
  for (const std::vector<std::string>& call : fn.reference_spaces) {
    std::vector<std::vector<std::string>> sets(1);
    for (const auto& space : call) {
      std::vector<std::vector<std::string>> longer;
      for (const auto& resolved : resolved_spaces(space))
        for (auto set : sets) {
          set.push_back(resolved);
          longer.push_back(std::move(set));
        }
      sets = std::move(longer);
    }
    bound.insert(sets.begin(), sets.end());
  }
  // A method's object outside thread memory: Metal's `this` is a thread pointer unless the method says otherwise
  // (`void merge(...) threadgroup { ... }`, after the parameter list and its const).
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(fn.cursor))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  const std::string head = clang_Cursor_isNull(body) ? "" : rw_.render(begin_offset(fn.cursor), begin_offset(body));
  // Where the result type starts: a method returning a reference to its object (`return *this;`, a member) returns
  // one in the object's space.
  std::optional<size_t> result_at;
  if (!head.empty() && fn.returned == std::set<std::string>{"this:" + decl_key(fn.cursor)}) {
    const std::string before = rw_.render(begin_offset(fn.cursor), position(fn.cursor).offset);
    size_t at = 0;
    for (bool skipped = true; skipped;) {
      skipped = false;
      while (at < before.size() && std::isspace(static_cast<unsigned char>(before[at]))) ++at;
      if (before.compare(at, 9, "template ") == 0 || before.compare(at, 9, "template<") == 0) {
        int depth = 0;
        for (; at < before.size(); ++at)
          if (before[at] == '<') ++depth;
          else if (before[at] == '>' && --depth == 0) break;
        ++at;
        skipped = true;
      }
      for (const std::string word : {"inline ", "static ", "constexpr ", "METAL_FUNC "})
        if (before.compare(at, word.size(), word) == 0) at += word.size(), skipped = true;
    }
    if (at < before.size()) result_at = at;
  }
  // A read-only reference that some call binds to a buffer (`const float& b` given `row[c]`) is taken by value in every
  // overload: MLX passes an input of fewer than 8 elements in constant memory, and a Metal reference binds one space.
  std::set<size_t> by_value;
  for (const auto& spaces : bound)
    for (size_t j = 0; j < refs.size() && j < spaces.size(); ++j) {
      const CXType read = pointee_type(clang_getCursorType(params[refs[j]]));
      if (spaces[j] == "device" && clang_isConstQualifiedType(read) && clang_getCanonicalType(read).kind != CXType_ConstantArray)
        by_value.insert(j);
    }
  auto respaced = [&](const std::vector<std::string>& spaces) {
    std::string out = text;
    if (spaces.size() > refs.size() && spaces[refs.size()] != "thread" && !head.empty() && out.compare(0, head.size(), head) == 0) {
      size_t at = head.size();
      while (at > 0 && std::isspace(static_cast<unsigned char>(out[at - 1]))) --at;
      out.insert(at, " " + spaces[refs.size()]);
      if (result_at) out.insert(*result_at, spaces[refs.size()] + " ");
    }
    for (size_t j = 0; j < refs.size() && j < spaces.size(); ++j) {
      const std::string written = rw_.render(begin_offset(params[refs[j]]), end_offset(params[refs[j]]));
      const size_t at = out.find(written);
      if (written.rfind("thread ", 0) != 0 || at == std::string::npos) continue;
      if (by_value.count(j) && written.find('&') != std::string::npos) {
        std::string value = written.substr(7);
        value.erase(value.rfind('&'), 1);
        out.replace(at, written.size(), value);
      } else {
        out.replace(at, 6, spaces[j]);
      }
    }
    return out;
  };
  if (bound.size() == 1) return respaced(*bound.begin());
  // The thread-memory version, then one overload per other combination (a template, so that the thread version wins
  // where both take the arguments).
  std::string out = respaced(std::vector<std::string>(refs.size(), "thread"));
  std::set<std::string> written = {out};
  std::string unused;
  for (const auto& spaces : bound) {
    std::string overload = respaced(spaces);
    if (!written.insert(overload).second) continue;
    unused += (unused.empty() ? "" : ", ") + std::string("typename = void");
    if (overload.rfind("template <", 0) == 0)
      overload.insert(10, unused + ", ");
    else
      overload = "template <" + unused + "> " + overload;
    out += (out.back() == '\n' ? "" : "\n") + overload;
  }
  return out;
}

// A pointer field of a struct given threadgroup memory in device code (`View v{&tile[0][0], 33};`, `v.data = tile;`):
// the port leaves a struct's pointer fields in one space (thread, or device for a kernel argument's), and Metal
// converts no pointer between spaces.
void Translator::shared_pointer_field(CXCursor c, Function& fn) {
  std::vector<std::pair<CXCursor, CXCursor>> given;  // (field, value)
  const std::vector<CXCursor> kids = children(c);
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator) {
    if (kids.size() != 2 || clang_getCursorKind(strip_implicit(kids[0])) != CXCursor_MemberRefExpr) return;
    const CXCursor field = clang_getCursorReferenced(strip_implicit(kids[0]));
    if (clang_getCursorKind(field) != CXCursor_FieldDecl || operator_of(unit_, c) != "=") return;
    given.push_back({field, kids[1]});
  } else {
    const CXType record = clang_getCanonicalType(clang_getCursorType(c));
    if (record.kind != CXType_Record) return;
    const std::vector<CXCursor> fields = fields_of(record);
    for (size_t i = 0; const CXCursor value : brace_values(c, fields))
      if (const CXCursor field = fields[i++]; !clang_Cursor_isNull(value)) given.push_back({field, value});
  }
  for (const auto& [field, value] : given)
    if (in_main_file(field) && is_pointer(clang_getCursorType(field)) && space_of(value) == "threadgroup")
      problem(fn.record.problems, value, "pointer field '" + spelling(field) + "' given __shared__ memory",
              "the port keeps a struct's pointer fields in one address space (thread, or device for a kernel argument's), "
              "and Metal converts no pointer between spaces: index the shared array directly, or declare the field "
              "`threadgroup T*` by hand");
}

void Translator::map_cast(CXCursor cast) {
  const unsigned b = begin_offset(cast), e = end_offset(cast);
  const std::string& t = rw_.text();
  const bool c_style = clang_getCursorKind(cast) == CXCursor_CStyleCastExpr;
  const char open = c_style ? '(' : '<', close = c_style ? ')' : '>';
  const size_t type_b = t.find(open, b);
  if (type_b == std::string::npos || type_b >= e) return;
  size_t type_e = type_b + 1;
  for (int depth = 1; type_e < e; ++type_e) {
    depth += t[type_e] == open ? 1 : t[type_e] == close ? -1 : 0;
    if (depth == 0) break;
  }
  std::vector<CXCursor> kids = children(cast);
  CXCursor operand = kids.empty() ? cast : kids.back();
  // A read-only target cast from device memory may be a cast from an input's constant memory (an input of fewer than 8
  // elements): ks_ro_cast keeps whichever space its operand has. So is a target without const whose operand points
  // into a buffer read-only through a parameter without const (LeetCUDA's `FLOAT4(x[i])`,
  // `reinterpret_cast<float4*>(&x[i])` of `float* x` given an input): Metal's binding is const. The operand's space,
  // and the launches' arguments, are known once the whole file is read, hence the edits' producers.
  const CXType pointee = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(cast)));
  const bool written_const = clang_isConstQualifiedType(pointee);
  space_casts_.push_back({visiting_, operand});
  if (is_pointer(pointee)) {
    rw_.insert(unsigned(type_b + 1), [this, operand] { return space_of(operand) + " "; });
    return;
  }
  std::string element = metal_type(pointee);
  if (element.find("type-parameter") != std::string::npos) {
    // A template parameter (`const T2*`): canonical types name it by position, so the element is the written one.
    element = rw_.render(unsigned(type_b + 1), unsigned(type_e));
    while (!element.empty() && (element.back() == '*' || std::isspace(static_cast<unsigned char>(element.back())))) element.pop_back();
  }
  if (element.rfind("const ", 0) == 0) element.erase(0, 6);
  const unsigned head_b = c_style ? unsigned(type_b) : b, head_e = unsigned(type_e + 1);
  // Asked once the whole file is read (a helper's parameter is read-only where all its calls give it an input).
  // (a const_cast of a task input, `const_cast<float*>(x)`, too: Metal's binding is const, and constant memory when small)
  const bool through_const = clang_getCursorKind(cast) == CXCursor_CXXConstCastExpr;
  auto read_only = [this, operand, written_const, through_const] {
    return written_const || points_into_read_only(operand, through_const);
  };
  if (written_const) helpers_.insert("ks_ro_cast");
  else read_only_casts_.push_back(read_only);
  rw_.replace(head_b, head_e, [this, operand, head_b, head_e, type_b, c_style, element, read_only] {
    if (read_only() && space_of(operand) == "device") return "ks_ro_cast<" + element + ">" + (c_style ? "(" : "");
    return rw_.render(head_b, unsigned(type_b + 1)) + space_of(operand) + " " + rw_.render(unsigned(type_b + 1), head_e);
  });
  if (c_style) rw_.insert(e, [this, operand, read_only] { return read_only() && space_of(operand) == "device" ? ")" : ""; });
}

// Whether a pointer expression points into a buffer read-only in Metal through a kernel parameter without const (a
// task input, or a buffer the kernel does not write, given by every launch): `&(x[idx])`, `x + off`, a local
// `auto row = x + r * n;` of such a parameter x, or a __device__ function's parameter that each of its calls gives
// such a pointer (`load4(x + i)`); an entry's parameter that is a task input (a const_cast of it in a struct's brace
// list). Through const: a kernel parameter with const too (`const float* x` given an input).
bool Translator::points_into_read_only(CXCursor pointer, bool through_const, int depth) {
  CXCursor c = pointer;
  for (; depth < 16; ++depth) {
    c = strip_casts(c);
    const CXCursorKind kind = clang_getCursorKind(c);
    const std::vector<CXCursor> kids = children(c);
    if ((kind == CXCursor_UnaryOperator || kind == CXCursor_ArraySubscriptExpr) && !kids.empty()) {
      c = kids[0];
    } else if (kind == CXCursor_BinaryOperator && kids.size() == 2) {
      c = is_pointer(clang_getCursorType(strip_casts(kids[0]))) ? kids[0] : kids[1];
    } else if (kind == CXCursor_DeclRefExpr) {
      const CXCursor decl = clang_getCursorReferenced(c);
      if (clang_getCursorKind(decl) == CXCursor_ParmDecl) {
        if (read_only_parameters_.count(decl_key(decl)) || (through_const && const_input_parameters_.count(decl_key(decl))))
          return !other_buffer_parameters_.count(decl_key(decl));
        if (auto p = host_.parameters.find(decl_key(decl)); p != host_.parameters.end()) return task_input(p->second);
        const CXCursor function = defining_cursor(clang_getCursorSemanticParent(decl));
        const std::vector<CXCursor> parameters = parameters_of(function);
        const auto at = std::find_if(parameters.begin(), parameters.end(), [&](CXCursor p) { return decl_key(p) == decl_key(decl); });
        bool called = false;
        for (const CallSite& site : call_sites_) {
          if (site.callee != decl_key(function)) continue;
          const int argument = int(at - parameters.begin());
          if (at == parameters.end() || argument >= clang_Cursor_getNumArguments(site.call) ||
              !points_into_read_only(clang_Cursor_getArgument(site.call, unsigned(argument)), through_const, depth + 1))
            return false;
          called = true;
        }
        return called;
      }
      const CXCursor init = clang_getCursorKind(decl) == CXCursor_VarDecl ? clang_Cursor_getVarDeclInitializer(decl) : clang_getNullCursor();
      if (clang_Cursor_isNull(init)) return false;
      c = init;
    } else {
      return false;
    }
  }
  return false;
}

// Uses of the file's pointer typedefs (`typedef float* fptr;`, `using cptr = const float*;`) are written as the
// pointer types they name, so that the address space the port gives a pointer (`device`, `auto`, a cast's) applies
// to what it points to: Metal's pointer types name their space, which a typedef of the file cannot.
void Translator::expand_pointer_typedefs() {
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<Translator*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        if (clang_getCursorKind(c) == CXCursor_TypeRef && pointer_typedef(clang_getCursorReferenced(c)))
          self->rw_.replace(begin_offset(c), end_offset(c),
                            self->metal_type(clang_getTypedefDeclUnderlyingType(clang_getCursorReferenced(c))));
        return CXChildVisit_Recurse;
      },
      this);
}

}  // namespace ksearch::translate::detail
