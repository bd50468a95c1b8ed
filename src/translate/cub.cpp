// CUB (docs/TRANSLATE.md): the block and warp collectives (BlockReduce, BlockScan, WarpReduce, WarpScan, BlockLoad,
// BlockStore), their operators and algorithm enums keep their CUB spelling and become the Metal `namespace cub`
// of the helper `ks_cub` (metal_helpers.metal), with CUB's interface and semantics; only their constructors
// change, which are given the thread's position and the threadgroup's size, since a Metal function has no
// built-in variables of its own. CUB's other facilities are reported at each use.
#include <fmt/format.h>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// What ks_cub defines, by the name of the declaration in namespace cub.
const std::set<std::string> kCubRewritten = {"BlockReduce", "BlockScan", "WarpReduce", "WarpScan", "BlockLoad", "BlockStore",
                                             "Sum", "Max", "Min", "BlockReduceAlgorithm", "BlockScanAlgorithm",
                                             "BlockLoadAlgorithm", "BlockStoreAlgorithm"};
const std::set<std::string> kCubCollectives = {"BlockReduce", "BlockScan", "WarpReduce", "WarpScan", "BlockLoad", "BlockStore"};

// The declaration of namespace cub that holds a declaration (a method: its class; an enumerator: its enum), or a
// null cursor outside namespace cub.
CXCursor cub_declaration(CXCursor decl) {
  for (int depth = 0; depth < 8 && !clang_Cursor_isNull(decl) && !clang_isInvalid(clang_getCursorKind(decl)); ++depth) {
    const CXCursor parent = clang_getCursorSemanticParent(decl);
    if (clang_getCursorKind(parent) == CXCursor_Namespace)
      return spelling(parent) == "cub" && clang_getCursorKind(clang_getCursorSemanticParent(parent)) == CXCursor_TranslationUnit
                 ? decl
                 : clang_getNullCursor();
    decl = parent;
  }
  return clang_getNullCursor();
}

}  // namespace

// The collective a type names ("BlockReduce"), through typedefs and aliases (`using BlockReduce =
// cub::BlockReduce<float, kThreads>;`, dependent in a template); "" for any other type.
std::string Translator::cub_collective(CXType type) {
  for (int depth = 0; depth < 8; ++depth) {
    const CXCursor decl = clang_getTypeDeclaration(type);
    const CXCursorKind kind = clang_getCursorKind(decl);
    if (kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl) {
      for (CXCursor k : children(decl))
        if (clang_getCursorKind(k) == CXCursor_TemplateRef) return cub_collective_named(clang_getCursorReferenced(k));
      type = clang_getTypedefDeclUnderlyingType(decl);
      continue;
    }
    return cub_collective_named(decl);
  }
  return "";
}

std::string Translator::cub_collective_named(CXCursor decl) {
  if (clang_Cursor_isNull(decl) || !from_prelude(decl)) return "";
  const CXCursor top = cub_declaration(decl);
  if (clang_Cursor_isNull(top) || !clang_equalCursors(clang_getCanonicalCursor(top), clang_getCanonicalCursor(decl))) return "";
  return kCubCollectives.count(spelling(top)) ? spelling(top) : "";
}

std::string Translator::cub_refusal(CXCursor top) const {
  if (auto u = maps_.untranslatable.find("cub::" + spelling(top)); u != maps_.untranslatable.end()) return u->second;
  return kCubRewritten.count(spelling(top)) ? "" : maps_.untranslatable.at("namespace cub");
}

// A call of CUB in the entry (`cub::DeviceReduce::Sum(...)`): host-side CUB runs kernels of its own.
void Translator::host_cub_call(CXCursor call) {
  const CXCursor callee = called_declaration(call);
  if (clang_Cursor_isNull(callee) || !from_prelude(callee)) return;
  if (const CXCursor top = cub_declaration(callee); !clang_Cursor_isNull(top))
    problem(out_.problems, call, "cub::" + spelling(top),
            cub_refusal(top).empty() ? "CUB's block and warp collectives run in device code" : cub_refusal(top));
}

bool Translator::visit_cub(CXCursor c, Function& fn) {
  const CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_TypeRef || kind == CXCursor_TemplateRef || kind == CXCursor_DeclRefExpr) {
    const CXCursor decl = clang_getCursorReferenced(c);
    if (!from_prelude(decl)) return false;
    const CXCursor top = cub_declaration(decl);
    if (clang_Cursor_isNull(top)) return false;
    const std::string construct = "cub::" + spelling(top);
    if (const std::string why = cub_refusal(top); !why.empty()) {
      problem(fn.record.problems, c, construct, why);
    } else {
      ++fn.record.translated[construct];
      helpers_.insert("ks_cub");
    }
    return false;
  }
  // The construction of a collective: a call (`BlockReduce(temp)`), or in a template a variable's list of arguments
  // (`cub::BlockReduce<T, N> reduce(temp);`, whose initializer is no call until instantiation).
  std::vector<CXCursor> written;
  if (kind == CXCursor_VarDecl) {
    const std::vector<CXCursor> kids = children(c);
    if (!kids.empty() && clang_getCursorKind(kids.back()) == CXCursor_CallExpr) return false;  // visited as a call
    if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back()))) written = children(kids.back());
  } else if (kind == CXCursor_CallExpr) {
    // A method of a CUB class: ks_cub's, called as written (its arguments are translated as any).
    const CXCursor callee = called_declaration(c);
    if (!clang_Cursor_isNull(callee) && from_prelude(callee) && clang_getCursorKind(callee) != CXCursor_Constructor &&
        !clang_Cursor_isNull(cub_declaration(callee))) {
      for (CXCursor k : children(c)) visit(k, fn);
      return true;
    }
    written = children(c);
  } else {
    return false;
  }
  // Built on its TempStorage (`BlockReduce(temp)`, `WarpReduce(temp[warp])`, `BlockLoad load(temp);`): the Metal
  // constructor also takes the thread's position and the threadgroup's size.
  const std::string collective = cub_collective(clang_getCursorType(c));
  if (collective.empty()) return false;
  std::vector<CXCursor> arguments;
  for (CXCursor k : written) {
    const CXCursorKind k_kind = clang_getCursorKind(k);
    if (k_kind != CXCursor_TypeRef && k_kind != CXCursor_TemplateRef && k_kind != CXCursor_NamespaceRef) arguments.push_back(k);
  }
  if (arguments.size() == 1 && !cub_collective(clang_getCursorType(strip_implicit(arguments[0]))).empty()) return false;  // a copy
  if (arguments.size() != 1) {
    problem(fn.record.problems, c, "cub::" + collective + " without TempStorage",
            "a CUB collective built without its TempStorage keeps storage of its own in shared memory, which the port does "
            "not declare: declare `__shared__ typename " + collective + "::TempStorage temp;` and build it on `temp`");
    return false;
  }
  // Metal's SIMD-group shuffles, through which the reductions and scans pass values, take scalars and vectors: a struct
  // of the file (FasterTransformer's `MD {m, d}`) gets shuffle overloads that move it member by member.
  const CXType item = clang_Type_getTemplateArgumentAsType(clang_getCanonicalType(clang_getCursorType(c)), 0);
  if (const std::string why = collective == "BlockLoad" || collective == "BlockStore" ? "" : shuffle_refusal(item); !why.empty()) {
    problem(fn.record.problems, c, "cub::" + collective + " of a struct",
            why + " (the Metal collectives pass their values through these shuffles): reduce or scan each member, or a "
            "vector of them");
    return false;
  }
  if (cub_constructions_.insert(end_offset(arguments[0])).second) {
    rw_.insert(end_offset(arguments[0]), ", " + kBuiltins.at("threadIdx") + ", " + kBuiltins.at("blockDim"));
    fn.builtins.insert("threadIdx");
    fn.builtins.insert("blockDim");
  }
  return false;
}

std::string Translator::shuffle_refusal(CXType value) {
  value = clang_getCanonicalType(value);
  if (value.kind != CXType_Record || from_prelude(clang_getTypeDeclaration(value)) || shuffle_by_members(value)) return "";
  return "Metal's SIMD-group shuffles take scalars and vectors; a struct of scalars, vectors, arrays of them and such "
         "structs is shuffled member by member, not '" + spelling(clang_getTypeDeclaration(value)) + "'";
}

bool Translator::shuffle_by_members(CXType record) {
  const CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(record));
  const CXCursorKind kind = clang_getCursorKind(decl);
  // a struct of the file, not one a template makes (its overloads would need the template's arguments)
  if ((kind != CXCursor_StructDecl && kind != CXCursor_ClassDecl) || !in_main_file(decl) ||
      !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl)))
    return false;
  const std::vector<CXCursor> fields = fields_of(record);
  if (fields.empty()) return false;
  for (CXCursor f : fields) {
    CXType t = clang_getCanonicalType(clang_getCursorType(f));
    while (t.kind == CXType_ConstantArray) t = clang_getCanonicalType(clang_getArrayElementType(t));
    const bool scalar = (t.kind >= CXType_Bool && t.kind <= CXType_Float) || t.kind == CXType_Half || t.kind == CXType_Float16;
    const bool vector = t.kind == CXType_Record && from_prelude(clang_getTypeDeclaration(t));
    if (!scalar && !vector && !(t.kind == CXType_Record && shuffle_by_members(t))) return false;
  }
  shuffled_records_.insert(decl_key(decl));
  return true;
}

// Metal's shuffles for a struct of shuffle_by_members, one overload each, found by argument-dependent lookup from the
// CUB helpers' templates: every member shuffled (an array's element by element).
std::string Translator::member_shuffles(CXCursor record) {
  const std::string name = spelling(record);
  std::string out = "// " + name + " through SIMD-group shuffles, member by member (Metal's take scalars and vectors)\n";
  for (const char* shuffle : {"simd_shuffle", "simd_shuffle_up", "simd_shuffle_down", "simd_shuffle_xor"}) {
    out += fmt::format("inline {0} {1}({0} v, ushort k) {{\n  {0} r = v;\n", name, shuffle);
    for (CXCursor f : fields_of(clang_getCursorType(record))) {
      std::string element = "." + spelling(f), loops;
      int depth = 0;
      for (CXType t = clang_getCanonicalType(clang_getCursorType(f)); t.kind == CXType_ConstantArray;
           t = clang_getCanonicalType(clang_getArrayElementType(t)), ++depth) {
        loops += fmt::format("for (int i{0} = 0; i{0} < {1}; ++i{0}) ", depth, clang_getArraySize(t));
        element += fmt::format("[i{}]", depth);
      }
      out += fmt::format("  {}r{} = {}(v{}, k);\n", loops, element, shuffle, element);
    }
    out += "  return r;\n}\n";
  }
  return out;
}

}  // namespace ksearch::translate::detail
