// Calls of CUDA functions (docs/TRANSLATE.md): math, warp, atomic, cooperative-groups and
// intrinsic functions rewritten by the patterns of mappings.toml (a rename or a pattern over the
// arguments, the helpers and threadgroup arrays it needs), with shuffle widths and tiles narrower than
// a SIMD group segmented, and arguments converted as C converts them to the parameters' types.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

// C converts a call's arguments to its parameters' types (`fminf(v, 1)`, `min(n, blockDim.x)` of
// an int and an unsigned); Metal's functions are overloaded, where such a call is ambiguous or picks
// another overload. An arithmetic (or half) argument of another type than its parameter is
// converted as the CUDA call converts it.
void Translator::convert_arguments(CXCursor callee, const std::vector<CXCursor>& args) {
  auto arithmetic = [](CXType t) {
    const CXTypeKind k = clang_getCanonicalType(t).kind;
    const std::string name = take(clang_getTypeSpelling(clang_getCanonicalType(t)));
    return (k >= CXType_Bool && k <= CXType_LongDouble) || k == CXType_Half || k == CXType_Float16 ||
           name == "__half" || name == "__nv_bfloat16";
  };
  const int count = clang_Cursor_getNumArguments(callee);
  for (size_t i = 0; i < args.size() && int(i) < count; ++i) {
    CXType parameter = clang_getCursorType(clang_Cursor_getArgument(callee, unsigned(i)));
    if (is_reference(parameter)) parameter = pointee_type(parameter);
    const CXType argument = clang_getCursorType(strip_implicit(args[i]));
    if (!arithmetic(parameter) || !arithmetic(argument) || unqualified_type(parameter) == unqualified_type(argument)) continue;
    rw_.insert(begin_offset(args[i]), unqualified_type(parameter) + "(");
    rw_.insert(end_offset(args[i]), ")");
  }
}

namespace {

// Whether `function` declares a parameter or a variable named `name`.
bool declares_name(CXCursor function, const std::string& name) {
  std::pair<const std::string*, bool> search{&name, false};
  clang_visitChildren(
      function,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<std::pair<const std::string*, bool>*>(data);
        const CXCursorKind kind = clang_getCursorKind(c);
        if ((kind == CXCursor_ParmDecl || kind == CXCursor_VarDecl) && spelling(c) == *s->first) {
          s->second = true;
          return CXChildVisit_Break;
        }
        return CXChildVisit_Recurse;
      },
      &search);
  return search.second;
}

}  // namespace

std::string std_key(CXCursor callee, const Mappings& maps) {
  CXCursor parent = clang_getCursorSemanticParent(callee);
  while (clang_getCursorKind(parent) == CXCursor_Namespace && spelling(parent).rfind("__", 0) == 0)  // (inline namespaces)
    parent = clang_getCursorSemanticParent(parent);
  const std::string key = "std::" + spelling(callee);
  return clang_getCursorKind(parent) == CXCursor_Namespace && spelling(parent) == "std" && maps.functions.count(key) ? key : spelling(callee);
}

void Translator::map_call(CXCursor call, CXCursor callee, Function& fn) {
  std::vector<Problem>& problems = fn.record.problems;
  const std::string name = spelling(callee);
  std::vector<CXCursor> kids = children(call);
  const CXCursorKind callee_kind = clang_getCursorKind(callee);
  if (name == "__cvta_generic_to_shared" && cvta_followed_.count(begin_offset(call))) return;  // the pointer itself (ptx.cpp)
  // libcu++'s cuda::aligned_size_t<N>(bytes) tells an alignment the copies done at the call do not use: the size.
  if (callee_kind == CXCursor_Constructor && spelling(clang_getCursorSemanticParent(callee)) == "aligned_size_t" && kids.size() == 1) {
    const CXCursor size = kids[0];
    rw_.replace(begin_offset(call), end_offset(call), [this, size] { return "ulong(" + rw_.render(begin_offset(size), end_offset(size)) + ")"; });
    return;
  }
  // A group made inline as an argument (`cg::memcpy_async(cg::this_thread(), ...)`, `cg::reduce(cg::tiled_partition<32>(
  // block), ...)`): the call taking it works by its type and drops its text, as a handle's declaration is dropped.
  if (group_of(clang_getCursorType(call)).kind != Group::none) return;
  // cuda::atomic_ref's (and cuda::atomic's) operators map as its methods do: `ref += v`, `++ref`, reading `ref`.
  const CXCursor owner_class = clang_getCursorSemanticParent(callee);
  const bool of_cuda = spelling(clang_getCursorSemanticParent(owner_class)) == "cuda";
  const bool atomic_object = of_cuda && spelling(owner_class) == "atomic";
  const bool atomic_operator = (callee_kind == CXCursor_CXXMethod || callee_kind == CXCursor_ConversionFunction) &&
                               name.rfind("operator", 0) == 0 &&
                               (atomic_object || (of_cuda && spelling(owner_class) == "atomic_ref"));
  // `ref += v` is an operator call, its object the first argument (`ref.fetch_add(v)` names it by a member reference).
  const bool operator_call = atomic_operator && !kids.empty() && clang_getCursorKind(kids[0]) != CXCursor_MemberRefExpr;
  // Constructors, conversions and operators of the CUDA types (half, vectors) are Metal's own.
  if (!atomic_operator && (callee_kind == CXCursor_Constructor || callee_kind == CXCursor_ConversionFunction ||
                           (callee_kind == CXCursor_CXXMethod && name.rfind("operator", 0) == 0)))
    return;
  // Methods of cooperative groups are mapped as OWNER::METHOD, cg::reduce by its operation.
  std::string key = std_key(callee, maps_);
  Group group = method_group(call);  // the group a method or cg::reduce works on
  if (callee_kind == CXCursor_CXXMethod || atomic_operator || group.kind != Group::none) {
    // cuda::atomic's methods are cuda::atomic_ref's on the object (`$this` below)
    const std::string owner = atomic_object                   ? "atomic_ref"
                              : group.kind == Group::block      ? "thread_block"
                              : group.kind == Group::tile     ? "thread_block_tile"
                              : group.kind == Group::pipeline ? (group.block_scope ? "pipeline:block" : "pipeline:thread")
                              : group.kind == Group::barrier  ? "barrier"
                                                              : spelling(owner_class);
    // A dependent member reference has no spelling: its name ends its text (`tile.any`).
    std::string method = text(begin_offset(kids.at(0)), end_offset(kids.at(0)));
    method = spelling(kids[0]).empty() ? method.substr(method.find_last_of(".>") + 1) : spelling(kids[0]);
    // (the postfix increment's operator takes an int; the conversion is named by what it converts to)
    if (atomic_operator)
      method = callee_kind == CXCursor_ConversionFunction ? "operator T"
                                                          : name + (clang_Cursor_getNumArguments(callee) == 1 &&
                                                                            (name == "operator++" || name == "operator--")
                                                                        ? "(int)"
                                                                        : "");
    key = owner + "::" + method;
    // A method of a library type that the port writes as a helper with the same methods (cuda::std::span as ks_span):
    // the call stays as written.
    if (!maps_.functions.count(key) && (maps_.type_helpers.count("std::" + owner) || maps_.type_helpers.count("cuda::" + owner)))
      return;
    if (!maps_.functions.count(key) && !maps_.untranslatable.count(key))
      return problem(problems, call, key,
                     owner != "grid_group" ? "this method is not translated"
                     : method == "sync"       ? "grid-wide synchronization has no Metal equivalent (split the kernel)"
                                              : "grid-wide groups have no Metal equivalent (split the kernel)");
    // A tile's shuffles take any trivially copyable type; Metal's take scalars and vectors: a struct of the file is
    // shuffled member by member (the overloads the collectives' structs get).
    if (owner == "thread_block_tile" && method.rfind("shfl", 0) == 0 && clang_Cursor_getNumArguments(call) >= 1)
      if (const std::string why = shuffle_refusal(clang_getCursorType(clang_Cursor_getArgument(call, 0))); !why.empty())
        return problem(problems, call, key + " of a struct", why + ": shuffle each member");
  } else if (spelling(clang_getCursorSemanticParent(callee)) == "cooperative_groups" &&
             ((name == "reduce" && clang_Cursor_getNumArguments(call) == 3) ||
              ((name == "inclusive_scan" || name == "exclusive_scan") && clang_Cursor_getNumArguments(call) >= 2))) {
    // cg::plus (a scan's default), less, greater by name; any other operation (a functor of the file, a lambda) called
    // by a butterfly or the scan's shuffles
    std::string op = "plus";
    if (clang_Cursor_getNumArguments(call) == 3) {
      const CXType op_type = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(call, 2)));
      op = take(clang_getTypeSpelling(op_type));
      op = op.substr(0, op.find('<'));  // cooperative_groups::plus<float> -> plus
      op = spelling(clang_getCursorSemanticParent(clang_getTypeDeclaration(op_type))) == "cooperative_groups"
               ? op.substr(op.rfind(':') + 1)
               : "op";
    }
    key = name + ":" + op;
    group = group_of(clang_getCursorType(strip_implicit(clang_Cursor_getArgument(call, 0))));
    // a coalesced group's lanes need not be consecutive: only its sum has a Metal equivalent (over the active lanes)
    if (name != "reduce" && group.kind == Group::none && op != "plus")
      return problem(problems, call, "cg::" + name + " of a coalesced group with an operation other than cg::plus",
                     "Metal's prefix functions over the active lanes only sum: scan a thread_block_tile instead");
    // a struct of the file reduced (Welford's mean, M2 and count) goes through the shuffles member by member
    if (const std::string why = shuffle_refusal(clang_getCursorType(clang_Cursor_getArgument(call, 1))); !why.empty())
      return problem(problems, call, "cg::" + name + " of a struct", why);
  } else if ((name == "memcpy_async" || name == "wait" || name == "wait_prior" || name == "sync") &&
             spelling(clang_getCursorSemanticParent(callee)) == "cooperative_groups") {
    // cg::memcpy_async(group, dst, src, bytes), cg::wait(group), cg::sync(group): by the group's kind
    group = group_of(clang_getCursorType(strip_implicit(clang_Cursor_getArgument(call, 0))));
    if (group.kind == Group::none)
      return problem(problems, call, name, name == "sync" ? "only a thread block's or a tile's sync is translated"
                                                          : "only a thread block's or a tile's copies are translated");
    key = name + (group.kind == Group::block ? ":block" : ":tile");
  } else if ((name == "invoke_one" || name == "invoke_one_broadcast") &&
             spelling(clang_getCursorSemanticParent(callee)) == "cooperative_groups") {
    group = group_of(clang_getCursorType(strip_implicit(clang_Cursor_getArgument(call, 0))));
    if (group.kind != Group::tile) return problem(problems, call, "cg::" + name, "only a tile's is translated");
    key = name + ":tile";
  } else if (spelling(clang_getCursorSemanticParent(callee)) == "cuda") {
    // libcu++: cuda::memcpy_async by a group (its first argument: as cg::memcpy_async) or by the thread; a pipeline's
    // wait by its scope
    const int count = clang_Cursor_getNumArguments(call);
    const Group first = count > 0 ? group_of(clang_getCursorType(strip_implicit(clang_Cursor_getArgument(call, 0)))) : Group{};
    key = "cuda::" + name;
    if (name == "memcpy_async" && count == 5) {
      group = first;
      if (group.kind != Group::block && group.kind != Group::tile)
        return problem(problems, call, name, "only a thread block's or a tile's copies are translated");
      key = name + (group.kind == Group::block ? ":block" : ":tile");
    } else if (first.kind == Group::pipeline) {
      key += first.block_scope ? ":block" : ":thread";
    } else if (name == "init" && count == 2) {
      init_barrier(call);
    }
  }
  // CUDA's unsuffixed math overloads (`exp(float)`, `std::sqrt`) are its `f` functions.
  if (callee_kind != CXCursor_CXXMethod && group.kind == Group::none && !maps_.functions.count(key) &&
      !maps_.untranslatable.count(key) && (maps_.functions.count(key + "f") || maps_.untranslatable.count(key + "f")))
    key += "f";
  // CUDA overloads __hadd for ints (their average) beside the 16-bit floats (their sum): a mapping NAME:int serves a
  // callee whose first parameter is an integer.
  if (const CXType first = clang_getCanonicalType(clang_getArgType(clang_getCursorType(callee), 0));
      maps_.functions.count(key + ":int") && is_integer_kind(first.kind))
    key += ":int";
  // A constexpr function's call (a block size computed for a template argument) takes the mapping NAME:constexpr, a
  // constant expression where Metal's own function is none.
  // (The function the call is written in: a constexpr helper's body is mapped where its calls are, host code too.)
  if (maps_.functions.count(key + ":constexpr") &&
      std::any_of(functions_.begin(), functions_.end(), [&](const auto& f) {
        return begin_offset(f.second.cursor) <= begin_offset(call) && end_offset(call) <= end_offset(f.second.cursor) &&
               is_constexpr(f.second.cursor);
      }))
    key += ":constexpr";
  if (auto u = maps_.untranslatable.find(key); u != maps_.untranslatable.end())
    return problem(problems, call, name, u->second);
  auto m = maps_.functions.find(key);
  if (m == maps_.functions.end())
    return problem(problems, call, key, "no Metal mapping for '" + key + "' (add one to src/translate/mappings.toml)");
  const unsigned b = begin_offset(call), e = end_offset(call);
  // A call written in a macro spans the macro's use, whose text before `(` does not name the function.
  const size_t name_at = text(b, e).substr(0, text(b, e).find('(')).find(name);
  // (A call the mapping drops goes with the whole use: `assert(c)` of cuda_include/assert.h.)
  if (callee_kind != CXCursor_CXXMethod && !atomic_operator && group.kind == Group::none && name_at == std::string::npos &&
      !m->second.metal.empty())
    return problem(problems, call, name, "used inside a macro: expand the macro by hand");
  const FunctionMapping& f = m->second;
  std::vector<CXCursor> args(kids.begin() + (kids.empty() ? 0 : 1), kids.end());
  if (operator_call) {
    args.clear();
    for (int i = 1; i < clang_Cursor_getNumArguments(call); ++i) args.push_back(clang_Cursor_getArgument(call, unsigned(i)));
  }
  std::string pattern = f.metal;
  std::vector<std::string> helpers = f.helpers;
  // An exchange whose old value nothing reads is a store (which, unlike the exchange, reads no uninitialized word
  // where it gives a shared counter its first value).
  if (name.rfind("atomicExch", 0) == 0 && statement_calls_.count(begin_offset(call)))
    pattern = "atomic_store_explicit(($space atomic<$T>*)($1), $T($2), memory_order_relaxed)";
  if (f.width_arg > 0 && size_t(f.width_arg) <= args.size()) {
    CXCursor width = strip_implicit(args[size_t(f.width_arg) - 1]);
    const auto evaluated = integer_constant(width);
    const bool constant = evaluated.has_value();
    const long long value = evaluated.value_or(0);
    // warpSize is an extern variable to clang; it is 32 here as everywhere in the translation.
    const bool is_32 = (constant && value == 32) || (clang_getCursorKind(width) == CXCursor_DeclRefExpr &&
                                                     spelling(width) == "warpSize" && from_prelude(clang_getCursorReferenced(width)));
    if (constant && !is_32 && (value < 1 || value > 32 || (value & (value - 1)) != 0))
      return problem(problems, call, name, fmt::format("shuffle width {}: CUDA requires a power of two up to 32", value));
    if (!is_32) {
      if (f.segmented.empty())
        return problem(problems, call, name, "a shuffle width other than 32 (sub-warp segments) is not translated");
      pattern = f.segmented;
      helpers = f.segmented_helpers;
      ++fn.record.translated[key + " (width below 32)"];
    }
  }
  // A tile narrower than a SIMD group is a segment of it: the segmented form, over lanes of the segment.
  if (group.kind == Group::tile && group.width != "32") {
    if (f.segmented.empty())
      return problem(problems, call, key, "this method of a tile narrower than 32 threads is not translated");
    pattern = f.segmented;
    helpers = f.segmented_helpers;
    for (size_t at; (at = pattern.find("$W")) != std::string::npos;) pattern.replace(at, 2, group.width);
    // a tile of one thread (cg::this_thread()) waits for nothing: its thread's own copies are done
    if (group.width == "1" && (key.find("::sync") != std::string::npos || key.rfind("wait", 0) == 0)) pattern.clear();
    ++fn.record.translated[key + " (tile below 32)"];
  }
  // The copies are done in elements of the source's type (ks_memcpy_async, ks_group_copy): a void* source (global or
  // constant memory, read-only) is read in the destination's elements instead, through ks_ro_cast.
  const size_t source = key == "__pipeline_memcpy_async" || key == "cuda::memcpy_async" ? 1 : key.rfind("memcpy_async:", 0) == 0 ? 2 : 0;
  auto pointee_of = [&](size_t i) {  // what a pointer or an array argument holds
    const CXType type = clang_getCanonicalType(clang_getCursorType(strip_implicit(args[i])));
    const CXType element = clang_getArrayElementType(type);
    return clang_getCanonicalType(element.kind != CXType_Invalid ? element : pointee_type(type));
  };
  if (source > 0 && source < args.size() && pointee_of(source).kind == CXType_Void) {
    if (pointee_of(source - 1).kind == CXType_Void || space_of(args[source]) == "threadgroup")
      return problem(problems, call, name + " from a void* source",
                     "the port copies in elements of the source's or the destination's type, which void has none of: pass "
                     "either as a pointer to its elements (float*, float4*)");
    const std::string placeholder = "$" + std::to_string(source + 1);
    pattern.replace(pattern.find(placeholder), placeholder.size(), "ks_ro_cast<" + metal_type(pointee_of(source - 1)) + ">(" + placeholder + ")");
    helpers.push_back("ks_ro_cast");
  }
  // $rest: every argument from the second on (a function and its arguments)
  if (const size_t at = pattern.find("$rest"); at != std::string::npos) {
    std::string rest;
    for (size_t i = 2; i <= args.size(); ++i) rest += (i > 2 ? ", $" : "$") + std::to_string(i);
    pattern.replace(at, 5, rest);
  }
  // (an operator's value, converted by its pattern, ends where the call does: text inserted after it would follow it)
  if (!operator_call) convert_arguments(callee, args);
  ++fn.record.translated[key];
  for (const auto& [cuda, metal] : kBuiltins)  // built-in variables a pattern names
    if (pattern.find(metal) != std::string::npos) fn.builtins.insert(cuda);
  for (const auto& h : helpers) helpers_.insert(h);
  if (!f.threadgroup.empty()) {
    // `int ks_votes[32]`: declared by the kernel and passed down, as a hoisted static __shared__ is.
    const size_t space = f.threadgroup.find(' '), dims = f.threadgroup.find('[');
    const std::string array = f.threadgroup.substr(space + 1, dims - space - 1);
    hoisted_[array] = {"", array, array, f.threadgroup.substr(0, space), f.threadgroup.substr(dims), f.threadgroup.substr(0, space),
                       f.threadgroup.substr(dims)};
    fn.shared.insert(array);
  }
  if (!f.note.empty() && std::find(out_.notes.begin(), out_.notes.end(), f.note) == out_.notes.end())
    out_.notes.push_back(f.note);
  if (pattern.empty()) {  // dropped
    rw_.replace(b, e, "");
    return;
  }
  if (pattern.find('(') == std::string::npos) {  // a rename: the arguments stay
    rw_.replace(b + unsigned(name_at), b + unsigned(name_at + name.size()), pattern);
    return;
  }
  // Why Metal has no atomic on this type ("" where it has): 32-bit ones only, and no double.
  auto atomic_refusal = [](CXType value) -> std::string {
    if (value.kind == CXType_Double)  // narrowing it to float would lose what it accumulates
      return "an atomic on double: Metal has no double, and no 64-bit atomics (accumulate in float or int)";
    const long long size = clang_Type_getSizeOf(value);
    return size == 4 ? "" : fmt::format("{}-bit atomics do not exist in Metal (32-bit only)", size * 8);
  };
  std::string element = "int";
  // An atomic whose pointer's type depends on the kernel's template parameters (`atomicAdd(&f.counts(i), 1)` with
  // `const F f`): its element type and address space are unknown here, and a guess changed the value (through another
  // overload's parameter) and the space.
  const bool atomic = name.rfind("atomic", 0) == 0 || name.rfind("__nv_atomic", 0) == 0;
  if (atomic && !args.empty() && !is_pointer(clang_getCursorType(strip_implicit(args[0]))))
    return problem(problems, call, name,
                   "its pointer's type depends on the kernel's template parameters, so its element type and address "
                   "space are unknown to the port: take the address into a typed pointer first (`int* slot = &...;`)");
  // The pointer's space ($space), asked when the text is written: once every call's is known (a helper's parameter).
  std::function<std::string()> space = [] { return std::string("device"); };
  if (!args.empty() && is_pointer(clang_getCursorType(strip_implicit(args[0])))) {
    element = metal_type(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(strip_implicit(args[0])))));
    space = [this, pointer = args[0]] { return space_of(pointer); };
    if (atomic) space_casts_.push_back({visiting_, args[0]});
    const CXType pointee = clang_getCanonicalType(pointee_type(clang_getCursorType(strip_implicit(args[0]))));
    // sm_90's atomicAdd of a float2 or float4 is atomic lane by lane (CUDA's own promise): one float atomic per lane
    if (name.rfind("atomicAdd", 0) == 0 && (element == "float2" || element == "float4")) {
      pattern = "ks_atomic_add_lanes(($space atomic<float>*)($1), $2)";
      helpers_.insert("ks_atomic_add_lanes");
    } else if (name.rfind("atomicAdd", 0) == 0 && (element == "half2" || element == "bfloat2")) {
      // a pair of 16-bit floats is one 32-bit word: a compare-and-swap loop adds both halves at once
      pattern = "ks_atomic_add_pair(($space atomic_uint*)($1), $2)";
      helpers_.insert("ks_atomic_add_pair");
    } else if (const std::string why = atomic_refusal(pointee); name.rfind("atomic", 0) == 0 && !why.empty()) {
      return problem(problems, call, name, why);
    }
  }
  // memcpy and memset in bytes of each pointer's own space (their arguments may be dependent types, `&payload` in a
  // class template): memcpy's source read-only, device memory through ks_ro_cast (MLX passes small inputs in constant
  // memory), thread and threadgroup memory by a cast within the space.
  if ((key == "memcpy" || key == "memset") && args.size() == 3) {
    space = [this, pointer = args[0]] { return space_of(pointer); };
    if (key == "memcpy") {
      const std::string from = space_of(args[1]);
      pattern.replace(pattern.find("$2"), 2, from == "device" ? "ks_ro_cast<uchar>($2)" : "(" + from + " const uchar*)($2)");
      if (from == "device") helpers_.insert("ks_ro_cast");
    }
  }
  // $this: the pointer a cuda::atomic_ref became (its variable, or a temporary's object), whose space and element type
  // the atomic takes
  std::function<std::string()> self = [] { return std::string(); };
  if (key.rfind("atomic_ref::", 0) == 0) {
    const std::vector<CXCursor> member = children(kids.at(0));
    const CXCursor object = operator_call ? strip_implicit(clang_Cursor_getArgument(call, 0))
                            : member.empty() ? clang_getNullCursor()
                                             : strip_implicit(member[0]);
    // an atomic_ref variable is a pointer already; an atomic object (any expression naming one) is taken the address of
    const bool object_itself = !clang_Cursor_isNull(object) && is_atomic_object(clang_getCursorType(object));
    const bool named = object_itself || (!clang_Cursor_isNull(object) && clang_getCursorKind(object) == CXCursor_DeclRefExpr);
    const CXCursor referent = clang_Cursor_isNull(object) || named ? object : atomic_referent(object);
    if (clang_Cursor_isNull(referent))
      return problem(problems, call, key, "the atomic_ref is not a variable or a temporary made of its object");
    CXType type = clang_getCanonicalType(clang_getCursorType(object));
    if (is_reference(type)) type = clang_getCanonicalType(pointee_type(type));
    const CXType value = clang_getCanonicalType(clang_Type_getTemplateArgumentAsType(type, 0));
    if (const std::string why = atomic_refusal(value); !why.empty()) return problem(problems, call, key, why);
    element = metal_type(value);
    space = [this, referent] { return space_of(referent); };
    visit(referent, fn);  // the object's own names (`bins[threadIdx.x]`): a method's object is not visited otherwise
    // (the implicit conversion that reads `ref` spans just its object, whose text is then the original's: rendering the
    // range would run this replacement again)
    self = [this, named, object_itself, referent, b, e] {
      const unsigned from = begin_offset(referent), to = end_offset(referent);
      const std::string text = from == b && to == e ? this->text(from, to) : rw_.render(from, to);
      return named && !object_itself ? text : "&(" + text + ")";
    };
  }
  // A Metal function the function's own variable or parameter shadows (PyTorch's `::max(max, v)` with a parameter
  // `max`): named through its namespace.
  if (const size_t open = pattern.find('('); open != std::string::npos && open > 0 && pattern.rfind("ks_", 0) != 0 &&
                                             std::all_of(pattern.begin(), pattern.begin() + long(open), [](char ch) {
                                               return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                                             }) &&
                                             declares_name(fn.cursor, pattern.substr(0, open)))
    pattern = "metal::" + pattern;
  // $R: the call's type, to which min and max convert both arguments (Metal's have one type); std::max's is a
  // `const T&`, whose const the conversion leaves out. A record is its Metal vector (__half2: half2, the pairwise
  // comparisons' masks).
  const CXType result = clang_getCanonicalType(clang_getCursorType(call));
  const std::string result_type = result.kind >= CXType_Bool && result.kind <= CXType_LongDouble ? unqualified_type(result)
                                  : result.kind == CXType_Record                                  ? metal_type(result)
                                                                                                  : "";
  rw_.replace(b, e, [this, pattern, args, element, space, result_type, self] {
    std::string s = pattern;
    for (size_t at; (at = s.find("$this")) != std::string::npos;) s.replace(at, 5, self());
    for (size_t at; (at = s.find("$R")) != std::string::npos;) s.replace(at, 2, result_type);
    for (size_t i = args.size(); i >= 1; --i) {
      const std::string arg = rw_.render(begin_offset(args[i - 1]), end_offset(args[i - 1]));
      const std::string placeholder = "$" + std::to_string(i);
      for (size_t at; (at = s.find(placeholder)) != std::string::npos;) s.replace(at, placeholder.size(), arg);
    }
    const std::string pointer_space = space();
    for (size_t at; (at = s.find("$space")) != std::string::npos;) s.replace(at, 6, pointer_space);
    for (size_t at; (at = s.find("$T")) != std::string::npos;) s.replace(at, 2, element);
    return s;
  });
}

// cuda::barrier's init(&bar, count) goes with the barrier, which becomes the threadgroup's: the same where count is
// the block's size (read from blockDim or the block's size()). Another count is noted, for Metal's barrier then waits
// for every thread of the threadgroup, not for count of them.
void Translator::init_barrier(CXCursor call) {
  const CXCursor count = strip_implicit(clang_Cursor_getArgument(call, 1));
  bool whole_block = false;
  std::function<void(CXCursor)> find = [&](CXCursor c) {
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && spelling(c) == "blockDim") whole_block = true;
    if (clang_getCursorKind(c) == CXCursor_CallExpr && method_group(c).kind == Group::block &&
        (spelling(c) == "size" || spelling(c) == "num_threads"))
      whole_block = true;
    for (CXCursor k : children(c)) find(k);
  };
  find(count);
  const std::string note = fmt::format(
      "line {}: a cuda::barrier expecting '{}' arrivals became the threadgroup's barrier, which waits for every thread of the "
      "threadgroup: the same only where that is the block's size",
      position(call).line, text(begin_offset(count), end_offset(count)));
  if (!whole_block) out_.notes.push_back(note);
}

}  // namespace ksearch::translate::detail
