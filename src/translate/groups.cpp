// Cooperative groups (docs/TRANSLATE.md): a thread_block, thread_block_tile or grid_group handle has no Metal
// counterpart; its methods become threadgroup and SIMD-group functions (calls.cpp), handles passed to
// functions are dropped with their parameters (functions.cpp), tiles are segments of a SIMD group. libcu++'s
// pipelines and barriers go the same way: the objects dropped, their waits threadgroup barriers or nothing; an
// atomic_ref becomes a pointer to its object.
#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

Group group_of(CXType type) {
  if (is_reference(type)) type = pointee_type(type);
  // `__shared__ cuda::barrier<cuda::thread_scope_block> bars[2]` goes as one barrier does.
  for (CXType element; (element = clang_getArrayElementType(clang_getCanonicalType(type))).kind != CXType_Invalid;) type = element;
  // Spelled without the namespace, which a dependent type's canonical spelling lacks.
  auto unqualified = [](CXType t) {
    std::string name = take(clang_getTypeSpelling(t));
    if (name.rfind("const ", 0) == 0) name.erase(0, 6);
    for (const std::string ns : {"cg::", "cooperative_groups::"})
      if (name.rfind(ns, 0) == 0) name.erase(0, ns.size());
    return name;
  };
  const std::string name = unqualified(clang_getCanonicalType(type));
  if (name == "thread_block") return {Group::block, ""};
  if (name == "grid_group") return {Group::grid, ""};
  // libcu++'s synchronization objects (cuda_include/cuda/pipeline, cuda/barrier); a pipeline of the thread's own
  // copies is cuda::make_pipeline()'s, cuda::pipeline<cuda::thread_scope_thread>.
  if (name.rfind("cuda::pipeline<", 0) == 0) return {Group::pipeline, "", name.find("thread_scope_thread") == std::string::npos};
  if (name.rfind("cuda::barrier<", 0) == 0) {
    const bool token = name.size() > 15 && name.compare(name.size() - 15, 15, "::arrival_token") == 0;
    return {token ? Group::sync_state : Group::barrier, ""};
  }
  if (name.rfind("cuda::pipeline_shared_state<", 0) == 0) return {Group::sync_state, ""};
  const std::string tile = "thread_block_tile<";
  if (name.rfind(tile, 0) != 0) return {};
  Group g{Group::tile, name.substr(tile.size(), name.size() - tile.size() - 1)};
  // A dependent width reads `type-parameter-0-0` in the canonical type: take it as written.
  if (const std::string written = unqualified(type); !g.literal() && written.rfind(tile, 0) == 0)
    g.width = written.substr(tile.size(), written.size() - tile.size() - 1);
  return g;
}

Group method_group(CXCursor call) {
  const std::vector<CXCursor> kids = children(call);
  if (kids.empty() || clang_getCursorKind(kids[0]) != CXCursor_MemberRefExpr) return {};
  const std::vector<CXCursor> object = children(kids[0]);
  return object.empty() ? Group{} : group_of(clang_getCursorType(strip_implicit(object[0])));
}

namespace {
bool cuda_class(CXType type, const std::string& prefix) {
  if (is_reference(type)) type = pointee_type(type);
  std::string name = take(clang_getTypeSpelling(clang_getCanonicalType(type)));
  if (name.rfind("const ", 0) == 0) name.erase(0, 6);
  return name.rfind(prefix, 0) == 0;
}
}  // namespace

bool is_atomic_ref(CXType type) { return cuda_class(type, "cuda::atomic_ref<"); }
bool is_thread_group(CXType type) { return cuda_class(type, "cooperative_groups::thread_group"); }
bool is_atomic_object(CXType type) { return cuda_class(type, "cuda::atomic<"); }

CXCursor atomic_referent(CXCursor c) {
  if (clang_getCursorKind(c) == CXCursor_CallExpr) {
    const CXCursor constructor = clang_getCursorReferenced(c);
    if (clang_getCursorKind(constructor) == CXCursor_Constructor && spelling(clang_getCursorSemanticParent(constructor)) == "atomic_ref" &&
        clang_Cursor_getNumArguments(c) == 1)
      return strip_implicit(clang_Cursor_getArgument(c, 0));
  }
  for (CXCursor k : children(c))
    if (const CXCursor found = atomic_referent(k); !clang_Cursor_isNull(found)) return found;
  return clang_getNullCursor();
}

std::string tile_refusal(const Group& g, bool in_parameter) {
  if (g.kind != Group::tile) return "";
  if (!g.literal())
    return in_parameter ? "a tile parameter whose size is a template parameter ('" + g.width +
                              "') is not translated: the handle is dropped, so the size cannot be deduced; write the size"
                        : "";
  const int w = std::stoi(g.width);
  if (w < 1 || w > 32 || (w & (w - 1)) != 0)
    return "a tile of " + g.width + " threads: only tiles of a power of two up to 32 threads (one SIMD group) are translated";
  return "";
}

std::vector<size_t> group_parameters(CXCursor function) {
  std::vector<size_t> out;
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (group_of(clang_getCursorType(params[i])).kind != Group::none) out.push_back(i);
  return out;
}

}  // namespace ksearch::translate::detail
