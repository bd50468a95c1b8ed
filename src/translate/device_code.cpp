// The walk over device code (docs/TRANSLATE.md): every kernel's and __device__ function's body is
// visited once, and each CUDA construct found becomes an edit: built-in variables, renamed
// parameters, inline PTX and goto refused, calls handed to calls.cpp or followed into the file's
// functions (their reference arguments' spaces noted), local declarations (__shared__ arrays hoisted
// or declared, pointers given their space), warp-synchronous volatile stores, lambdas (lambdas.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <regex>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// Metal names of CUDA's built-in variables (MLX declares them when the body names them).
const std::map<std::string, std::string> kBuiltins = {{"threadIdx", "thread_position_in_threadgroup"},
                                                      {"blockIdx", "threadgroup_position_in_grid"},
                                                      {"blockDim", "threads_per_threadgroup"},
                                                      {"gridDim", "threadgroups_per_grid"}};

// `__shared__ union { typename Load::TempStorage load; typename Scan::TempStorage scan; } temp;` (the TempStorage of
// several CUB collectives): the type is defined before the declaration, which names it (`KsShared_temp` when it has no
// name), since metalsim, as Metal, reads a threadgroup declaration as a type and a name.
void Translator::shared_record_definition(CXCursor var) {
  const CXCursor record = clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(var)));
  const CXCursorKind kind = clang_getCursorKind(record);
  if (kind != CXCursor_UnionDecl && kind != CXCursor_StructDecl) return;
  const unsigned b = begin_offset(record), e = end_offset(record);
  // Defined in the declaration: libclang's extent of the variable starts at its name, after the definition.
  const std::string between = e <= begin_offset(var) ? text(e, begin_offset(var)) : "x";
  if (!std::all_of(between.begin(), between.end(), [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); })) return;
  const size_t brace = text(b, e).find('{');
  if (brace == std::string::npos) return;
  const std::string name = clang_Cursor_isAnonymous(record) || spelling(record).empty() ? "KsShared_" + spelling(var) : spelling(record);
  // Before the declaration's specifiers (`__shared__`, `static`), where the definition is a statement of its own.
  unsigned at = b;
  for (bool more = true; more;) {
    more = false;
    unsigned end = at;
    while (end > 0 && std::isspace(static_cast<unsigned char>(rw_.text()[end - 1]))) --end;
    for (const std::string word : {"__shared__", "static", "volatile"})
      if (end >= word.size() && text(end - unsigned(word.size()), end) == word) {
        at = end - unsigned(word.size());
        more = true;
      }
  }
  const std::string keyword = kind == CXCursor_UnionDecl ? "union " : "struct ";
  rw_.insert(at, [this, keyword, name, body = b + unsigned(brace), e] { return keyword + name + " " + rw_.render(body, e) + "; "; });
  rw_.replace(b, e, name);
}

// `__shared__ const float* row[4]` declared as a pointer in threadgroup memory that points where its stores point
// (threadgroup_declaration): the type from `__shared__` to the name becomes the pointer type's name.
void Translator::shared_pointer_declaration(CXCursor var, CXType element, CXCursor root, Function& fn) {
  const std::string& t = rw_.text();
  const unsigned name_at = position(var).offset;
  const size_t shared = t.rfind("__shared__", name_at);
  const size_t statement = t.find_last_of(";{}", name_at);
  if (shared == std::string::npos || statement == std::string::npos || statement > shared) return;
  if (t.find(',', shared) < name_at) {
    problem(fn.record.problems, var, "__shared__ pointer '" + spelling(var) + "'",
            "a __shared__ pointer declared after another declarator is not rewritten: declare it on its own");
    return;
  }
  const std::string declaration = threadgroup_declaration(spaced_pointer(element, spaces_[decl_key(var)]), spelling(var), "");
  const size_t typedef_end = declaration.find(';') + 1;
  const size_t at = t.find_first_not_of(" \t\n", statement + 1);
  // Pointers derived from one kernel parameter (`root`) of the pointee's type take its type, the space MLX gives that
  // buffer (an input of fewer than 8 elements is in constant memory).
  const auto plain = [this](CXType pointer) { return unqualified_type(pointee_type(pointer)); };
  if (!clang_Cursor_isNull(root) && plain(element) == plain(clang_getCursorType(root)))
    rw_.insert(unsigned(at), [this, root, name = spelling(var)] {
      return "typedef decltype(" + rw_.render(begin_offset(root), end_offset(root)) + " + 0) KsSharedPointer_" + name + "; ";
    });
  else
    rw_.insert(unsigned(at), declaration.substr(0, typedef_end + 1));
  rw_.replace(unsigned(shared), name_at, declaration.substr(typedef_end + 1, declaration.rfind(' ') - typedef_end));
  ++fn.record.translated["__shared__ pointer"];
}

// Returns true when the declaration was replaced as a whole (its initializer is not translated).
bool Translator::map_declaration(CXCursor var, Function& fn) {
  const std::string key = decl_key(var);
  CXType type = clang_getCursorType(var);
  if (const Group group = group_of(type); group.kind != Group::none) {
    if (const std::string why = tile_refusal(group, false); !why.empty()) problem(fn.record.problems, var, "tiled_partition", why);
    // A pipeline whose threads are producers or consumers waits at different points in each (no threadgroup barrier).
    std::function<void(CXCursor)> find_roles = [&](CXCursor c) {
      if (clang_getCursorKind(c) == CXCursor_CallExpr && spelling(c) == "make_pipeline" && clang_Cursor_getNumArguments(c) == 3)
        problem(fn.record.problems, c, "cuda::make_pipeline with producer and consumer threads",
                "the port makes a block's pipeline wait at a threadgroup barrier, which producers and consumers reach at "
                "different points: let every thread copy and consume (cuda::make_pipeline(block, &state))");
      for (CXCursor k : children(c)) find_roles(k);
    };
    if (group.kind == Group::pipeline) find_roles(var);
    rw_.replace(begin_offset(var), end_offset(var), "");
    return true;
  }
  if (shared_address_variable(var, fn) || atomic_reference(var, fn)) return false;
  if (clang_Cursor_getStorageClass(var) == CX_SC_Static && !has_child(var, CXCursor_CUDASharedAttr)) static_local(var, fn);
  std::vector<CXCursor> kids = children(var);
  CXCursor init = clang_getNullCursor();
  if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back()))) init = kids.back();
  if (!atomic_object_declaration(var, fn)) return true;
  if (has_child(var, CXCursor_CUDASharedAttr)) {
    spaces_[key] = "threadgroup";
    CXType element = type;
    while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
    // A __shared__ pointer (or an array of them) lives in threadgroup memory and points where the pointers stored in it
    // point: `const device float* threadgroup row[4]` (`threadgroup const float* row[4]` would be a thread's own array
    // of pointers into threadgroup memory).
    const bool pointers = is_pointer(element) && clang_Cursor_getStorageClass(var) != CX_SC_Extern;
    CXCursor root = clang_getNullCursor();
    if (pointers) spaces_[key] = stored_space(var, fn.cursor, fn, &root);
    if (pointers && is_pointer(pointee_type(element)))
      problem(fn.record.problems, var, "__shared__ pointer to pointers '" + spelling(var) + "'",
              "the port finds where a __shared__ pointer points from what is stored in it, for one level of pointers: "
              "keep a __shared__ array of the pointers instead");
    // A struct's pointer fields point into buffers (types.cpp reports one given threadgroup memory).
    if (clang_getCanonicalType(element).kind == CXType_Record && in_main_file(clang_getTypeDeclaration(clang_getCanonicalType(element))))
      device_pointer_fields(element);
    // A __device__ function's __shared__ array is declared by the kernel and passed down: an extern one (dynamic shared
    // memory) as a pointer into the kernel's dynamic array, which every extern __shared__ array aliases in CUDA.
    if (!fn.kernel) {
      const bool dynamic = clang_Cursor_getStorageClass(var) == CX_SC_Extern;
      const unsigned name_end = position(var).offset + unsigned(spelling(var).size());
      // The function's own typedefs its type names (`typename BlockReduce::TempStorage` of a local `typedef
      // cub::BlockReduce<float, BLOCK> BlockReduce;`) are written out: the kernel declaring the array does not see them.
      std::string element_type = pointers ? spaced_pointer(element, spaces_[key]) : metal_type(element);
      std::function<void(CXCursor)> write_out_typedefs = [&](CXCursor c) {
        for (CXCursor d : children(c)) {
          if (clang_getCursorKind(d) == CXCursor_TypedefDecl || clang_getCursorKind(d) == CXCursor_TypeAliasDecl)
            element_type = whole_words(element_type, spelling(d), metal_type(clang_getTypedefDeclUnderlyingType(d)));
          write_out_typedefs(d);
        }
      };
      write_out_typedefs(fn.cursor);
      HoistedShared h{decl_key(fn.cursor), spelling(var), spelling(fn.cursor) + "_" + spelling(var), element_type,
                      dynamic ? "" : with_local_constants(fn.cursor, var, text(name_end, end_offset(var))), "", "", dynamic};
      h.resolved_element = h.element;
      h.resolved_dims = h.dims;
      fn.shared.insert(h.hoisted);
      hoisted_[h.hoisted] = h;
      // In `__shared__ float a[32], b[32];` the second declaration starts at `b`: take its comma too.
      unsigned from = begin_offset(var);
      while (from > 0 && std::isspace(static_cast<unsigned char>(rw_.text()[from - 1]))) --from;
      rw_.replace(from > 0 && rw_.text()[from - 1] == ',' ? from - 1 : begin_offset(var), end_offset(var), "");
      if (dynamic) ++fn.record.translated["extern __shared__"];
      return false;
    }
    if (clang_Cursor_getStorageClass(var) == CX_SC_Extern) {
      dynamic_shared_.push_back(var);
      fn.dynamic_shared.push_back(var);
      rw_.replace(begin_offset(var), end_offset(var), "");
      ++fn.record.translated["extern __shared__"];
    } else {
      ++fn.record.translated["__shared__"];
      shared_record_definition(var);
      if (pointers) shared_pointer_declaration(var, element, root, fn);
    }
    return false;
  }
  const unsigned name_at = position(var).offset;
  // `const T *a = x, *b = y;`: a declarator after a comma, after one written `auto` or itself a
  // pointer written `auto`, becomes a declaration of its own.
  const std::string& t = rw_.text();
  // A pointer to an array (`float (*now)[33] = tiles[0];`, a double buffer's half) has its name inside parentheses.
  const bool array_pointer = is_array_pointer(type);
  unsigned after = name_at;  // back over `*`, `&`, qualifiers (and such a `(`) to the comma before the declarator
  for (bool more = true; more;) {
    while (after > 0 && std::isspace(static_cast<unsigned char>(t[after - 1]))) --after;
    unsigned word = after;
    while (word > 0 && (std::isalnum(static_cast<unsigned char>(t[word - 1])) || t[word - 1] == '_')) --word;
    static const std::set<std::string> qualifiers = {"const", "volatile", "__restrict__", "__restrict"};
    const bool punctuator = after > 0 && (t[after - 1] == '*' || t[after - 1] == '&' || (array_pointer && t[after - 1] == '('));
    more = punctuator || (after > 0 && qualifiers.count(t.substr(word, after - word)));
    if (more) after = punctuator ? after - 1 : word;
  }
  const bool later = after > 0 && t[after - 1] == ',';
  unsigned previous_end = later ? after - 1 : 0;
  while (previous_end > 0 && std::isspace(static_cast<unsigned char>(t[previous_end - 1]))) --previous_end;
  const bool split = later && (automatic_ends_.count(previous_end) || (is_pointer(type) && !clang_Cursor_isNull(init)));
  if (split && std::any_of(for_inits_.begin(), for_inits_.end(), [&](const auto& r) { return name_at >= r.first && name_at < r.second; })) {
    problem(fn.record.problems, var, "declaration of '" + spelling(var) + "'",
            "several pointers declared in a for statement's initializer: declare them before the loop");
    return false;
  }
  if (split) automatic_ends_.insert(end_offset(var));
  if (is_pointer(type)) {
    // A pointer declared null (or without a value) and assigned later: its space is what the assignments give
    // (resolve_pointer_parameter_spaces), not the null's.
    const bool null = !clang_Cursor_isNull(init) && !split && null_pointer_constant(init);
    if (!clang_Cursor_isNull(init) && !null) {
      spaces_[key] = space_of(init);
      pointer_initializers_[key] = init;
      if (array_pointer)  // `auto now = tiles[0];`: the declarator's parentheses and dimensions go with its type
        rw_.replace(split ? after - 1 : begin_offset(var), begin_offset(init),
                    (split ? "; auto " : "auto ") + spelling(var) + " = ");
      else
        rw_.replace(split ? after - 1 : begin_offset(var), name_at, split ? "; auto " : "auto ");
      automatic_ends_.insert(end_offset(var));
    } else {
      spaces_[key] = "device";
      assigned_pointers_[key] = {decl_key(fn.cursor), var};
      rw_.insert(begin_offset(var), [this, key] { return spaces_.at(key) + " "; });
    }
    ++fn.record.translated["pointer variable (address space)"];
  } else if (is_reference(type) && !clang_Cursor_isNull(init)) {
    const bool is_const = clang_isConstQualifiedType(pointee_type(type));
    rw_.replace(begin_offset(var), name_at, is_const ? "const auto& " : "auto& ");
  } else if (split) {
    CXType element = type;  // an array's dimensions follow its name
    while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
    rw_.replace(after - 1, name_at, "; " + metal_type(element) + " ");
  }
  return false;
}

// A static local of device code (`static const float table[4] = {...};`): Metal keeps a variable of static storage in
// the constant address space only; a const one becomes an ordinary local (the same values, each call), a writable
// one, state carried from thread to thread, is reported.
void Translator::static_local(CXCursor var, Function& fn) {
  CXType element = clang_getCursorType(var);
  while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
  if (!clang_isConstQualifiedType(element)) {
    problem(fn.record.problems, var, "static local variable '" + spelling(var) + "'",
            "a writable static variable carries state from thread to thread and call to call, which Metal has no place "
            "for: keep it in a register, threadgroup memory or a buffer");
    return;
  }
  // the `static` among the declaration's specifiers, after the statement before it
  const std::string& t = rw_.text();
  const unsigned name_at = position(var).offset;
  const size_t statement = t.find_last_of(";{}", name_at);
  const size_t word = t.rfind("static", name_at);
  if (word == std::string::npos || (statement != std::string::npos && word < statement)) return;
  rw_.replace(unsigned(word), unsigned(word + 6), "");
  ++fn.record.translated["static local (const)"];
}

// A store to volatile memory as a statement (`sdata[tid] += sdata[tid + 16];`): CUDA's
// warp-synchronous code (the classic reductions' last warp) relies on a warp's lanes reading
// before any writes, as lockstep execution did. Metal's SIMD groups promise no such order, so the
// value stored is read first and SIMD-group barriers order the read, the store and the next step:
// `{ const auto ks_stored = (rhs); simdgroup_barrier(...); lhs += ks_stored; simdgroup_barrier(...); }`.
bool Translator::volatile_store(CXCursor assignment, Function& fn) {
  const std::vector<CXCursor> sides = children(assignment);
  if (sides.size() != 2 || !clang_isVolatileQualifiedType(clang_getCursorType(sides[0]))) return false;
  const unsigned b = begin_offset(assignment), e = end_offset(assignment);
  const std::string& t = rw_.text();
  size_t before = b, after = e;
  while (before > 0 && std::isspace(static_cast<unsigned char>(t[before - 1]))) --before;
  while (after < t.size() && std::isspace(static_cast<unsigned char>(t[after]))) ++after;
  const bool statement = after < t.size() && t[after] == ';' && before > 0 && std::string("{;)}").find(t[before - 1]) != std::string::npos;
  const std::string op = t.substr(end_offset(sides[0]), begin_offset(sides[1]) - end_offset(sides[0]));
  if (!statement || op.find('=') == std::string::npos) return false;
  ++fn.record.translated["volatile warp-synchronous store"];
  const std::string note = "stores to volatile memory (warp-synchronous code) read their value first, with SIMD-group barriers "
                           "around the store: Metal's SIMD groups do not run in lockstep";
  if (std::find(out_.notes.begin(), out_.notes.end(), note) == out_.notes.end()) out_.notes.push_back(note);
  const std::string barrier = "simdgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device)";
  rw_.replace(b, e, [this, sides, op, barrier] {
    return fmt::format("{{ const auto ks_stored = ({}); {}; {}{}ks_stored; {}; }}", rw_.render(begin_offset(sides[1]), end_offset(sides[1])),
                       barrier, rw_.render(begin_offset(sides[0]), end_offset(sides[0])), op, barrier);
  });
  return true;
}

// A call of an object whose type is a kernel's template parameter (`f(r)` of `template <typename F> ... (F f)`) names
// no declaration until the kernel is instantiated: it calls the operator() of the struct the launches give F, which
// the call must pass the built-in variables it uses.
CXCursor Translator::functor_operator(CXCursor call, Function& fn) {
  const std::vector<CXCursor> kids = children(call);
  if (kids.empty()) return clang_getNullCursor();
  const CXCursor type = written_type(strip_implicit(kids[0]));
  const auto bound = clang_Cursor_isNull(type) ? bound_records_.end() : bound_records_.find(decl_key(type));
  if (bound == bound_records_.end()) return clang_getNullCursor();
  if (bound->second.size() > 1) {
    problem(fn.record.problems, call, "call of the functor '" + spelling(strip_implicit(kids[0])) + "'",
            "the launches give '" + spelling(type) + "' different structs, whose operator() may need different built-in "
            "variables passed at this one call: launch one functor type per kernel");
    return clang_getNullCursor();
  }
  return method_of(clang_getTypeDeclaration(bound->second.front()), "operator()");
}

// `__shared__ cuda::atomic<int, cuda::thread_scope_block> count;` (or an array of them) becomes `threadgroup
// atomic<int> count;`: Metal's atomic objects live in threadgroup or device memory, so one elsewhere is reported.
// False when the declaration is reported.
bool Translator::atomic_object_declaration(CXCursor var, Function& fn) {
  CXType element = clang_getCanonicalType(clang_getCursorType(var));
  for (CXType inner; (inner = clang_getArrayElementType(element)).kind != CXType_Invalid;) element = clang_getCanonicalType(inner);
  if (!is_atomic_object(element)) return true;
  const unsigned b = begin_offset(var), name_at = position(var).offset;
  const std::string written = b < name_at ? text(b, name_at) : "";
  const size_t from = written.find("cuda::"), open = written.find('<', from == std::string::npos ? 0 : from);
  size_t close = open;
  for (int depth = 0; close != std::string::npos && close < written.size(); ++close) {
    depth += written[close] == '<' ? 1 : written[close] == '>' ? -1 : 0;
    if (depth == 0) break;
  }
  if (!has_child(var, CXCursor_CUDASharedAttr) || from == std::string::npos || open == std::string::npos || close >= written.size()) {
    problem(fn.record.problems, var, "cuda::atomic '" + spelling(var) + "'",
            "Metal's atomic objects live in threadgroup or device memory: declare it __shared__ (spelled cuda::atomic<T, scope>), "
            "or use cuda::atomic_ref on the memory it counts in");
    return false;
  }
  rw_.replace(b + unsigned(from), b + unsigned(close) + 1, metal_type(element));
  ++fn.record.translated["cuda::atomic"];
  return true;
}

// `cuda::atomic_ref<float, cuda::thread_scope_device> ref(y[i]);` becomes `auto ref = &(y[i]);`, in the object's space,
// which the methods' atomics take (calls.cpp); the object is still translated (the initializer is visited).
bool Translator::atomic_reference(CXCursor var, Function& fn) {
  if (!is_atomic_ref(clang_getCursorType(var))) return false;
  const CXCursor object = atomic_referent(var);
  const unsigned name_at = position(var).offset, name_end = name_at + unsigned(spelling(var).size());
  if (clang_Cursor_isNull(object) || is_reference(clang_getCursorType(var)) || begin_offset(var) >= name_at) {
    problem(fn.record.problems, var, "cuda::atomic_ref '" + spelling(var) + "'",
            "the port makes each reference a pointer to its object: declare it by itself, made of the object "
            "(cuda::atomic_ref<T> ref(object);)");
    return false;
  }
  spaces_[decl_key(var)] = space_of(object);
  rw_.replace(begin_offset(var), end_offset(var), [this, name_at, name_end, object] {
    return "auto " + rw_.render(name_at, name_end) + " = &(" + rw_.render(begin_offset(object), end_offset(object)) + ")";
  });
  ++fn.record.translated["cuda::atomic_ref"];
  return true;
}

namespace {

// The variable or array a pointer expression is derived from (`inp + idx * C`, `&shared[n]`): the first pointer or
// array named in it, as its reference there; a null cursor where none is.
CXCursor pointer_root_reference(CXCursor expression) {
  CXCursor root = clang_getNullCursor();
  std::function<void(CXCursor)> find = [&](CXCursor c) {
    if (!clang_Cursor_isNull(root)) return;
    const CXType type = clang_getCanonicalType(clang_getCursorType(c));
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
        (is_pointer(type) || type.kind == CXType_ConstantArray || type.kind == CXType_IncompleteArray)) {
      root = c;
      return;
    }
    for (CXCursor k : children(c)) find(k);
  };
  find(expression);
  return root;
}

std::string pointer_root(CXCursor expression) {
  const CXCursor root = pointer_root_reference(expression);
  return clang_Cursor_isNull(root) ? "" : decl_key(clang_getCursorReferenced(root));
}

bool names(CXCursor expression, const std::string& key) {
  if (clang_getCursorKind(expression) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(expression)) == key)
    return true;
  for (CXCursor k : children(expression))
    if (names(k, key)) return true;
  return false;
}

}  // namespace

// Where the pointers stored in a variable point (`row = x + r * cols`, `rows[i] = ...`, assignments in `scope`):
// device when nothing but null is stored; a store into another space too is reported (one Metal pointer type). `root`
// gets the reference to a pointer parameter of the kernel every stored pointer is derived from, if there is one.
std::string Translator::stored_space(CXCursor var, CXCursor scope, Function& fn, CXCursor* root) {
  const std::string key = decl_key(var);
  std::set<std::string> found, roots;
  std::function<void(CXCursor)> walk = [&](CXCursor c) {
    const std::vector<CXCursor> sides = children(c);
    if (clang_getCursorKind(c) == CXCursor_BinaryOperator && sides.size() == 2 && operator_of(unit_, c) == "=") {
      CXCursor target = strip_implicit(sides[0]);
      while ((clang_getCursorKind(target) == CXCursor_ArraySubscriptExpr || clang_getCursorKind(target) == CXCursor_ParenExpr) &&
             !children(target).empty())
        target = strip_implicit(children(target).front());
      if (clang_getCursorKind(target) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(target)) == key &&
          is_pointer(clang_getCursorType(sides[1]))) {  // (an array decays: the implicit conversion's type)
        found.insert(space_of(sides[1]));
        const CXCursor reference = pointer_root_reference(sides[1]);
        const CXCursor decl = clang_Cursor_isNull(reference) ? reference : clang_getCursorReferenced(reference);
        roots.insert(clang_Cursor_isNull(decl) || clang_getCursorKind(decl) != CXCursor_ParmDecl || !fn.kernel ? "" : decl_key(decl));
        if (root && !clang_Cursor_isNull(reference)) *root = reference;
      }
    }
    for (CXCursor k : sides) walk(k);
  };
  walk(scope);
  if (found.size() > 1)
    problem(fn.record.problems, var, "pointer into " + *found.begin() + " or " + *found.rbegin() + " memory",
            "a Metal pointer points into one address space, and '" + spelling(var) +
                "' is given pointers into both: keep one table per space");
  if (root && (roots.size() != 1 || roots.begin()->empty())) *root = clang_getNullCursor();
  return found.empty() ? "device" : *found.begin();
}

// A pointer variable given another buffer later in its own block (llm.c's softmax: `x = out + idx * C;` after `const
// float* x = inp + idx * C;`): a Metal pointer has one address space, and MLX passes an input of fewer than 8
// elements in constant memory, the outputs in device memory. From such an assignment to the block's end the name is
// a new variable, `{ auto x = out + idx * C; ... }`, in the space of what it is given. Assignments inside nested
// statements (one of two branches) and variables whose address is taken are left as they are.
void Translator::rebind_pointer_variables(CXCursor block) {
  const std::vector<CXCursor> statements = children(block);
  std::map<std::string, std::string> roots;  // pointer variables declared in the block -> what they point into
  // the variables whose address is taken or that a lambda captures (which sees the first variable only), read once a
  // block has an assignment to rebind
  std::optional<std::set<std::string>> address_taken;
  std::function<void(CXCursor)> find_addresses = [&](CXCursor c) {
    if (clang_getCursorKind(c) == CXCursor_UnaryOperator && text(begin_offset(c), begin_offset(c) + 1) == "&")
      for (CXCursor k : children(c))
        if (clang_getCursorKind(strip_implicit(k)) == CXCursor_DeclRefExpr)
          address_taken->insert(decl_key(clang_getCursorReferenced(strip_implicit(k))));
    if (clang_getCursorKind(c) == CXCursor_LambdaExpr)
      for (CXCursor k : children(c))
        if (clang_getCursorKind(k) == CXCursor_VariableRef) address_taken->insert(decl_key(clang_getCursorReferenced(k)));
    for (CXCursor k : children(c)) find_addresses(k);
  };
  int opened = 0;
  for (CXCursor statement : statements) {
    const CXCursorKind kind = clang_getCursorKind(statement);
    if (kind == CXCursor_DeclStmt) {
      for (CXCursor var : children(statement))
        if (clang_getCursorKind(var) == CXCursor_VarDecl && is_pointer(clang_getCursorType(var))) {
          const CXCursor init = clang_Cursor_getVarDeclInitializer(var);
          roots[decl_key(var)] = clang_Cursor_isNull(init) ? "" : pointer_root(init);
        }
      continue;
    }
    const std::vector<CXCursor> sides = children(statement);
    if (kind != CXCursor_BinaryOperator || sides.size() != 2 || clang_getCursorKind(strip_implicit(sides[0])) != CXCursor_DeclRefExpr)
      continue;
    const std::string op = operator_of(unit_, statement), key = decl_key(clang_getCursorReferenced(strip_implicit(sides[0])));
    const auto declared = roots.find(key);
    if (op != "=" || declared == roots.end() || names(sides[1], key)) continue;
    const std::string root = pointer_root(sides[1]);
    if (root.empty() || root == declared->second) continue;
    if (!address_taken) {
      address_taken.emplace();
      find_addresses(block);
    }
    if (address_taken->count(key)) continue;
    rw_.insert(begin_offset(statement), "{ auto ");
    declared->second = root;
    ++opened;
  }
  if (opened > 0) rw_.insert(end_offset(block) - 1, std::string(size_t(opened), '}') + " ");
}

// A function pointer in device code (a variable, a parameter, an array of them, a struct's member): Metal has no
// function pointers, and the port makes a function object only of a function named as an argument or a template
// argument. Reported at its declaration (a member once).
void Translator::refuse_function_pointer(CXCursor declaration, Function& fn) {
  if (!is_function_pointer(clang_getCursorType(declaration))) return;
  const CXCursorKind kind = clang_getCursorKind(declaration);
  if (kind == CXCursor_FieldDecl && !reported_fields_.insert(decl_key(declaration)).second) return;
  const std::string what = kind == CXCursor_ParmDecl ? "parameter" : kind == CXCursor_FieldDecl ? "member" : "variable";
  problem(fn.record.problems, declaration,
          "function pointer " + what + " '" + spelling(declaration) + "'",
          "Metal has no function pointers: branch on the condition and call each function directly, or make the "
          "function a template parameter (`template <typename F>` given a functor, or `template <float (*f)(float)>` "
          "given the function)");
}

// A std::tuple (cuda::std::tuple) in device code, a variable's, a parameter's or a function's result: Metal's library has
// none, and the port writes only a pair (ks_pair). Reported at the declaration.
void Translator::refuse_tuple(CXCursor declaration, CXType type, Function& fn) {
  if (take(clang_getTypeSpelling(clang_getCanonicalType(type))).find("std::tuple<") == std::string::npos) return;
  problem(fn.record.problems, declaration, "std::tuple '" + spelling(declaration) + "'",
          "Metal's library has no tuple and the port does not write one: return a struct of the file (a structured "
          "binding unpacks it), or a cuda::std::pair of two values");
}

// A span constructed from memory outside device buffers (`cuda::std::span<float, 4> sums(warp_sums);` over a
// `__shared__` array, a register array, a pointer into threadgroup memory): the helper's pointer type is a template
// argument (device memory's by default), written here as the argument's own
// (`ks_span<float, 4, decltype((warp_sums) + 0)> sums(warp_sums, 4);`), an array's count given as the pointer's. Such a
// span given to a function's span parameter, which views device memory, is reported.
void Translator::span_declaration(CXCursor var, Function& fn) {
  const CXType type = clang_getCanonicalType(clang_getCursorType(var));
  if (take(clang_getTypeSpelling(type)).find("cuda::std::span<") == std::string::npos) return;
  const std::vector<CXCursor> kids = children(var);
  const CXCursor construction = kids.empty() ? clang_getNullCursor() : strip_implicit(kids.back());
  if (clang_getCursorKind(construction) != CXCursor_CallExpr || clang_Cursor_getNumArguments(construction) < 1 ||
      std::string(")}").find(rw_.text()[end_offset(construction) - 1]) == std::string::npos)
    return;
  const CXCursor data = clang_Cursor_getArgument(construction, 0);
  const CXType data_type = clang_getCanonicalType(clang_getCursorType(strip_implicit(data)));
  const bool array = data_type.kind == CXType_ConstantArray;
  if (!array && (!is_pointer(data_type) || space_of(data) == "device")) return;
  const std::vector<std::string> arguments = type_template_arguments(type);
  const std::string element = metal_type(clang_Type_getTemplateArgumentAsType(type, 0));
  // (the dynamic extent, size_t(-1), as written: its value is no literal of a signed type)
  const std::string extent = arguments.size() > 1 && arguments[1].find_first_not_of("0123456789") == std::string::npos &&
                                     arguments[1] != std::to_string(SIZE_MAX)
                                 ? arguments[1]
                                 : "size_t(-1)";
  const unsigned name_at = position(var).offset;
  unsigned type_at = begin_offset(var);
  if (text(type_at, name_at).rfind("const ", 0) == 0) type_at += 6;
  rw_.replace(type_at, name_at, [this, element, extent, data] {
    return fmt::format("ks_span<{}, {}, decltype(({}) + 0)> ", element, extent, rw_.render(begin_offset(data), end_offset(data)));
  });
  // (with the construction's closing parenthesis or brace: an insertion after the data would render in its type too)
  const unsigned close = end_offset(construction) - 1;
  if (array) rw_.replace(close, close + 1, fmt::format(", {}{}", clang_getArraySize(data_type), rw_.text()[close]));
  other_space_spans_.insert(decl_key(var));
  ++fn.record.translated["cuda::std::span outside device memory"];
}

// `(&v.x)[j]`: CUDA's vector types are structs, whose components a pointer to the first indexes; a Metal vector is
// indexed itself (`v[j]`), and the address of one of its components is refused.
void Translator::index_through_first_component(CXCursor subscript) {
  const std::vector<CXCursor> kids = children(subscript);
  if (kids.size() != 2) return;
  CXCursor base = strip_implicit(kids[0]);
  while (clang_getCursorKind(base) == CXCursor_ParenExpr && !children(base).empty()) base = strip_implicit(children(base).front());
  if (clang_getCursorKind(base) != CXCursor_UnaryOperator || children(base).empty() || tokens_of(unit_, base).front() != "&") return;
  const CXCursor member = strip_implicit(children(base).front());
  if (clang_getCursorKind(member) != CXCursor_MemberRefExpr || spelling(member) != "x" || children(member).empty()) return;
  const CXCursor object = children(member).front();
  static const std::regex vector_type(R"((packed_)?(float|half|bfloat|int|uint|short|ushort|char|uchar|long|ulong)[234])");
  if (!std::regex_match(metal_type(clang_getCursorType(object)), vector_type)) return;
  rw_.replace(begin_offset(kids[0]), end_offset(kids[0]),
              [this, object] { return "(" + rw_.render(begin_offset(object), end_offset(object)) + ")"; });
}

void Translator::visit(CXCursor c, Function& fn) {
  std::vector<Problem>& problems = fn.record.problems;
  const CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_AsmStmt) {
    if (port_ptx(c, fn)) return;
    const std::string asm_text = text(begin_offset(c), end_offset(c));
    struct Known { const char* needle; const char* construct; const char* reason; };
    static const Known known[] = {
        {"mma.sync", "mma.sync",
         "the port emulates mma.sync.aligned.m16n8k* (row.col: k8/k16 of f16 and bf16, k4/k8 of tf32, k16/k32 of s8 and "
         "u8); other shapes and types: rewrite with simdgroup_matrix 8x8 (simdgroup_multiply_accumulate)"},
        {"ldmatrix", "ldmatrix", "the port emulates ldmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16 only"},
        {"stmatrix", "stmatrix", "the port emulates stmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16 only"},
        {"cp.async.bulk", "TMA (cp.async.bulk)", "the tensor memory accelerator has no Metal equivalent"},
        {"cp.async", "cp.async", "asynchronous global->shared copies have no Metal equivalent"},
        {"wgmma", "wgmma", "warpgroup MMA has no Metal equivalent"}};
    for (const auto& k : known)
      if (asm_text.find(k.needle) != std::string::npos) return problem(problems, c, k.construct, k.reason);
    return problem(problems, c, "inline PTX", "inline assembly has no Metal equivalent");
  }
  if (kind == CXCursor_CallExpr) wrap_function_arguments(c, fn);
  // Calls that are statements of their own, whose value nothing reads (`if (lane == 0) atomicExch(&total, 0);`).
  if (kind == CXCursor_CompoundStmt || kind == CXCursor_IfStmt || kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt) {
    const std::vector<CXCursor> kids = children(c);
    // (An if's or a while's first child is its condition, a for's last its body; a compound statement's are all statements.)
    const size_t from = kind == CXCursor_CompoundStmt ? 0 : kind == CXCursor_ForStmt ? kids.size() - std::min<size_t>(kids.size(), 1) : 1;
    for (size_t i = from; i < kids.size(); ++i)
      if (clang_getCursorKind(kids[i]) == CXCursor_CallExpr) statement_calls_.insert(begin_offset(kids[i]));
  }
  if (visit_cub(c, fn)) return;
  // C++ that the Metal Shading Language leaves out (metalsim's host compiler would accept it).
  if (kind == CXCursor_LambdaExpr) return visit_lambda(c, fn);
  if (kind == CXCursor_GotoStmt) return problem(problems, c, "goto", "the Metal Shading Language has no goto: use a loop or a flag");
  if (kind == CXCursor_ConditionalOperator && fn.kernel && is_pointer(clang_getCursorType(c))) fn.pointer_choices.push_back(c);
  if (kind == CXCursor_ArraySubscriptExpr) index_through_first_component(c);
  if (kind == CXCursor_TemplateRef) {  // a kernel's template template parameter: the template its launch gives
    if (const auto r = param_renames_.find(decl_key(clang_getCursorReferenced(c))); r != param_renames_.end())
      rw_.replace(begin_offset(c), end_offset(c), r->second);
  }
  if (kind == CXCursor_DeclRefExpr && functor_parameters_.count(decl_key(clang_getCursorReferenced(c)))) {
    rw_.replace(begin_offset(c), end_offset(c), spelling(c) + "{}");  // a function-pointer template parameter's object
    return;
  }
  if (kind == CXCursor_DeclRefExpr) {
    CXCursor decl = clang_getCursorReferenced(c);
    const std::string name = spelling(decl);
    const auto at = name_range(c);
    const bool builtin = from_prelude(decl) && (kBuiltins.count(name) || name == "warpSize");
    auto rename = param_renames_.find(decl_key(decl));
    if ((builtin || rename != param_renames_.end()) && !at) {
      macro_problem(problems, c);
    } else if (from_prelude(decl)) {
      if (auto b = kBuiltins.find(name); b != kBuiltins.end()) {
        rw_.replace(at->first, at->second, b->second);
        fn.builtins.insert(name);
        ++fn.record.translated[name];
      } else if (name == "warpSize") {
        rw_.replace(at->first, at->second, "32");
        ++fn.record.translated[name];
      }
    } else if (rename != param_renames_.end()) {
      rw_.replace(at->first, at->second, rename->second);
    } else if (clang_getCursorKind(decl) == CXCursor_VarDecl &&
               std::any_of(dynamic_shared_.begin(), dynamic_shared_.end(), [&](CXCursor d) { return decl_key(d) == decl_key(decl); })) {
      if (at && dynamic_shared_name(decl) != name) rw_.replace(at->first, at->second, dynamic_shared_name(decl));
      if (!fn.kernel)
        pass_down_dynamic_shared(fn, decl);  // a file-scope one
      else if (std::none_of(fn.dynamic_shared.begin(), fn.dynamic_shared.end(), [&](CXCursor d) { return decl_key(d) == decl_key(decl); }))
        fn.dynamic_shared.push_back(decl);  // a file-scope one
    }
  } else if (kind == CXCursor_CallExpr) {
    if (map_shared_accessor(c, fn)) return;
    for (CXCursor k : children(c))
      if (clang_getCursorKind(k) == CXCursor_CallExpr && spelling(k) == "__cudaPushCallConfiguration")
        return problem(problems, c, "kernel launch in device code", "dynamic parallelism has no Metal equivalent");
    // A call of a lambda's variable: what its arguments bind (its reference parameters' space), and whether the
    // lambda is given itself (recursion, which Metal does not have).
    // (Its children: the object, the operator() it calls unless the lambda is generic, the arguments.)
    const std::vector<CXCursor> kids = children(c);
    const CXCursor object = kids.empty() ? c : clang_getCursorReferenced(strip_implicit(kids[0]));
    if (std::any_of(lambda_variables_.begin(), lambda_variables_.end(), [&](const auto& v) { return clang_equalCursors(v.second, object); })) {
      std::vector<std::string> spaces;
      for (size_t i = 1; i < kids.size(); ++i) {
        const CXCursor argument = strip_implicit(kids[i]);
        if (spelling(argument) == "operator()") continue;
        if (clang_getCursorKind(argument) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(argument), object))
          problem(problems, c, "recursion through the lambda '" + spelling(object) + "'",
                  "the lambda is given itself as an argument to call itself, and Metal has no recursion: write a loop");
        spaces.push_back(bound_space(kids[i]));
      }
      lambda_calls_[decl_key(object)].push_back(spaces);
    }
    // A helper returning a shared-window address, whose call a ported cp.async replaced by its pointer (ptx.cpp).
    if (cvta_followed_.count(begin_offset(c)) && spelling(c) != "__cvta_generic_to_shared") {
      for (int i = 0; i < clang_Cursor_getNumArguments(c); ++i) visit(clang_Cursor_getArgument(c, unsigned(i)), fn);
      return;
    }
    const CXCursor functor = functor_operator(c, fn);
    CXCursor callee = clang_Cursor_isNull(functor) ? called_declaration(c) : functor;
    // a call through a function template parameter the launches bind (kernel_arguments.cpp)
    const auto bound_function = clang_Cursor_isNull(callee) ? bound_functions_.end() : bound_functions_.find(decl_key(callee));
    if (bound_function != bound_functions_.end()) callee = bound_function->second;
    const bool group_method = method_group(c).kind != Group::none;
    if (!clang_Cursor_isNull(callee)) {
      if (from_prelude(callee) || group_method) {
        map_call(c, callee, fn);
        // A group method's pattern replaces its object too (`cg::this_thread_block().thread_rank()`).
        if (group_method || (clang_getCursorKind(callee) == CXCursor_CXXMethod && spelling(callee).rfind("operator", 0) != 0)) {
          const std::vector<CXCursor> kids = children(c);
          for (size_t i = 1; i < kids.size(); ++i) visit(kids[i], fn);
          return;
        }
      } else if (in_main_file(callee)) {
        const std::string key = decl_key(defining_cursor(callee));
        if (functions_.count(key)) {
          fn.callees.insert(key);
          function_template_arguments(c, callee, fn);
          // Group handles passed to the function are dropped with its parameters for them.
          std::vector<CXCursor> args = written_arguments(c);
          std::vector<size_t> groups = group_parameters(functions_.at(key).cursor);
          groups.erase(std::remove_if(groups.begin(), groups.end(), [&](size_t i) { return i >= args.size(); }), groups.end());
          call_sites_.push_back({c, key, args.size() - groups.size(), visiting_});
          const std::vector<CXCursor> params = parameters_of(functions_.at(key).cursor);
          for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
            if (shared_address_parameter(params[i])) pass_shared_address(args[i], fn);
            const CXCursor given = strip_implicit(args[i]);
            if (clang_getCursorKind(given) == CXCursor_DeclRefExpr && other_space_spans_.count(decl_key(clang_getCursorReferenced(given))) &&
                take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(params[i])))).find("cuda::std::span<") != std::string::npos)
              problem(fn.record.problems, args[i], "span of threadgroup or thread memory '" + spelling(given) + "' as an argument",
                      "a span parameter views device memory (a Metal pointer names its address space): pass the span's "
                      "data() and size(), or make the parameter's type a template parameter");
          }
          if (clang_getCursorKind(functions_.at(key).cursor) == CXCursor_FunctionTemplate)
            name_pointer_deduced_templates(c, functions_.at(key).cursor, args, fn);
          // The object a method is called on is translated too (`red[threadIdx.x / 32].merge(acc)`), and its space
          // follows the parameters' (a member operator's object is its first argument).
          std::vector<CXCursor> passed = args;
          const std::string object = object_space(c, callee, passed);
          if (!clang_Cursor_isNull(functor) || bound_function != bound_functions_.end()) visit(kids[0], fn);
          else if (!kids.empty() && clang_getCursorKind(kids[0]) == CXCursor_MemberRefExpr)
            for (CXCursor k : children(kids[0])) visit(k, fn);
          std::vector<std::string> spaces;
          // (A reference to a pointer binds the caller's pointer variable, a thread one, not what it points to.)
          for (size_t i : reference_parameters(functions_.at(key).cursor))
            spaces.push_back(i < passed.size() && !(i < params.size() && is_pointer(pointee_type(clang_getCursorType(params[i]))))
                                 ? bound_space(passed[i])
                                 : "thread");
          if (!object.empty()) spaces.push_back(object);
          functions_.at(key).reference_spaces.insert(spaces);
          for (const auto& [b, e] : list_removals(args, groups)) rw_.replace(b, e, "");
          for (size_t i = 0; i < args.size(); ++i)
            if (std::find(groups.begin(), groups.end(), i) == groups.end()) visit(args[i], fn);
          return;
        }
        // A compiler builtin (`__builtin_expect`) is declared where it is first used.
        if (spelling(callee).rfind("__builtin_", 0) == 0 && maps_.functions.count(spelling(callee))) map_call(c, callee, fn);
      } else if (clang_getCursorKind(callee) == CXCursor_FunctionDecl || clang_getCursorKind(callee) == CXCursor_FunctionTemplate) {
        const std::string name = std_key(callee, maps_);
        for (const std::string& key : {name, name + "f"})
          if (maps_.functions.count(key) || maps_.untranslatable.count(key)) {
            map_call(c, callee, fn);
            break;
          }
      }
    }
  } else if (kind == CXCursor_InitListExpr || kind == CXCursor_BinaryOperator) {
    if (const std::vector<CXCursor> kids = children(c); kind == CXCursor_BinaryOperator && kids.size() == 2 &&
                                                        is_pointer(clang_getCursorType(kids[0])) && operator_of(unit_, c) == "=")
      note_accessor_target(kids[1], clang_getCursorType(kids[0]));
    shared_pointer_field(c, fn);
  } else if (kind == CXCursor_MemberRefExpr) {
    // `p->x` on a pointer to a CUDA type (DeepSpeed's `uint4* d = ...; d->x = 0;`): Metal's vectors are no structs,
    // and take `(*p).x` (as the port's helper structs for the others do).
    if (const std::vector<CXCursor> kids = children(c); !kids.empty() && is_pointer(clang_getCursorType(kids[0]))) {
      const CXType pointee = clang_getCanonicalType(pointee_type(clang_getCursorType(kids[0])));
      if (pointee.kind == CXType_Record && from_prelude(clang_getTypeDeclaration(pointee))) {
        const CXCursor base = kids[0];
        const std::string member = spelling(c);
        rw_.replace(begin_offset(c), end_offset(c),
                    [this, base, member] { return "(*" + rw_.render(begin_offset(base), end_offset(base)) + ")." + member; });
      }
    }
    // A reference member (CUB's `TempStorage& temp_storage` bound to __shared__ storage): Metal's reference types
    // carry an address space, which the port does not infer for a member.
    const CXCursor field = clang_getCursorReferenced(c);
    if (clang_getCursorKind(field) == CXCursor_FieldDecl && in_main_file(field)) refuse_function_pointer(field, fn);
    if (clang_getCursorKind(field) == CXCursor_FieldDecl && in_main_file(field) && is_reference(clang_getCursorType(field)) &&
        reported_fields_.insert(decl_key(field)).second)
      problem(fn.record.problems, field, "reference member '" + spelling(field) + "'",
              "a Metal reference points into one address space, which the port does not infer for a struct's member (Metal "
              "would take it as thread memory): pass the object to the methods that use it, or write the member's space "
              "(`threadgroup TempStorage&`) by hand");
  } else if (kind == CXCursor_ReturnStmt) {
    if (is_reference(clang_getCursorResultType(fn.cursor)))
      for (CXCursor k : children(c)) fn.returned.insert(bound_space(k));
  } else if (kind == CXCursor_VarDecl) {
    refuse_function_pointer(c, fn);
    refuse_tuple(c, clang_getCursorType(c), fn);
    span_declaration(c, fn);
    if (const std::vector<CXCursor> kids = children(c); !kids.empty() && clang_getCursorKind(strip_implicit(kids.back())) == CXCursor_LambdaExpr)
      lambda_variables_[begin_offset(strip_implicit(kids.back()))] = c;
    local_aggregate(c);
    if (drop_accessor_object(c)) return;
    if (const CXCursor init = clang_Cursor_getVarDeclInitializer(c); !clang_Cursor_isNull(init) && is_pointer(clang_getCursorType(c)))
      note_accessor_target(init, clang_getCursorType(c));
    if (map_declaration(c, fn)) return;
  } else if ((kind == CXCursor_CompoundAssignOperator || kind == CXCursor_BinaryOperator) && volatile_store(c, fn)) {
    for (CXCursor k : children(c)) visit(k, fn);
    return;
  } else if (kind == CXCursor_CompoundStmt) {
    rebind_pointer_variables(c);
  } else if (kind == CXCursor_ForStmt) {
    if (const std::vector<CXCursor> parts = children(c); !parts.empty() && clang_getCursorKind(parts[0]) == CXCursor_DeclStmt)
      for_inits_.push_back({begin_offset(parts[0]), end_offset(parts[0])});
  } else if (kind == CXCursor_CStyleCastExpr || kind == CXCursor_CXXReinterpretCastExpr || kind == CXCursor_CXXStaticCastExpr ||
             kind == CXCursor_CXXConstCastExpr) {
    if (is_pointer(clang_getCursorType(c))) {
      if (const std::vector<CXCursor> kids = children(c); !kids.empty()) note_accessor_target(kids.back(), clang_getCursorType(c));
      map_cast(c);
      ++fn.record.translated["pointer cast (address space)"];
    }
  }
  for (CXCursor k : children(c)) visit(k, fn);
}

}  // namespace ksearch::translate::detail
