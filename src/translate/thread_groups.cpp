// cg::thread_group, the run-time group handle of the CUDA guide's examples (`thread_group g = this_thread_block()`,
// `thread_group tile = tiled_partition(g, 32)`, `__device__ int reduce_sum(thread_group g, ...)`), written as the group
// each handle holds before the file is parsed for the port: a variable by its initializer, a parameter by what every
// call gives it; a run-time `tiled_partition(parent, 32)` of a constant size as `tiled_partition<32>(parent)`. The
// groups' methods then map as a block's or a tile's do (calls.cpp), as do those of a template's `auto` tile. A handle
// bound to groups of two kinds, or to one the port cannot tell, stays as written: its methods are reported
// (mappings.toml [untranslatable]).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// The type a thread_group handle holding `group` is written as; "" for a group it cannot hold (or not known).
std::string concrete_type(const Group& group) {
  if (group.kind == Group::block) return "cooperative_groups::thread_block";
  return group.kind == Group::tile && !group.width.empty() ? "cooperative_groups::thread_block_tile<" + group.width + ">" : "";
}

}  // namespace

std::string concrete_thread_groups(CXTranslationUnit unit, const std::string& text) {
  std::map<std::string, CXCursor> handles;                        // decl_key -> a thread_group variable or parameter
  std::map<std::string, std::vector<CXCursor>> given_to_parameter;  // decl_key of a parameter -> the arguments calls give
  // Edits, applied last first: each known handle's written type, each constant run-time partition, each dependent tile.
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> edits;
  // `auto tile = cg::tiled_partition<N>(block)` in a template, N its parameter: the type stays undeduced, so the
  // variable is written with the tile's type, which the methods' mappings read.
  static const std::regex dependent_tile(R"(^((?:const\s+)?)auto(\s+\w+\s*=\s*(?:\w+::)*tiled_partition\s*<([^<>;]+)>\s*\())");
  std::function<void(CXCursor)> visit = [&](CXCursor scope) {
    for (CXCursor c : children(scope)) {
      if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) continue;
      const CXCursorKind kind = clang_getCursorKind(c);
      if ((kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl) && is_thread_group(clang_getCursorType(c))) handles[decl_key(c)] = c;
      std::smatch tile;
      if (const unsigned b = begin_offset(c), e = end_offset(c); kind == CXCursor_VarDecl && b < e && e <= text.size())
        if (const std::string declaration = text.substr(b, e - b); std::regex_search(declaration, tile, dependent_tile))
          edits.push_back({{b, unsigned(b + tile.length(0))},
                           tile.str(1) + "cooperative_groups::thread_block_tile<" + tile.str(3) + ">" + tile.str(2)});
      if (kind == CXCursor_CallExpr) {
        const CXCursor callee = clang_getCursorReferenced(c);
        const std::vector<CXCursor> params = clang_Cursor_isNull(callee) ? std::vector<CXCursor>{} : parameters_of(callee);
        for (size_t i = 0; i < params.size() && int(i) < clang_Cursor_getNumArguments(c); ++i)
          if (is_thread_group(clang_getCursorType(params[i])))
            given_to_parameter[decl_key(params[i])].push_back(clang_Cursor_getArgument(c, unsigned(i)));
      }
      visit(c);
    }
  };
  visit(clang_getTranslationUnitCursor(unit));
  if (handles.empty() && edits.empty()) return text;

  // decl_key -> the type its group is written as ("" where not known yet)
  std::map<std::string, std::string> held;
  std::vector<std::pair<CXCursor, long long>> partitions;  // run-time tiled_partition calls of a constant size
  std::function<std::string(CXCursor)> group_given = [&](CXCursor e) -> std::string {
    e = strip_implicit(e);
    // a block or tile converted to the thread_group it is (the copy constructor's call, its argument the group)
    if (clang_getCursorKind(e) == CXCursor_CallExpr && clang_getCursorKind(clang_getCursorReferenced(e)) == CXCursor_Constructor &&
        clang_Cursor_getNumArguments(e) == 1)
      return group_given(clang_Cursor_getArgument(e, 0));
    if (const std::string type = concrete_type(group_of(clang_getCursorType(e))); !type.empty()) return type;
    if (clang_getCursorKind(e) == CXCursor_CallExpr && spelling(clang_getCursorReferenced(e)) == "tiled_partition" &&
        clang_Cursor_getNumArguments(e) == 2)
      if (const std::optional<long long> size = integer_constant(clang_Cursor_getArgument(e, 1))) {
        partitions.emplace_back(e, *size);
        return concrete_type({Group::tile, std::to_string(*size)});
      }
    if (clang_getCursorKind(e) == CXCursor_DeclRefExpr)
      if (auto it = held.find(decl_key(clang_getCursorReferenced(e))); it != held.end()) return it->second;
    return "";
  };
  // Until nothing changes: a parameter is known once every argument given to it is (one handle passed on to another).
  for (bool changed = true; changed;) {
    changed = false;
    partitions.clear();
    for (const auto& [key, handle] : handles) {
      std::string group;
      if (clang_getCursorKind(handle) == CXCursor_VarDecl) {
        const std::vector<CXCursor> kids = children(handle);
        if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back()))) group = group_given(kids.back());
      } else {
        for (CXCursor argument : given_to_parameter[key]) {
          const std::string given = group_given(argument);
          if (given.empty() || (!group.empty() && given != group)) {
            group.clear();
            break;
          }
          group = given;
        }
      }
      if (!group.empty() && held[key] != group) {
        held[key] = group;
        changed = true;
      }
    }
  }

  for (const auto& [key, group] : held) {
    if (group.empty()) continue;
    CXCursor first = clang_getNullCursor(), type = clang_getNullCursor();
    for (CXCursor k : children(handles.at(key))) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_NamespaceRef && clang_Cursor_isNull(type) && clang_Cursor_isNull(first)) first = k;
      if (kind == CXCursor_TypeRef && clang_Cursor_isNull(type)) type = k;
    }
    if (clang_Cursor_isNull(type)) continue;  // (its type through an alias or `auto`)
    const unsigned b = begin_offset(clang_Cursor_isNull(first) ? type : first), e = end_offset(type);
    if (e <= text.size() && b < e && text.compare(e - 12, 12, "thread_group") == 0) edits.push_back({{b, e}, group});
  }
  for (const auto& [call, size] : partitions) {
    const CXCursor parent = clang_Cursor_getArgument(call, 0);
    const unsigned b = begin_offset(call), e = end_offset(call);
    const std::string parent_text = text.substr(begin_offset(parent), end_offset(parent) - begin_offset(parent));
    if (e <= text.size() && text.find('\n', b) >= e)
      edits.push_back({{b, e}, fmt::format("cooperative_groups::tiled_partition<{}>({})", size, parent_text)});
  }
  std::sort(edits.begin(), edits.end(), [](const auto& x, const auto& y) { return x.first.first > y.first.first; });
  std::string out = text;
  unsigned last_begin = unsigned(out.size()) + 1;
  for (const auto& [range, replacement] : edits) {
    if (range.second > last_begin) continue;  // (overlapping: the outer one was applied)
    out.replace(range.first, range.second - range.first, replacement);
    last_begin = range.first;
  }
  return out;
}

}  // namespace ksearch::translate::detail
