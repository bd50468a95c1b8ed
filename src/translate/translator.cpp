// The libclang side of the translator (docs/TRANSLATE.md). The CUDA file is parsed once; every
// CUDA construct found in the AST becomes an edit of the source text (a range and what replaces
// it, rendered recursively so that edits nest: a shuffle's argument may itself use threadIdx), as
// source-to-source translators built on Clang do. The kernel the entry launches becomes the MLX
// body, __device__ functions and file-scope types and constants the header.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "translate/clang_util.hpp"
#include "translate/launch.hpp"
#include "translate/macros.hpp"
#include "translate/translate.hpp"

using ksearch::tasks::EntrySpec;
using ksearch::tasks::Task;
using ksearch::tasks::TensorSpec;

namespace ksearch::translate {

extern const std::map<std::string, std::string> kDataFiles;  // data_embed.cpp (generated)

namespace {

// ------------------------------------------------------------------------------------------ data
struct FunctionMapping {
  std::string metal;  // a name, or a pattern with $1.., $space, $T
  std::vector<std::string> helpers;
  int width_arg = 0;  // 1-based argument: a warp width, absent or 32 for `metal`
  std::string segmented;  // the pattern for a width below 32 ("": not translated)
  std::vector<std::string> segmented_helpers;
  std::string note;   // added to the notes when used
  std::string threadgroup;  // an array the pattern names ("int ks_votes[32]"), declared by the kernel
};

// $rank, $lane and $size of a pattern: the thread's linear index in the threadgroup, its lane in the
// SIMD group (SIMD groups are 32 consecutive threads of that index), and the threadgroup's size.
std::string expand_thread_indices(std::string pattern) {
  const std::string rank =
      "(thread_position_in_threadgroup.x + threads_per_threadgroup.x * (thread_position_in_threadgroup.y + "
      "threads_per_threadgroup.y * thread_position_in_threadgroup.z))";
  const std::string size = "(threads_per_threadgroup.x * threads_per_threadgroup.y * threads_per_threadgroup.z)";
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"$lane", "(" + rank + " % 32)"}, {"$rank", rank}, {"$size", size}})
    for (size_t at; (at = pattern.find(name)) != std::string::npos;) pattern.replace(at, name.size(), value);
  return pattern;
}

std::vector<std::string> strings(const toml::array* list) {
  std::vector<std::string> out;
  if (list)
    for (const auto& h : *list) out.push_back(h.value_or(std::string()));
  return out;
}

struct Mappings {
  std::map<std::string, FunctionMapping> functions;
  std::map<std::string, std::string> untranslatable;
  std::map<std::string, std::string> types;  // token (or `std::NAME`) -> Metal spelling: [types] and [macros]
  std::map<std::string, std::vector<std::string>> type_helpers;  // the helpers a [types] spelling names
  std::map<std::string, std::string> helpers;  // name -> code
};

Mappings load_mappings() {
  Mappings m;
  const toml::table table = toml::parse(kDataFiles.at("mappings.toml"));
  auto section = [&](const char* name) -> const toml::table& {
    if (!table[name].as_table()) throw Error(std::string("src/translate/mappings.toml: missing [") + name + "]");
    return *table[name].as_table();
  };
  for (const auto& [name, value] : section("functions")) {
    FunctionMapping f;
    if (auto s = value.value<std::string>()) {
      f.metal = *s;
    } else {
      const toml::table& t = *value.as_table();
      f.metal = t["metal"].value_or(std::string());
      f.width_arg = t["width_arg"].value_or(0);
      f.segmented = expand_thread_indices(t["segmented"].value_or(std::string()));
      f.segmented_helpers = strings(t["segmented_helpers"].as_array());
      f.note = t["note"].value_or(std::string());
      f.helpers = strings(t["helpers"].as_array());
      f.threadgroup = t["threadgroup"].value_or(std::string());
    }
    f.metal = expand_thread_indices(f.metal);
    m.functions[std::string(name.str())] = f;
  }
  for (const auto& [name, value] : section("untranslatable"))
    m.untranslatable[std::string(name.str())] = value.value_or(std::string());
  for (const char* name_of_section : {"types", "macros"})
    for (const auto& [name, value] : section(name_of_section)) {
      if (const toml::table* t = value.as_table()) {
        m.types[std::string(name.str())] = (*t)["metal"].value_or(std::string());
        m.type_helpers[std::string(name.str())] = strings((*t)["helpers"].as_array());
      } else {
        m.types[std::string(name.str())] = value.value_or(std::string());
      }
    }
  // The helper files: sections starting at `// helper: NAME`.
  const std::string marker = "// helper: ";
  for (const char* file : {"metal_helpers.metal", "metal_common/address_spaces.h"}) {
    const std::string& text = kDataFiles.at(file);
    for (size_t at = text.find(marker); at != std::string::npos;) {
      const size_t name_end = text.find('\n', at);
      const std::string name = text.substr(at + marker.size(), name_end - at - marker.size());
      const size_t next = text.find(marker, name_end);
      m.helpers[name] = text.substr(name_end + 1, (next == std::string::npos ? text.size() : next) - name_end - 1);
      at = next;
    }
  }
  return m;
}

// The CUDA declarations are written to the cache once per content, and clang includes them from there.
std::filesystem::path cuda_include_dir() {
  std::string all;
  for (const auto& [name, text] : kDataFiles) all += name + text;
  const std::filesystem::path dir = cache_subdir("translate") / ("cuda_include-" + sha256_hex(all).substr(0, 16));
  if (!std::filesystem::exists(dir / "ksearch_cuda.h")) {
    std::filesystem::create_directories(dir);
    for (const auto& [name, text] : kDataFiles)
      if (name.rfind("cuda_include/", 0) == 0) write_file_atomic(dir / name.substr(13), text);
  }
  return dir;
}

// ------------------------------------------------------------------------------------- rewriting
// Edits of the source text. render(b, e) copies [b, e) with the outermost edits inside it applied;
// an edit's text may itself render sub-ranges, which applies the edits nested there.
class Rewriter {
 public:
  explicit Rewriter(std::string text) : text_(std::move(text)) {}
  // A later replacement of the same range wins: a declaration's name (a parameter bound to the
  // task's name) over the token's spelling (a Metal keyword renamed).
  void replace(unsigned b, unsigned e, std::function<std::string()> produce) {
    if (b < e) {
      auto [at, added] = ranges_.try_emplace({b, e}, edits_.size());
      if (!added) {
        edits_[at->second].produce = std::move(produce);
        return;
      }
    }
    edits_.push_back({b, e, std::move(produce)});
    sorted_ = false;
  }
  void replace(unsigned b, unsigned e, std::string text) {
    replace(b, e, [text] { return text; });
  }
  void insert(unsigned at, std::string text) { replace(at, at, std::move(text)); }
  void insert(unsigned at, std::function<std::string()> produce) { replace(at, at, std::move(produce)); }
  std::string render(unsigned b, unsigned e) {
    if (!sorted_) {
      // Insertions first at a position, then longer edits before the ones they contain.
      std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& x, const Edit& y) {
        if (x.b != y.b) return x.b < y.b;
        if ((x.b == x.e) != (y.b == y.e)) return x.b == x.e;
        return x.e > y.e;
      });
      for (size_t i = 0; i < edits_.size(); ++i)
        if (edits_[i].b < edits_[i].e) ranges_[{edits_[i].b, edits_[i].e}] = i;
      sorted_ = true;
    }
    std::string out;
    unsigned pos = b;
    auto it = std::lower_bound(edits_.begin(), edits_.end(), b, [](const Edit& x, unsigned v) { return x.b < v; });
    for (; it != edits_.end() && it->b < e + (it->b == it->e ? 1 : 0); ++it) {
      if (it->b < pos || it->e > e) continue;
      out.append(text_, pos, it->b - pos);
      out += it->produce();
      pos = it->e;
    }
    out.append(text_, pos, e - pos);
    return out;
  }
  const std::string& text() const { return text_; }

 private:
  struct Edit {
    unsigned b, e;
    std::function<std::string()> produce;
  };
  std::string text_;
  std::vector<Edit> edits_;
  std::map<std::pair<unsigned, unsigned>, size_t> ranges_;  // a replaced range -> its edit
  bool sorted_ = true;
};

// Metal names of CUDA's built-in variables (MLX declares them when the body names them).
const std::map<std::string, std::string> kBuiltins = {{"threadIdx", "thread_position_in_threadgroup"},
                                                      {"blockIdx", "threadgroup_position_in_grid"},
                                                      {"blockDim", "threads_per_threadgroup"},
                                                      {"gridDim", "threadgroups_per_grid"}};

const std::map<std::string, std::string> kTemplateTypes = {
    {"float", "float32"}, {"__half", "float16"}, {"half", "float16"}, {"__nv_bfloat16", "bfloat16"},
    {"int", "int32"},     {"unsigned int", "uint32"}, {"short", "int16"}, {"unsigned short", "uint16"}};

struct Function {
  CXCursor cursor;
  bool kernel = false;
  std::set<std::string> builtins;  // built-in variables used here or in callees
  std::set<std::string> shared;    // hoisted __shared__ variables (hoisted names) used here or in callees
  std::set<std::string> callees;   // decl_keys of user __device__ functions it calls
  std::vector<CXCursor> dynamic_shared;  // its extern __shared__ declarations (a kernel's)
  KernelTranslation record;  // what was (not) translated in this function itself
  // Per call, the address spaces of what its reference parameters bind (`threadgroup` for
  // `f(partial[tid])`): Metal converts no reference between spaces, so each set is an overload.
  std::set<std::vector<std::string>> reference_spaces;
  std::vector<CXCursor> pointer_choices;  // a kernel's `c ? p : q` of pointers, checked once every space is known
  std::set<std::string> returned;  // a function returning a reference: the spaces of what it returns (`this:KEY` for `*this`)
};

// A static __shared__ variable of a __device__ function. Metal declares threadgroup memory in the
// kernel only, so the kernel declares it (one per threadgroup, as in CUDA) under a hoisted name and
// passes it by reference down to the function, which keeps its own name for it.
struct HoistedShared {
  std::string owner_key;     // the declaring function
  std::string name, hoisted;  // `sm`, `block_merge_sm`
  std::string element, dims;  // `float`, `[32]`
  std::string resolved_element, resolved_dims;  // as the kernel declares them: a function template's parameters bound by its calls
};

// A lambda expression of device code. The Metal Shading Language has none, so each becomes a function-object struct
// that the header declares before the declaration holding it, built where the lambda was: `Name<arguments>{members}`.
struct LambdaMember {
  std::string declaration;  // in the struct: `thread float& acc;`, `KsCapture0 row;`, `static constant constexpr int W = 32;`
  std::string init;         // its value where the lambda was ("" for a static one)
  std::string type_argument;  // the template argument its type takes there (`decltype((row) + 0)`), "" for none
  unsigned init_b = 0, init_e = 0;  // an init capture's expression (`[v = x * 2]`), rendered into init and type_argument
};

struct Lambda {
  CXCursor expr;
  std::string owner;  // decl_key of the function holding it (its record gets the lambda's problems)
  std::string variable;  // decl_key of the variable it initializes (`auto f = [...]`: its calls), "" for none
  std::string name;   // the struct's
  CXCursor anchor;    // the top-level declaration the struct precedes
  Function body;      // what its body uses: built-in variables, hoisted __shared__ arrays, callees
  bool by_reference = false;  // its default capture is `&`
  std::map<std::string, bool> explicit_captures;  // a name in its capture list -> captured by reference
  std::vector<std::pair<std::string, std::pair<unsigned, unsigned>>> init_captures;  // `v = x * 2`: name, expression
  std::vector<CXCursor> captured;  // the enclosing variables its body names (a reference each), in order
  std::vector<CXCursor> params;
  unsigned params_b = 0, params_e = 0;  // inside its parentheses (empty when it has none)
  unsigned return_b = 0, return_e = 0;  // the return type written after `->` (empty when deduced)
  bool is_mutable = false;
  std::vector<std::string> call_templates;  // its operator()'s template parameters (`auto` and pointer parameters)
  // Set once every function is visited (resolve_lambdas):
  std::vector<std::string> outer_templates, outer_names;  // the enclosing templates' parameters, which the struct takes
  std::vector<LambdaMember> members;
};

// A typedef or alias of the file naming a pointer type (`typedef float* fptr;`).
bool pointer_typedef(CXCursor decl) {
  const CXCursorKind kind = clang_getCursorKind(decl);
  return (kind == CXCursor_TypedefDecl || kind == CXCursor_TypeAliasDecl) && clang_Location_isFromMainFile(clang_getCursorLocation(decl)) &&
         is_pointer(clang_getTypedefDeclUnderlyingType(decl));
}

// A parameter's default argument: the expression after `=` (others are part of its type, as the 32
// of `thread_block_tile<32>` or of `float (&s)[32]`); a null cursor when it has none.
CXCursor default_argument(CXCursor parameter) {
  for (CXCursor k : children(parameter)) {
    if (!clang_isExpression(clang_getCursorKind(k)) || begin_offset(k) <= position(parameter).offset) continue;
    const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(parameter);
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(unit, clang_getRange(clang_getCursorLocation(parameter), clang_getRangeStart(clang_getCursorExtent(k))), &tokens, &n);
    bool assigned = false;
    for (unsigned i = 0; i < n; ++i) assigned = assigned || take(clang_getTokenSpelling(unit, tokens[i])) == "=";
    clang_disposeTokens(unit, tokens, n);
    if (assigned) return k;
  }
  return clang_getNullCursor();
}

// The index of a function's first parameter with a default argument (its parameters' count when none).
size_t first_defaulted(CXCursor function) {
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (!clang_Cursor_isNull(default_argument(params[i]))) return i;
  return params.size();
}

struct CallSite {
  CXCursor call;
  std::string callee;
  size_t arguments = 0;  // those left in the call (group handles are dropped)
};

// A cooperative group handle's type (also a reference to one): its methods become threadgroup and
// SIMD-group functions, so the handle itself has no Metal counterpart. A tile's width is its size as
// written: "32", "16", or a template parameter's name ("TILE", which a kernel's template directive binds).
struct Group {
  enum Kind { none, block, tile } kind = none;
  std::string width;
  bool literal() const { return !width.empty() && std::all_of(width.begin(), width.end(), ::isdigit); }
};

Group group_of(CXType type) {
  if (is_reference(type)) type = pointee_type(type);
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
  const std::string tile = "thread_block_tile<";
  if (name.rfind(tile, 0) != 0) return {};
  Group g{Group::tile, name.substr(tile.size(), name.size() - tile.size() - 1)};
  // A dependent width reads `type-parameter-0-0` in the canonical type: take it as written.
  if (const std::string written = unqualified(type); !g.literal() && written.rfind(tile, 0) == 0)
    g.width = written.substr(tile.size(), written.size() - tile.size() - 1);
  return g;
}

// The parameters of a function that are references (group handles aside, which are dropped).
std::vector<size_t> reference_parameters(CXCursor function) {
  std::vector<size_t> out;
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (is_reference(clang_getCursorType(params[i])) && group_of(clang_getCursorType(params[i])).kind == Group::none) out.push_back(i);
  return out;
}

// The group whose method a call calls (`tile.shfl_down(v, 1)`), also when the handle's type depends
// on a template parameter and clang leaves the method unresolved.
Group method_group(CXCursor call) {
  const std::vector<CXCursor> kids = children(call);
  if (kids.empty() || clang_getCursorKind(kids[0]) != CXCursor_MemberRefExpr) return {};
  const std::vector<CXCursor> object = children(kids[0]);
  return object.empty() ? Group{} : group_of(clang_getCursorType(strip_implicit(object[0])));
}

// Why a tile of this width is not translated ("" when it is): tiles are segments of a SIMD group (32
// lanes); a size known only from a template parameter is translated where the kernel's template
// directive binds it, not as a __device__ function's parameter, which the port drops.
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

// An arithmetic operator of the file over CUDA's vector types (helper_math.h's `float4 + float4`,
// `float * float4`, `+=`): Metal's vector types have them built in, element-wise, and overloading
// them is an error. (Comparisons are not dropped: Metal's return a vector of bools.)
bool builtin_vector_operator(CXCursor function) {
  static const std::set<std::string> arithmetic = {"operator+", "operator-", "operator*", "operator/",
                                                   "operator+=", "operator-=", "operator*=", "operator/="};
  if (!arithmetic.count(spelling(function))) return false;
  bool vector = false;
  for (CXCursor p : parameters_of(function)) {
    CXType t = clang_getCursorType(p);
    if (is_reference(t)) t = pointee_type(t);
    t = clang_getCanonicalType(t);
    std::string name = take(clang_getTypeSpelling(t));
    if (name.rfind("const ", 0) == 0) name.erase(0, 6);
    static const std::set<std::string> bases = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "float", "double"};
    const bool is_vector = !name.empty() && name.back() >= '1' && name.back() <= '4' && bases.count(name.substr(0, name.size() - 1));
    if (is_vector) vector = true;
    else if (!(t.kind >= CXType_Bool && t.kind <= CXType_LongDouble)) return false;
  }
  return vector;
}

// The text that removes `items[i]` of a comma-separated list (parameters, arguments) for each i
// in `drop` (ascending), commas included, as ranges that do not overlap.
std::vector<std::pair<unsigned, unsigned>> list_removals(const std::vector<CXCursor>& items, const std::vector<size_t>& drop) {
  std::vector<bool> kept(items.size(), true);
  for (size_t i : drop) kept[i] = false;
  std::vector<std::pair<unsigned, unsigned>> out;
  for (size_t i : drop) {
    const bool kept_after = std::find(kept.begin() + long(i) + 1, kept.end(), true) != kept.end();
    const bool kept_before = std::find(kept.begin(), kept.begin() + long(i), true) != kept.begin() + long(i);
    if (kept_after) out.push_back({begin_offset(items[i]), begin_offset(items[i + 1])});
    else if (kept_before) out.push_back({end_offset(items[i - 1]), end_offset(items[i])});
    else out.push_back({begin_offset(items[i]), i + 1 < items.size() ? begin_offset(items[i + 1]) : end_offset(items[i])});
  }
  return out;
}

// The named namespaces around a declaration, outermost first (anonymous ones are left out: their
// names are visible around them).
std::vector<std::string> namespaces_of(CXCursor c) {
  std::vector<std::string> out;
  for (CXCursor p = clang_getCursorSemanticParent(c); clang_getCursorKind(p) == CXCursor_Namespace; p = clang_getCursorSemanticParent(p))
    if (!clang_Cursor_isAnonymous(p)) out.insert(out.begin(), spelling(p));
  return out;
}

// Which parameters of a function are group handles.
std::vector<size_t> group_parameters(CXCursor function) {
  std::vector<size_t> out;
  const std::vector<CXCursor> params = parameters_of(function);
  for (size_t i = 0; i < params.size(); ++i)
    if (group_of(clang_getCursorType(params[i])).kind != Group::none) out.push_back(i);
  return out;
}

// An integral template argument of a specialization as a directive value: a bool as 1 or 0 (clang's 1-bit value
// reads as -1 signed), an unsigned one without sign extension.
std::string integral_template_argument(CXCursor specialization, unsigned i, CXCursor parameter) {
  const CXTypeKind type = clang_getCanonicalType(clang_getCursorType(parameter)).kind;
  if (type == CXType_Bool) return clang_Cursor_getTemplateArgumentValue(specialization, i) != 0 ? "1" : "0";
  if (type >= CXType_Char_U && type <= CXType_UInt128)
    return std::to_string(clang_Cursor_getTemplateArgumentUnsignedValue(specialization, i));
  return std::to_string(clang_Cursor_getTemplateArgumentValue(specialization, i));
}

// The __CUDA_ARCH__ whose branches a port takes: Volta's, the first with the `_sync` warp functions
// that Metal's SIMD groups match, below the branches that use cp.async or bf16 tensor cores.
constexpr int kDeviceArch = 700;

class Translator {
 public:
  Translator(const std::filesystem::path& file, const Task& task)
      : file_(file.string()),
        task_(task),
        entry_(task.entry("cuda")),
        maps_(load_mappings()),
        macros_(expand_file_macros(select_arch_branches(read_file(file), kDeviceArch))),
        rw_(macros_.text) {}

  Translation run();

 private:
  // parsing and classification
  void parse();
  bool from_prelude(CXCursor declaration) const {
    return position(declaration).file.rfind(include_dir_.string(), 0) == 0;
  }
  bool in_main_file(CXCursor c) const { return clang_Location_isFromMainFile(clang_getCursorLocation(c)); }
  void problem(std::vector<Problem>& to, CXCursor at, std::string construct, std::string reason) {
    const Position p = position(at);
    to.push_back({file_, int(p.line), int(p.column), std::move(construct), std::move(reason)});
  }
  std::string text(unsigned b, unsigned e) const { return rw_.text().substr(b, e - b); }
  // Where a name (a DeclRefExpr) is written in the file: a macro's argument where the macro is used;
  // none in a macro's body, whose tokens all sit at the macro's use.
  std::optional<std::pair<unsigned, unsigned>> name_range(CXCursor reference) const {
    const unsigned b = begin_offset(reference), e = end_offset(reference);
    const std::string name = spelling(reference);
    if (text(b, e) == name) return std::make_pair(b, e);
    CXFile file = nullptr;
    unsigned at = 0;
    clang_getSpellingLocation(clang_getCursorLocation(reference), &file, nullptr, nullptr, &at);
    if (file && take(clang_getFileName(file)) == file_ && rw_.text().compare(at, name.size(), name) == 0)
      return std::make_pair(at, unsigned(at + name.size()));
    return std::nullopt;
  }
  void macro_problem(std::vector<Problem>& to, CXCursor reference) {
    problem(to, reference, "'" + spelling(reference) + "' inside a macro",
            "the port rewrites names where they are written, and this one is written in a macro's definition: expand the "
            "macro by hand");
  }

  // edits
  void token_edits();
  void expand_pointer_typedefs();
  void find_launch();
  std::string zeroed_buffer(CXCursor memset_call);
  void add_host_helper(CXCursor call);
  void add_scratch(CXCursor malloc_call);
  void visit_function(Function& fn);
  std::vector<std::string> parameter_templates(const std::vector<CXCursor>& params, Function& fn);
  void visit_lambda(CXCursor lambda, Function& fn);
  void resolve_lambdas();
  std::string lambda_site(const Lambda& lambda);
  std::string lambda_struct(const Lambda& lambda);
  std::string body_name(CXCursor variable) const;
  void visit(CXCursor c, Function& fn);
  void map_call(CXCursor call, CXCursor callee, Function& fn);
  void convert_arguments(CXCursor callee, const std::vector<CXCursor>& args);
  bool volatile_store(CXCursor assignment, Function& fn);
  bool map_declaration(CXCursor var, Function& fn);
  void map_cast(CXCursor cast);
  void device_function_signature(Function& fn);
  std::string space_of(CXCursor expression);
  std::string bound_space(CXCursor argument);
  std::set<std::string> resolved_spaces(const std::string& space, int depth = 0) const;
  std::string with_reference_spaces(const Function& fn, const std::string& text);
  void resolve_hoisted_types();
  void shared_pointer_field(CXCursor c, Function& fn);
  std::string object_space(CXCursor call, CXCursor callee, std::vector<CXCursor>& args);
  std::string metal_type(CXType t);
  std::string unqualified_type(CXType t);  // metal_type of the canonical type without its const

  // output
  std::string header();
  std::string in_namespaces(CXCursor declaration, std::string text);
  std::string kernel_body(const Function& kernel, const std::vector<std::string>& bindings);

  std::string file_;
  const Task& task_;
  const EntrySpec& entry_;
  Mappings maps_;
  MacroExpansion macros_;  // the file as parsed and rewritten: its own macros expanded
  Rewriter rw_;
  std::string visiting_;  // the decl key of the function being visited (what `this` is in a method)
  std::set<std::string> reported_fields_;  // reference members reported (once each)
  std::filesystem::path include_dir_;
  CXIndex index_ = nullptr;
  CXTranslationUnit unit_ = nullptr;
  Translation out_;
  std::map<std::string, Function> functions_;  // kernels and __device__ functions by decl_key
  std::vector<CallSite> call_sites_;
  std::map<std::string, HoistedShared> hoisted_;  // by hoisted name
  std::map<std::string, std::string> spaces_;        // decl_key of a variable -> its address space
  std::map<std::string, std::string> param_renames_;  // decl_key of a kernel parameter -> body name
  std::map<std::string, std::string> keyword_renames_;  // identifiers that are Metal keywords -> their names
  std::vector<CXCursor> dynamic_shared_;             // extern __shared__ declarations
  std::set<unsigned> automatic_ends_;  // where declarators written `auto` (or split off) end
  std::vector<std::pair<unsigned, unsigned>> for_inits_;  // the initializers of for statements
  std::set<std::string> helpers_;
  std::vector<Lambda> lambdas_;  // in the order their visits end: a nested lambda before the one holding it
  std::map<unsigned, CXCursor> lambda_variables_;  // where a lambda starts -> the variable it initializes
  // The variable of a lambda -> per call of it, the address spaces its arguments bind (for its reference parameters).
  std::map<std::string, std::vector<std::vector<std::string>>> lambda_calls_;
  std::map<std::string, std::string> reference_spaces_;  // a lambda's reference parameter -> the space it binds
  // the launches, in the entry's order (several: a multi-kernel candidate)
  struct Launch {
    CXCursor call;
    std::string kernel;  // decl_key of the (template) kernel
    std::string section;  // its kernel section's name in a multi-kernel candidate
    // directive expressions: blocks and threads per block, dynamic shared bytes ("" for none),
    // template arguments (name, value; `typed` when the value is a dtype)
    std::array<std::string, 3> blocks{"1", "1", "1"}, threads{"1", "1", "1"};
    std::string shared_bytes;
    struct TemplateArgument {
      std::string name, value;
      bool typed = false;
    };
    std::vector<TemplateArgument> templates;
    bool zero_init = false;  // it writes a buffer zeroed before the launches
    std::vector<std::string> bindings;
    std::vector<std::string> outputs;  // the buffers it writes (task outputs, scratch)
  };
  // Launches the entry chooses among (`if (cols <= 256) k<64><<<...>>> else k<256><<<...>>>`, a
  // switch): a launch, or a condition (a directive expression) choosing between two choices.
  struct Choice {
    int launch = -1;
    std::string condition;
    std::shared_ptr<Choice> then, otherwise;
    // The choice as a directive expression, each launch written by `leaf`.
    std::string render(const std::function<std::string(int)>& leaf) const {
      if (launch >= 0) return leaf(launch);
      const std::string a = then->render(leaf), b = otherwise->render(leaf);
      return a == b ? a : "(" + condition + " ? " + a + " : " + b + ")";
    }
  };
  std::shared_ptr<Choice> choice_in(CXCursor statement, const std::vector<CXCursor>& launches);
  std::vector<std::string> directives(const Launch& launch) const;
  std::string dispatch_candidate();
  std::shared_ptr<Choice> dispatch_;  // set when the entry's launches are alternatives
  // A cudaMalloc'd buffer of the entry: a scratch buffer of the candidate.
  struct Scratch {
    std::string key, name, directive;
  };
  void translate_launch(Launch& launch, const std::set<std::string>& zeroed, std::vector<std::string>& written);
  void map_host_calls(CXCursor argument);
  std::set<unsigned> host_calls_;  // calls of kernel arguments mapped (map_host_calls)
  std::string buffer_of(CXCursor argument);
  CXCursor launching_function(CXCursor call);
  std::string bind_launcher(CXCursor call, CXCursor launcher);
  // How a use of a launcher's (template) parameter is written for the call being translated: a
  // template argument's value, or the call argument's text.
  struct LauncherUse {
    std::string value;
    unsigned b = 0, e = 0;  // the argument (when value is empty)
    bool parenthesize = false;
    CXCursor argument = clang_getNullCursor();
  };
  struct LauncherCall {  // what a launch inside a launcher is translated with
    HostScope scope;
    std::map<std::string, LauncherUse> uses;        // by decl_key of the parameter
    std::map<std::string, CXType> types;            // decl_key of a type template parameter -> its type
  };
  LauncherCall launcher_call_;                    // the call being walked or translated
  std::set<std::string> launchers_edited_;        // launchers whose parameter uses are edits already
  std::set<std::string> searching_;               // functions launching_function is looking into
  std::string host_value(CXCursor var, unsigned at);
  std::string host_value(CXCursor var, unsigned at, CXType type, const std::string& member, const std::function<std::string()>& initial);
  std::string struct_binding(CXType record, CXCursor arg, const std::string& name, const std::function<void(CXCursor)>& writes_through);
  // The type of a type reference or an expression as the launcher being walked binds it: its
  // template type parameters (`Op`, also as the type of its parameter `Op op`) are the call's types.
  CXType launcher_type(CXCursor c) {
    CXCursor named = clang_getCursorKind(c) == CXCursor_TypeRef ? c : clang_getNullCursor();
    const CXCursor referenced = clang_getCursorReferenced(strip_implicit(c));
    if (clang_Cursor_isNull(named) && clang_getCursorKind(referenced) == CXCursor_ParmDecl)
      for (CXCursor k : children(referenced))
        if (clang_getCursorKind(k) == CXCursor_TypeRef) named = k;
    auto bound = clang_Cursor_isNull(named) ? launcher_call_.types.end() : launcher_call_.types.find(decl_key(clang_getCursorReferenced(named)));
    return bound != launcher_call_.types.end() ? bound->second : clang_getCursorType(c);
  }
  std::string record_name(CXType record);
  bool struct_field_edit(CXCursor member);
  void device_pointer_fields(CXType record, const std::set<unsigned>& templated = {});
  // A read-only pointer field of a struct, as the fields leading to it from the struct (`{x, data}` for `args.x.data`).
  using FieldPath = std::vector<CXCursor>;
  std::vector<FieldPath> templatable_fields(CXType record, const std::string& holder = "");
  void template_record(CXType record, const std::vector<FieldPath>& leaves);
  std::set<unsigned> device_fields_;  // struct fields whose pointers were given `device`
  // Structs passed to kernels (and the structs they hold) whose read-only pointer fields became template parameters
  // (by decl key, with the paths to those fields, one parameter each): each field takes the type of the buffer it is
  // given, `device` or `constant` (MLX passes an input of fewer than 8 elements in constant memory, and Metal
  // converts no pointer between the two).
  std::map<std::string, std::vector<FieldPath>> templated_records_;
  std::set<std::string> namespaces_;  // the named namespaces the header declares things in
  std::vector<Launch> launches_;
  std::vector<Scratch> scratch_;
  HostScope host_;
};

void Translator::parse() {
  include_dir_ = cuda_include_dir();
  const std::string include_flag = "-I" + include_dir_.string();
  const std::vector<const char*> args = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
                                         "-Wno-unknown-cuda-version", include_flag.c_str(), "-include", "ksearch_cuda.h"};
  index_ = clang_createIndex(0, 0);
  CXUnsavedFile expanded{file_.c_str(), rw_.text().c_str(), static_cast<unsigned long>(rw_.text().size())};
  const CXErrorCode rc = clang_parseTranslationUnit2(index_, file_.c_str(), args.data(), int(args.size()), &expanded, 1,
                                                     CXTranslationUnit_DetailedPreprocessingRecord, &unit_);
  if (rc != CXError_Success || !unit_) throw Error("ksearch port: clang could not parse " + file_);
  for (unsigned i = 0; i < clang_getNumDiagnostics(unit_); ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit_, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      const Position p = position(clang_getDiagnosticLocation(d));
      out_.problems.push_back({p.file.empty() ? file_ : p.file, int(p.line), int(p.column), "parse error",
                               take(clang_getDiagnosticSpelling(d)) +
                                   " (the translator knows the CUDA API declared in src/translate/cuda_include/)"});
    }
    clang_disposeDiagnostic(d);
  }
  host_.unit = unit_;
  if (!macros_.expanded.empty())
    out_.notes.push_back(fmt::format("macros of the file expanded where they are used: {}", fmt::join(macros_.expanded, ", ")));
}

// Keywords and type names, token by token, wherever the file is rendered.
void Translator::token_edits() {
  CXFile file = clang_getFile(unit_, file_.c_str());
  CXSourceRange all = clang_getRange(clang_getLocationForOffset(unit_, file, 0),
                                     clang_getLocationForOffset(unit_, file, unsigned(rw_.text().size())));
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit_, all, &tokens, &n);
  auto spell = [&](unsigned i) { return i < n ? take(clang_getTokenSpelling(unit_, tokens[i])) : std::string(); };
  auto begin = [&](unsigned i) { return position(clang_getTokenLocation(unit_, tokens[i])).offset; };
  auto end = [&](unsigned i) { return position(clang_getRangeEnd(clang_getTokenExtent(unit_, tokens[i]))).offset; };
  static const std::map<std::string, std::string> keywords = {
      {"__global__", ""}, {"__device__", ""},     {"__host__", ""},          {"__restrict__", ""}, {"__restrict", ""},
      {"__noinline__", ""}, {"__forceinline__", "inline"}, {"__inline__", "inline"}, {"__inline", "inline"}, {"__shared__", "threadgroup"}, {"__constant__", "constant"}};
  // CUDA identifiers that Metal reserves get a name of the file's own (`kernel` -> `kernel_`).
  static const std::set<std::string> metal_keywords = {"device", "constant", "thread", "threadgroup", "threadgroup_imageblock",
                                                       "ray_data", "object_data", "kernel", "vertex", "fragment", "sampler",
                                                       "texture", "visible", "stage_in"};
  std::set<std::string> identifiers;
  for (unsigned i = 0; i < n; ++i)
    if (clang_getTokenKind(tokens[i]) == CXToken_Identifier) identifiers.insert(spell(i));
  for (const auto& k : metal_keywords) {
    if (!identifiers.count(k)) continue;
    std::string name = k + "_";
    while (identifiers.count(name)) name += "_";
    identifiers.insert(name);
    keyword_renames_[k] = name;
  }
  for (unsigned i = 0; i < n; ++i) {
    const std::string s = spell(i);
    if (auto k = keywords.find(s); k != keywords.end()) {
      rw_.replace(begin(i), end(i), k->second);
    } else if (auto r = keyword_renames_.find(s); r != keyword_renames_.end()) {
      rw_.replace(begin(i), end(i), r->second);
    } else if ((s == "__launch_bounds__" || s == "__align__") && spell(i + 1) == "(") {
      unsigned j = i + 1;
      for (int depth = 0; j < n; ++j) {
        depth += spell(j) == "(" ? 1 : spell(j) == ")" ? -1 : 0;
        if (depth == 0) break;
      }
      rw_.replace(begin(i), end(std::min(j, n - 1)), "");
      i = j;
    } else if (s == "long" && spell(i + 1) == "long") {
      const bool is_unsigned = i > 0 && spell(i - 1) == "unsigned";
      rw_.replace(begin(is_unsigned ? i - 1 : i), end(i + 1), is_unsigned ? "ulong" : "long");
      ++i;
    } else if (s == "double") {
      rw_.replace(begin(i), end(i), "float");
      if (std::find(out_.notes.begin(), out_.notes.end(), "double narrowed to float (Metal has no double)") ==
          out_.notes.end())
        out_.notes.push_back("double narrowed to float (Metal has no double)");
    } else if (auto q = maps_.types.find(s + spell(i + 1) + spell(i + 2)); s == "std" && q != maps_.types.end()) {
      rw_.replace(begin(i), end(i + 2), q->second);  // a std type Metal lacks (`std::aligned_storage`)
      if (auto h = maps_.type_helpers.find(q->first); h != maps_.type_helpers.end()) helpers_.insert(h->second.begin(), h->second.end());
      i += 2;
    } else if (s == "std" && spell(i + 1) == "::") {
      rw_.replace(begin(i), end(i + 1), "metal::");
      ++i;
    } else if (auto t = maps_.types.find(s); t != maps_.types.end()) {
      rw_.replace(begin(i), end(i), t->second);
    }
  }
  clang_disposeTokens(unit_, tokens, n);
}

// The entry: its only kernel launch, the launch's geometry as directives, the kernel's arguments.
void Translator::find_launch() {
  CXCursor entry = clang_getNullCursor();
  std::pair<Translator*, CXCursor*> search(this, &entry);
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<std::pair<Translator*, CXCursor*>*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        if (clang_getCursorKind(c) == CXCursor_FunctionDecl && spelling(c) == self->first->entry_.function &&
            clang_isCursorDefinition(c))
          *self->second = c;
        return clang_getCursorKind(c) == CXCursor_UnexposedDecl || clang_getCursorKind(c) == CXCursor_Namespace
                   ? CXChildVisit_Recurse
                   : CXChildVisit_Continue;
      },
      &search);
  if (clang_Cursor_isNull(entry)) {
    out_.problems.push_back({file_, 0, 0, "entry", "no definition of the entry function '" + entry_.function + "'"});
    return;
  }
  // Entry parameters are the task's arguments, in [entry.cuda] order (a trailing stream is extra).
  const std::vector<CXCursor> params = parameters_of(entry);
  for (size_t i = 0; i < params.size() && i < entry_.args.size(); ++i) host_.parameters[decl_key(params[i])] = entry_.args[i];
  collect_assignments(entry, host_);
  for (size_t i = 0; i < params.size() && i < entry_.args.size(); ++i) {
    // (A parameter assigned in the entry is written as its value where it is used, below.)
    if (spelling(params[i]) != entry_.args[i] && !host_.assignments.count(decl_key(params[i]))) {
      // The kernel's arguments are rendered from the entry's expressions: use the task's names.
      std::tuple<Translator*, std::string, std::string> rename(this, decl_key(params[i]), entry_.args[i]);
      clang_visitChildren(
          entry,
          [](CXCursor c, CXCursor, CXClientData data) {
            auto* p = static_cast<std::tuple<Translator*, std::string, std::string>*>(data);
            if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(c)) == std::get<1>(*p))
              if (auto at = std::get<0>(*p)->name_range(c)) std::get<0>(*p)->rw_.replace(at->first, at->second, std::get<2>(*p));
              else std::get<0>(*p)->macro_problem(std::get<0>(*p)->out_.problems, c);
            return CXChildVisit_Recurse;
          },
          &rename);
    }
  }
  // The launches; locals of the entry used in kernel arguments are replaced by their values there
  // (cudaMalloc'd buffers excepted: they become scratch buffers).
  struct Walk {
    std::vector<CXCursor> launches;
    std::vector<CXCursor> anchors;  // where each launch is in the entry (a launcher's call for its launches)
    CXCursor launcher_call = clang_getNullCursor();  // the call whose launcher is being walked
    CXCursor launcher = clang_getNullCursor();       // that launcher's definition
    std::vector<std::optional<LauncherCall>> calls;  // what each launch in a launcher is translated with
    std::vector<CXCursor> launchers;                 // the launcher each launch is in (null: the entry)
    bool guarded = false;
    std::set<std::string> zeroed;  // buffers a cudaMemset zeroes before the first launch
    // the ifs (offset) and branches (1: then, 2: else) around the node walked, and around each launch
    std::vector<std::pair<unsigned, size_t>> branches;
    std::vector<std::vector<std::pair<unsigned, size_t>>> launch_branches;
    int switches = 0;          // the switch statements around the node walked
    bool switched = false;     // a launch is inside a switch
  } walk;
  auto is_scratch = [this](CXCursor decl) {
    return std::any_of(scratch_.begin(), scratch_.end(), [&](const Scratch& b) { return b.key == decl_key(decl); });
  };
  std::function<void(CXCursor, int, bool)> walk_fn = [&](CXCursor c, int loop_depth, bool guarded) {
    const std::vector<CXCursor> kids = children(c);
    for (size_t index = 0; index < kids.size(); ++index) {
      const CXCursor k = kids[index];
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_CallExpr) {
        bool is_launch = false;
        for (CXCursor kk : children(k))
          if (clang_getCursorKind(kk) == CXCursor_CallExpr && spelling(kk) == "__cudaPushCallConfiguration") is_launch = true;
        if (is_launch) {
          walk.launches.push_back(k);
          walk.anchors.push_back(clang_Cursor_isNull(walk.launcher_call) ? k : walk.launcher_call);
          walk.launchers.push_back(walk.launcher);
          walk.calls.push_back(clang_Cursor_isNull(walk.launcher_call) ? std::nullopt : std::optional<LauncherCall>(launcher_call_));
          walk.launch_branches.push_back(walk.branches);
          walk.switched |= walk.switches > 0;
          if (clang_getCursorKind(c) == CXCursor_IfStmt && index > 0)  // the launch is the branch itself
            walk.launch_branches.back().push_back({begin_offset(c), index});
          if (loop_depth > 0)
            problem(out_.problems, k, "kernel launch in a loop",
                    "a launch repeated by a host loop (the count known only at run time) is not translated: unroll it or move the loop into the kernel");
          if (guarded) walk.guarded = true;
        }
        add_host_helper(k);
        if (const CXCursor launcher = launching_function(k); !clang_Cursor_isNull(launcher)) {
          // A launcher called once is walked as part of the entry, its parameters bound to the call's arguments.
          const HostScope entry_scope = host_;
          const std::string why = !clang_Cursor_isNull(walk.launcher_call) ? "it is called by another launcher" : bind_launcher(k, launcher);
          if (why.empty()) {
            walk.launcher_call = k;
            walk.launcher = launcher;
            walk_fn(launcher, loop_depth, guarded);
            walk.launcher_call = walk.launcher = clang_getNullCursor();
            host_ = entry_scope;
          } else {
            problem(out_.problems, k, "kernel launch in '" + spelling(launcher) + "'",
                    fmt::format("the entry calls a host function of the file that launches kernels (line {}), and {}: "
                                "launch from the entry",
                                position(launcher).line, why));
          }
        }
        const std::string name = spelling(k);
        if (name == "cudaMalloc" || name == "cudaMallocAsync") {
          add_scratch(k);
          continue;
        }
        if (name == "cudaFree" || name == "cudaFreeAsync") continue;  // MLX frees intermediate arrays itself
        if (name == "cudaMemsetAsync" || name == "cudaMemset") {
          const std::string zeroed = zeroed_buffer(k);
          if (!zeroed.empty() && walk.launches.empty()) {
            walk.zeroed.insert(zeroed);
            out_.notes.push_back(fmt::format("line {}: {} of {} before the launches became `init_value: 0` of the kernel that "
                                             "writes it (MLX fills every output of that kernel with it)",
                                             position(k).line, name, zeroed));
            continue;
          }
          problem(out_.problems, k, name, "only zeroing a task output or scratch buffer before the first launch is translated "
                                          "(init_value); other host-side memory operations have no MLX counterpart");
        }
        if (name == "cudaMemcpyAsync" || name == "cudaMemcpy")
          problem(out_.problems, k, name, "host-side copies between launches have no MLX kernel counterpart");
        if (name == "cudaLaunchKernel" || name == "cudaLaunchCooperativeKernel")
          problem(out_.problems, k, name, "a launch through the runtime API (its arguments an array of addresses) is not "
                                          "followed: write it as kernel<<<grid, block, shared_bytes, stream>>>(arguments)");
        if (name == "cudaMemcpyToSymbol" || name == "cudaMemcpyToSymbolAsync")
          problem(out_.problems, k, name, "__constant__ memory filled by the host at run time has no MLX counterpart: pass the "
                                          "values as a tensor of the task, or as constexpr data when they are fixed");
      }
      if (kind == CXCursor_MemberRefExpr && struct_field_edit(k)) continue;
      if (kind == CXCursor_DeclRefExpr) {
        CXCursor decl = clang_getCursorReferenced(k);
        const bool local = clang_getCursorKind(decl) == CXCursor_VarDecl && in_main_file(decl) &&
                           clang_getCursorSemanticParent(decl).kind != CXCursor_TranslationUnit && !is_scratch(decl);
        const bool assigned_parameter = host_.parameters.count(decl_key(decl)) && host_.assignments.count(decl_key(decl));
        if (local || assigned_parameter) {
          if (auto at = name_range(k)) rw_.replace(at->first, at->second, [this, decl, at = begin_offset(k)] { return host_value(decl, at); });
          else macro_problem(out_.problems, k);
        }
      }
      if (clang_getCursorKind(k) == CXCursor_CStyleCastExpr || clang_getCursorKind(k) == CXCursor_CXXReinterpretCastExpr ||
          clang_getCursorKind(k) == CXCursor_CXXStaticCastExpr)
        if (is_pointer(clang_getCursorType(k))) map_cast(k);
      const bool loop = kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt || kind == CXCursor_DoStmt;
      const bool branch = clang_getCursorKind(c) == CXCursor_IfStmt && index > 0;
      if (branch) walk.branches.push_back({begin_offset(c), index});
      walk.switches += kind == CXCursor_SwitchStmt;
      walk_fn(k, loop_depth + (loop ? 1 : 0), guarded || kind == CXCursor_IfStmt);
      walk.switches -= kind == CXCursor_SwitchStmt;
      if (branch) walk.branches.pop_back();
    }
  };
  walk_fn(entry, 0, false);
  if (walk.launches.empty()) {
    problem(out_.problems, entry, "entry", "the entry launches no kernel");
    return;
  }
  // Launches in the branches of an if or the cases of a switch: the entry picks one per call, and so
  // does the candidate, through directives that choose per workload.
  // Launches that are not alternatives run in sequence: a multi-kernel candidate.
  bool alternatives = walk.switched;
  for (size_t i = 0; i < walk.launches.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      for (const auto& [at, branch] : walk.launch_branches[i])
        for (const auto& [other_at, other_branch] : walk.launch_branches[j])
          alternatives |= at == other_at && branch != other_branch;
  if (walk.launches.size() > 1) {
    // Every launch in one call of a launcher: the choice is among the launcher's branches, read with its parameters.
    const bool one_launcher = walk.calls[0] && std::all_of(walk.anchors.begin(), walk.anchors.end(), [&](CXCursor a) {
      return clang_equalCursors(a, walk.anchors[0]);
    });
    const HostScope entry_scope = host_;
    try {
      if (one_launcher) host_ = walk.calls[0]->scope;
      dispatch_ = one_launcher ? choice_in(walk.launchers[0], walk.launches) : choice_in(entry, walk.anchors);
      host_ = entry_scope;
    } catch (const Error& e) {
      host_ = entry_scope;
      if (alternatives) return problem(out_.problems, walk.launches.back(), "alternative launches in branches of the entry", e.what());
    }
  }
  if (dispatch_) {
    if (!scratch_.empty())
      return problem(out_.problems, walk.launches.back(), "alternative launches in branches of the entry",
                     "alternatives with cudaMalloc'd scratch buffers are not translated: keep one");
  }
  if (walk.guarded && !dispatch_)
    out_.notes.push_back("the launch's guard in the entry (e.g. `if (rows > 0)`) was dropped: every workload launches");
  std::vector<std::string> written;
  std::map<std::string, int> sections;
  const HostScope entry_scope = host_;
  for (size_t i = 0; i < walk.launches.size(); ++i) {
    Launch launch;
    launch.call = walk.launches[i];
    if (walk.calls[i]) {
      launcher_call_ = *walk.calls[i];
      host_ = launcher_call_.scope;
    }
    std::vector<std::string> none_written;  // alternatives write the same outputs, each on its own
    translate_launch(launch, walk.zeroed, dispatch_ ? none_written : written);
    host_ = entry_scope;
    // A kernel launched twice gets a numbered section: MLX kernel names are unique.
    const int n = ++sections[launch.section];
    if (n > 1) launch.section += "_" + std::to_string(n);
    launches_.push_back(std::move(launch));
  }
  if (!dispatch_ && (launches_.size() > 1 || !scratch_.empty())) {
    for (const auto& launch : launches_)
      if (launch.outputs.empty())
        problem(out_.problems, launch.call, "kernel launch",
                "the kernel writes no task output or scratch buffer through a non-const pointer parameter");
    for (const auto& t : task_.outputs)
      if (std::find(written.begin(), written.end(), t.name) == written.end())
        problem(out_.problems, entry, "task output",
                "no launch writes '" + t.name + "' through a non-const pointer parameter (the outputs of a multi-kernel candidate)");
  }
}

// The host function of the file a call calls, when its body launches a kernel (a launcher the
// entry delegates to); else a null cursor.
CXCursor Translator::launching_function(CXCursor call) {
  CXCursor callee = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(callee)) return callee;
  const CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
  CXCursor definition = clang_getCursorDefinition(clang_Cursor_isNull(pattern) ? callee : pattern);
  if (clang_Cursor_isNull(definition) || !in_main_file(definition) || has_child(definition, CXCursor_CUDAGlobalAttr))
    return clang_getNullCursor();
  // It launches, or calls a function that does (a launcher of launchers; recursion is not followed).
  if (!searching_.insert(decl_key(definition)).second) return clang_getNullCursor();
  std::pair<Translator*, bool> search(this, false);
  clang_visitChildren(
      definition,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<std::pair<Translator*, bool>*>(data);
        if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
        s->second = spelling(c) == "__cudaPushCallConfiguration" || !clang_Cursor_isNull(s->first->launching_function(c));
        return s->second ? CXChildVisit_Break : CXChildVisit_Recurse;
      },
      &search);
  searching_.erase(decl_key(definition));
  return search.second ? definition : clang_getNullCursor();
}

// Binds a launcher's template parameters and parameters to what `call` passes: directive values for
// sizes (host_.parameters), task names for tensors, and edits that write each use of a parameter in
// its body as the argument (the launch's kernel arguments are rendered from there). Returns why the
// launcher cannot be followed, or "".
std::string Translator::bind_launcher(CXCursor call, CXCursor launcher) {
  const CXCursor specialization = clang_getCursorReferenced(call);
  std::vector<CXCursor> template_parameters;
  for (CXCursor k : children(launcher))
    if (clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter || clang_getCursorKind(k) == CXCursor_TemplateTypeParameter)
      template_parameters.push_back(k);
  std::map<std::string, LauncherUse>& uses = launcher_call_.uses;
  for (size_t i = 0; i < template_parameters.size(); ++i) {
    const std::string key = decl_key(template_parameters[i]);
    const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, unsigned(i));
    if (kind == CXTemplateArgumentKind_Integral) {
      uses[key].value = integral_template_argument(specialization, unsigned(i), template_parameters[i]);
      host_.parameters[key] = uses[key].value;
    } else if (kind == CXTemplateArgumentKind_Type) {
      launcher_call_.types[key] = clang_Cursor_getTemplateArgumentType(specialization, unsigned(i));
      host_.types[key] = launcher_call_.types[key];
    } else {
      return "its template argument '" + spelling(template_parameters[i]) + "' is not an integer or a type";
    }
  }
  const std::vector<CXCursor> parameters = parameters_of(launcher);
  for (size_t i = 0; i < parameters.size() && int(i) < clang_Cursor_getNumArguments(call); ++i) {
    const CXCursor argument = clang_Cursor_getArgument(call, unsigned(i));
    const std::string key = decl_key(parameters[i]);
    const std::string buffer = buffer_of(argument);
    if (is_pointer(clang_getCursorType(parameters[i])) && !buffer.empty()) {
      host_.parameters[key] = buffer;
    } else if (!is_pointer(clang_getCursorType(parameters[i]))) {
      try {
        host_.parameters[key] = "(" + directive_expression(argument, host_) + ")";
      } catch (const Error&) {  // not a size (a stream): only its uses in kernel arguments matter
      }
    }
    uses[key] = {"", begin_offset(argument), end_offset(argument), clang_getCursorKind(strip_implicit(argument)) != CXCursor_DeclRefExpr,
                 argument};
  }
  // Uses of the parameters in the launcher's body, written as the call being translated passes them
  // (a launcher called twice, once per branch of a dispatch, is translated once per call).
  collect_assignments(launcher, host_);
  launcher_call_.scope = host_;
  if (!launchers_edited_.insert(decl_key(launcher)).second) return "";
  std::pair<Translator*, std::map<std::string, LauncherUse>*> context(this, &uses);
  clang_visitChildren(
      launcher,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* ctx = static_cast<std::pair<Translator*, std::map<std::string, LauncherUse>*>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        const std::string key = decl_key(clang_getCursorReferenced(c));
        Translator* self = ctx->first;
        const auto at = self->name_range(c);
        if (!ctx->second->count(key) || !at) return CXChildVisit_Recurse;
        self->rw_.replace(at->first, at->second, [self, key] {
          const LauncherUse& u = self->launcher_call_.uses.at(key);
          if (!u.value.empty()) return u.value;
          const std::string r = self->rw_.render(u.b, u.e);
          return u.parenthesize ? "(" + r + ")" : r;
        });
        return CXChildVisit_Recurse;
      },
      &context);
  return "";
}

// The math functions a kernel argument calls on the host (`1.0f / sqrtf((float)d)`): the argument becomes a binding
// at the top of the kernel's body, where they are Metal's. Once per call, as alternatives render an argument again.
void Translator::map_host_calls(CXCursor argument) {
  std::pair<Translator*, Function> context(this, Function{argument});
  clang_visitChildren(
      argument,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* ctx = static_cast<std::pair<Translator*, Function>*>(data);
        Translator* self = ctx->first;
        const CXCursor callee = clang_getCursorReferenced(c);
        const CXCursorKind kind = clang_getCursorKind(callee);
        if (clang_getCursorKind(c) != CXCursor_CallExpr || self->in_main_file(callee) ||
            (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) || !self->host_calls_.insert(begin_offset(c)).second)
          return CXChildVisit_Recurse;
        const std::string name = spelling(callee);
        if (self->maps_.functions.count(name) || self->maps_.functions.count(name + "f")) self->map_call(c, callee, ctx->second);
        return CXChildVisit_Recurse;
      },
      &context);
  out_.problems.insert(out_.problems.end(), context.second.record.problems.begin(), context.second.record.problems.end());
}

// One launch: its geometry and template arguments as directives, its kernel's parameters bound to
// its arguments, and (several launches) the buffers it writes.
void Translator::translate_launch(Launch& launch, const std::set<std::string>& zeroed, std::vector<std::string>& written) {
  std::vector<CXCursor> kids = children(launch.call);
  CXCursor callee = clang_getCursorReferenced(launch.call);
  // A launch in a template launcher names the kernel template and its arguments as written.
  const bool dependent = clang_Cursor_isNull(callee);
  if (dependent) callee = called_declaration(launch.call);
  CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
  launch.kernel = decl_key(clang_Cursor_isNull(pattern) ? callee : pattern);
  launch.section = spelling(clang_Cursor_isNull(pattern) ? callee : pattern);

  // Geometry: grid in threads = blocks x threads per block.
  std::vector<CXCursor> config;
  for (CXCursor k : children(kids.at(1)))
    if (clang_isExpression(clang_getCursorKind(k))) config.push_back(k);
  try {
    launch.blocks = directive_dim3(config.at(1), host_);
    launch.threads = directive_dim3(config.at(2), host_);
    if (config.size() > 3) {
      const std::string bytes = directive_expression(config[3], host_);
      if (bytes != "0") launch.shared_bytes = bytes;
    }
  } catch (const Error& e) {
    problem(out_.problems, launch.call, "launch configuration", e.what());
  }
  // Template arguments of the kernel become MLX template arguments; a struct of the file (a functor
  // type: `map<Relu>`, or deduced from a `GeluOp()` argument) is named in the body instead, as MLX
  // templates are dtypes and values.
  auto type_argument = [&](const std::string& name, CXType type) {
    const CXType canonical = clang_getCanonicalType(type);
    if (canonical.kind == CXType_Record && in_main_file(clang_getTypeDeclaration(canonical))) {
      launch.bindings.push_back(fmt::format("using {} = {};", name, record_name(canonical)));
      return;
    }
    const std::string t = take(clang_getTypeSpelling(canonical));
    auto dtype = kTemplateTypes.find(t);
    if (dtype != kTemplateTypes.end()) {
      launch.templates.push_back({name, dtype->second, true});
    } else if (canonical.kind == CXType_Record && from_prelude(clang_getTypeDeclaration(canonical))) {
      // A CUDA vector type (`__nv_bfloat162`, `float4`): not an MLX template dtype, so named in the body too.
      launch.bindings.push_back(fmt::format("using {} = {};", name, metal_type(canonical)));
    } else {
      problem(out_.problems, launch.call, "template argument", "type '" + t + "' is not an MLX template dtype or a struct of the file");
    }
  };
  // A value of an enum type (`template <Layout L>`): MLX template values are integers, and a scoped
  // enum does not compare with one, so the directive carries the integer (`KS_L`) and the body
  // binds the enum constant from it.
  auto value_argument = [&](CXCursor parameter, const std::string& value) {
    const std::string name = spelling(parameter);
    const CXType type = clang_getCanonicalType(clang_getCursorType(parameter));
    if (type.kind != CXType_Enum) return launch.templates.push_back({name, value});
    const std::string enum_type = take(clang_getTypeSpelling(type)), carrier = "KS_" + name;
    launch.templates.push_back({carrier, value});
    launch.bindings.push_back(fmt::format("constexpr {} {} = static_cast<{}>({});", enum_type, name, enum_type, carrier));
  };
  if (!clang_Cursor_isNull(pattern)) {
    std::vector<CXCursor> parameters;
    for (CXCursor k : children(pattern))
      if (clang_getCursorKind(k) == CXCursor_TemplateTypeParameter || clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter)
        parameters.push_back(k);
    const int count = clang_Cursor_getNumTemplateArguments(callee);
    for (int i = 0; i < count && size_t(i) < parameters.size(); ++i) {
      const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(callee, unsigned(i));
      if (kind == CXTemplateArgumentKind_Integral) {
        value_argument(parameters[size_t(i)], integral_template_argument(callee, unsigned(i), parameters[size_t(i)]));
      } else if (kind == CXTemplateArgumentKind_Type) {
        type_argument(spelling(parameters[size_t(i)]), clang_Cursor_getTemplateArgumentType(callee, unsigned(i)));
      } else {
        problem(out_.problems, launch.call, "template argument", "only integer and type template arguments are translated");
      }
    }
  }
  if (dependent && clang_getCursorKind(callee) == CXCursor_FunctionTemplate) {
    std::vector<CXCursor> parameters;
    std::vector<std::string> names;
    for (CXCursor k : children(callee))
      if (clang_getCursorKind(k) == CXCursor_TemplateTypeParameter || clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter) {
        parameters.push_back(k);
        names.push_back(spelling(k));
      }
    std::vector<CXCursor> written;  // the explicit template arguments, after the kernel's name
    for (CXCursor k : children(kids.at(0)))
      if (clang_getCursorKind(k) != CXCursor_OverloadedDeclRef) written.push_back(k);
    for (size_t i = 0; i < written.size() && i < names.size(); ++i) {
      if (clang_getCursorKind(written[i]) == CXCursor_TypeRef) {
        type_argument(names[i], launcher_type(written[i]));
        continue;
      }
      try {
        value_argument(parameters[i], directive_expression(written[i], host_));
      } catch (const Error& e) {
        problem(out_.problems, launch.call, "template argument", e.what());
      }
    }
    // A type left to deduction from a parameter of that very type (`Op op`): the argument's type
    // (a functor the launcher passes on).
    const std::vector<CXCursor> deduced_from = parameters_of(callee);
    for (size_t i = written.size(); i < names.size(); ++i)
      for (size_t j = 0; j < deduced_from.size() && j + 2 < kids.size(); ++j)
        if (take(clang_getTypeSpelling(clang_getCursorType(deduced_from[j]))) == names[i]) {
          type_argument(names[i], launcher_type(kids[j + 2]));
          break;
        }
  }
  // Kernel arguments: each kernel parameter is bound to the launch's expression for it.
  CXCursor kernel_decl = clang_Cursor_isNull(pattern) ? callee : pattern;
  const std::vector<CXCursor> kparams = parameters_of(kernel_decl);
  std::set<std::string> taken(entry_.args.begin(), entry_.args.end());
  for (const auto& b : scratch_) taken.insert(b.name);
  for (const auto& [cuda, metal] : kBuiltins) taken.insert(metal);
  std::vector<std::string> writes;
  // A non-const pointer (parameter, or field of a struct argument) writes its buffer: in MLX, an
  // output of this kernel.
  auto writes_through = [&](CXCursor value) {
    const std::string buffer = buffer_of(value);
    if (buffer.empty() || std::find(writes.begin(), writes.end(), buffer) != writes.end()) return;
    if (std::find(written.begin(), written.end(), buffer) != written.end())
      problem(out_.problems, value, "in-place update across launches",
              "'" + buffer + "' was written by an earlier launch: an MLX kernel writes fresh output arrays, so a "
              "later kernel can read it but not update it (write a new scratch buffer instead)");
    else
      writes.push_back(buffer);
  };
  for (size_t i = 0; i < kparams.size() && i + 2 < kids.size(); ++i) {
    CXCursor arg = kids[i + 2];
    CXType type = clang_getCursorType(kparams[i]);
    const CXType argument_type = clang_getCanonicalType(launcher_type(arg));
    const bool structure = argument_type.kind == CXType_Record && in_main_file(clang_getTypeDeclaration(argument_type));
    if (is_pointer(type) && !clang_isConstQualifiedType(pointee_type(type))) writes_through(arg);
    std::string value;
    map_host_calls(arg);
    try {
      if (!structure) value = rw_.render(begin_offset(arg), end_offset(arg));
    } catch (const Error& e) {
      problem(out_.problems, arg, "kernel argument", e.what());
      continue;
    }
    std::string name = spelling(kparams[i]);
    if (auto r = keyword_renames_.find(name); r != keyword_renames_.end()) name = r->second;
    // CUDA passes an absent optional tensor as a null pointer; MLX as a zero-size array with a
    // has_<name> template bool: restore the null pointer, so that the kernel's checks hold.
    const TensorSpec* tensor = task_.find_tensor(value);
    if (tensor && tensor->optional) value = fmt::format("has_{} ? {} : nullptr", value, value);
    else if (value == name && !structure) continue;
    while (taken.count(name)) name += "_";
    if (name != spelling(kparams[i])) param_renames_[decl_key(kparams[i])] = name;
    taken.insert(name);
    if (structure) {
      try {
        launch.bindings.push_back(struct_binding(argument_type, arg, name, writes_through));
      } catch (const Error& e) {
        problem(out_.problems, arg, "struct argument '" + spelling(kparams[i]) + "'", e.what());
      }
      continue;
    }
    // A read-only buffer (a task input, or a scratch buffer an earlier launch wrote) is `const device T*`, or
    // `const constant T*` where MLX passes fewer than 8 elements: its binding takes the buffer's own type, as Metal
    // converts no pointer between the two.
    const bool scratch = std::any_of(scratch_.begin(), scratch_.end(), [&](const Scratch& b) { return b.name == value; });
    if ((tensor || scratch) && is_pointer(type) && clang_isConstQualifiedType(pointee_type(type))) {
      launch.bindings.push_back(fmt::format("auto {} = {};", name, value));
      continue;
    }
    std::string type_text = metal_type(type);
    if (is_pointer(type)) type_text = "device " + type_text;
    else if (!clang_isConstQualifiedType(type)) type_text = "const " + type_text;
    launch.bindings.push_back(fmt::format("{} {} = {};", type_text, name, value));
  }
  launch.outputs = writes;
  written.insert(written.end(), writes.begin(), writes.end());
  launch.zero_init = std::any_of(writes.begin(), writes.end(), [&](const std::string& b) { return zeroed.count(b) > 0; });
}

std::vector<std::string> Translator::directives(const Launch& launch) const {
  const auto& [b, t] = std::tie(launch.blocks, launch.threads);
  std::vector<std::string> out = {fmt::format("// grid: ({}) * ({}), ({}) * ({}), ({}) * ({})", b[0], t[0], b[1], t[1], b[2], t[2]),
                                  fmt::format("// threadgroup: {}, {}, {}", t[0], t[1], t[2])};
  if (!launch.shared_bytes.empty()) out.push_back("// template: KS_DYNAMIC_SHARED_BYTES = max(" + launch.shared_bytes + ", 16)");
  for (const auto& a : launch.templates) out.push_back(fmt::format("// template: {} = {}", a.name, a.value));
  if (launch.zero_init) out.push_back("// init_value: 0");
  return out;
}

// The choice among the launches inside `statement` (null when it has none): an if whose branches
// both launch chooses by its condition, a switch by its cases (the default last; without one, the
// last case stands for every other value, as a dropped guard does). Throws Error saying why the
// launches are not alternatives (in sequence, falling through a case, ...).
std::shared_ptr<Translator::Choice> Translator::choice_in(CXCursor statement, const std::vector<CXCursor>& launches) {
  auto launches_in = [&](unsigned b, unsigned e) {
    std::vector<int> out;
    for (size_t i = 0; i < launches.size(); ++i)
      if (begin_offset(launches[i]) >= b && end_offset(launches[i]) <= e) out.push_back(int(i));
    return out;
  };
  auto leaf = [](int launch) {
    auto c = std::make_shared<Choice>();
    c->launch = launch;
    return c;
  };
  auto choose = [](std::string condition, std::shared_ptr<Choice> then, std::shared_ptr<Choice> otherwise) {
    auto c = std::make_shared<Choice>();
    c->condition = std::move(condition);
    c->then = std::move(then);
    c->otherwise = std::move(otherwise);
    return c;
  };
  auto in_sequence = [&](const std::vector<int>& inside) {
    return Error(fmt::format("the launches at lines {} and {} run one after the other in a branch of a choice between "
                             "launches: a choice is translated when each of its branches makes one launch",
                             position(launches[size_t(inside[0])]).line, position(launches[size_t(inside[1])]).line));
  };
  const std::vector<int> inside = launches_in(begin_offset(statement), end_offset(statement));
  if (inside.size() <= 1) return inside.empty() ? nullptr : leaf(inside[0]);
  const CXCursorKind kind = clang_getCursorKind(statement);
  const std::vector<CXCursor> kids = children(statement);
  if (kind == CXCursor_IfStmt) {
    if (kids.size() != 3 || !clang_isExpression(clang_getCursorKind(kids[0])))
      throw Error(fmt::format("line {}: an if with an initializer or a declaration as its condition chooses the launch; "
                              "write the condition as an expression", position(statement).line));
    auto then = choice_in(kids[1], launches), otherwise = choice_in(kids[2], launches);
    if (!then || !otherwise) return then ? then : otherwise;  // a branch that launches nothing: a dropped guard
    return choose(directive_expression(kids[0], host_), then, otherwise);
  }
  if (kind == CXCursor_SwitchStmt) {
    struct Arm {
      std::vector<std::string> labels;  // directive expressions of its case values
      bool is_default = false, ended = false;
      unsigned b = 0, e = 0;  // its statements
    };
    std::vector<Arm> arms;
    const std::string value = directive_expression(kids.at(0), host_);
    for (CXCursor k : children(kids.back())) {
      CXCursor c = k;
      const bool label = clang_getCursorKind(c) == CXCursor_CaseStmt || clang_getCursorKind(c) == CXCursor_DefaultStmt;
      if (label && (arms.empty() || arms.back().b != arms.back().e)) {
        if (!arms.empty() && !arms.back().ended && !launches_in(arms.back().b, arms.back().e).empty())
          throw Error(fmt::format("line {}: a case that launches falls through into the next one", position(c).line));
        arms.push_back({});
      }
      for (; clang_getCursorKind(c) == CXCursor_CaseStmt || clang_getCursorKind(c) == CXCursor_DefaultStmt; c = children(c).back()) {
        if (clang_getCursorKind(c) == CXCursor_DefaultStmt) arms.back().is_default = true;
        else arms.back().labels.push_back("(" + value + ") == (" + directive_expression(children(c).at(0), host_) + ")");
      }
      if (arms.empty()) continue;
      Arm& arm = arms.back();
      const CXCursorKind statement_kind = clang_getCursorKind(c);
      if (statement_kind == CXCursor_BreakStmt || statement_kind == CXCursor_ReturnStmt) arm.ended = true;
      if (arm.b == arm.e) arm.b = begin_offset(c);
      arm.e = end_offset(c);
    }
    // The default is the last alternative; the others in order.
    std::stable_partition(arms.begin(), arms.end(), [](const Arm& a) { return !a.is_default; });
    std::shared_ptr<Choice> choice;
    for (auto arm = arms.rbegin(); arm != arms.rend(); ++arm) {
      const std::vector<int> launched = launches_in(arm->b, arm->e);
      if (launched.size() > 1) throw in_sequence(launched);
      if (launched.empty()) continue;
      std::string condition;
      for (const auto& l : arm->labels) condition += (condition.empty() ? "" : " || ") + l;
      choice = !choice || arm->is_default ? leaf(launched[0]) : choose("(" + condition + ")", leaf(launched[0]), choice);
    }
    return choice;
  }
  // A block: its launches must be in one of its statements, or in an if that returns
  // (`if (small) { k1<<<...>>>(...); return; }`) and the statements after it, which are its else.
  std::function<std::shared_ptr<Choice>(size_t)> choice_from = [&](size_t from) -> std::shared_ptr<Choice> {
    for (size_t i = from; i < kids.size(); ++i) {
      if (launches_in(begin_offset(kids[i]), end_offset(kids[i])).empty()) continue;
      const bool later = !launches_in(end_offset(kids[i]), end_offset(statement)).empty();
      if (!later) return choice_in(kids[i], launches);
      const std::vector<CXCursor> branches = children(kids[i]);
      const bool returning_if = clang_getCursorKind(kids[i]) == CXCursor_IfStmt && branches.size() == 2 &&
                                clang_isExpression(clang_getCursorKind(branches[0])) &&
                                (clang_getCursorKind(branches[1]) == CXCursor_ReturnStmt ||
                                 (!children(branches[1]).empty() && clang_getCursorKind(children(branches[1]).back()) == CXCursor_ReturnStmt));
      if (!returning_if) throw in_sequence(launches_in(begin_offset(kids[i]), end_offset(statement)));
      auto then = choice_in(branches[1], launches);
      return then ? choose(directive_expression(branches[0], host_), then, choice_from(i + 1)) : choice_from(i + 1);
    }
    return nullptr;
  };
  return choice_from(0);
}

// The entry's alternative launches as one kernel: each directive chooses its value per workload by
// the entry's conditions; the kernels' bodies are alternatives under a template KS_LAUNCH (one body
// when every alternative runs the same kernel with the same arguments).
std::string Translator::dispatch_candidate() {
  std::vector<int> body_of(launches_.size());
  std::vector<size_t> bodies;  // the launch whose body each body is
  for (size_t i = 0; i < launches_.size(); ++i) {
    auto same = std::find_if(bodies.begin(), bodies.end(), [&](size_t j) {
      return launches_[j].kernel == launches_[i].kernel && launches_[j].bindings == launches_[i].bindings;
    });
    body_of[i] = int(same - bodies.begin());
    if (same == bodies.end()) bodies.push_back(i);
  }
  auto each = [&](const std::function<std::string(const Launch&)>& value) {
    return dispatch_->render([&](int i) { return value(launches_[size_t(i)]); });
  };
  std::string out = "// grid: ";
  for (size_t d = 0; d < 3; ++d)
    out += (d ? ", " : "") + each([d](const Launch& l) { return "(" + l.blocks[d] + ") * (" + l.threads[d] + ")"; });
  out += "\n// threadgroup: ";
  for (size_t d = 0; d < 3; ++d) out += (d ? ", " : "") + each([d](const Launch& l) { return l.threads[d]; });
  out += "\n";
  const bool dynamic = std::any_of(launches_.begin(), launches_.end(), [](const Launch& l) { return !l.shared_bytes.empty(); });
  if (dynamic)
    out += "// template: KS_DYNAMIC_SHARED_BYTES = max(" +
           each([](const Launch& l) { return l.shared_bytes.empty() ? std::string("0") : l.shared_bytes; }) + ", 16)\n";
  // A template argument an alternative does not give takes the first given value (its kernel does not use it).
  std::vector<Launch::TemplateArgument> names;
  for (const auto& l : launches_)
    for (const auto& a : l.templates)
      if (std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.name == a.name; })) names.push_back(a);
  for (const auto& first : names) {
    auto value_in = [&first](const Launch& l) {
      for (const auto& a : l.templates)
        if (a.name == first.name) return a.value;
      return first.value;
    };
    if (first.typed) {
      for (const auto& l : launches_)
        if (value_in(l) != first.value)
          problem(out_.problems, l.call, "alternative launches in branches of the entry",
                  "the alternatives give the type template parameter '" + first.name +
                      "' different types: a directive chooses integers, not types");
      out += fmt::format("// template: {} = {}\n", first.name, first.value);
    } else {
      out += fmt::format("// template: {} = {}\n", first.name, each(value_in));
    }
  }
  if (bodies.size() > 1) out += "// template: KS_LAUNCH = " + each([&](const Launch& l) { return std::to_string(body_of[size_t(&l - launches_.data())]); }) + "\n";
  if (std::any_of(launches_.begin(), launches_.end(), [](const Launch& l) { return l.zero_init; })) out += "// init_value: 0\n";
  out += header() + "// --- body ---\n";
  if (bodies.size() == 1) return out + kernel_body(functions_.at(launches_[0].kernel), launches_[0].bindings);
  for (size_t b = 0; b < bodies.size(); ++b)
    out += fmt::format("if (KS_LAUNCH == {}) {{\n{}}}\n", b,
                       kernel_body(functions_.at(launches_[bodies[b]].kernel), launches_[bodies[b]].bindings));
  return out;
}

// A variable of the entry in a kernel argument, at offset `at`: its initializer (a parameter: the
// task's name) with the assignments before `at` applied, converted to its type after each.
std::string Translator::host_value(CXCursor var, unsigned at) {
  return host_value(var, at, clang_getCursorType(var), "", [&]() -> std::string {
    if (auto p = host_.parameters.find(decl_key(var)); p != host_.parameters.end()) return p->second;
    std::vector<CXCursor> kids = children(var);
    if (kids.empty() || !clang_isExpression(clang_getCursorKind(kids.back())))
      throw Error("'" + spelling(var) + "' has no value the kernel argument can be computed from");
    return rw_.render(begin_offset(kids.back()), end_offset(kids.back()));
  });
}

// The value of a variable of the entry (of its field `member`, of type `type`, when member is not
// empty) at offset `at`, from `initial` with the assignments before `at` applied, converted to its
// type after each.
std::string Translator::host_value(CXCursor var, unsigned at, CXType type, const std::string& member,
                                   const std::function<std::string()>& initial) {
  const CXTypeKind kind = clang_getCanonicalType(type).kind;
  const bool assigned = host_.assignments.count(decl_key(var)) > 0;
  std::string cast = assigned && kind >= CXType_Bool && kind <= CXType_LongDouble ? metal_type(type) : "";
  if (cast.rfind("const ", 0) == 0) cast.erase(0, 6);
  auto typed = [cast](const std::string& v) { return cast + "(" + v + ")"; };
  auto render = [this](CXCursor e) { return rw_.render(begin_offset(e), end_offset(e)); };
  ValueText text;
  text.initial = [&] { return typed(initial()); };
  text.value = [&](CXCursor v, int) { return typed(render(v)); };
  text.operand = render;
  text.binary = [&](const std::string& op, const std::string& a, const std::string& b) { return typed(a + " " + op + " " + b); };
  return value_at(var, at, -1, host_, text, member);
}

// A field of a struct local of the entry read in its expressions (`p.cols` in `p.tiles = p.cols / 32`,
// in a kernel argument) is written as its value there. Returns false for another member reference.
bool Translator::struct_field_edit(CXCursor member) {
  const std::vector<CXCursor> kids = children(member);
  const CXCursor base = kids.empty() ? clang_getNullCursor() : strip_implicit(kids[0]);
  const CXCursor var = clang_getCursorReferenced(base);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr || clang_getCursorKind(var) != CXCursor_VarDecl || !in_main_file(var) ||
      clang_getCursorSemanticParent(var).kind == CXCursor_TranslationUnit ||
      clang_getCanonicalType(clang_getCursorType(var)).kind != CXType_Record || from_prelude(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(var)))))
    return false;
  const std::string field = spelling(member);
  const CXType type = clang_getCursorType(member);
  rw_.replace(begin_offset(member), end_offset(member), [this, var, field, type, at = begin_offset(member)] {
    return host_value(var, at, type, field, [&]() -> std::string {
      const CXCursor element = initial_field(var, field);
      if (clang_Cursor_isNull(element)) throw Error("'" + spelling(var) + "." + field + "' has no value where it is read");
      return rw_.render(begin_offset(element), end_offset(element));
    });
  });
  return true;
}

// A struct of the file as the body names it (`Params`, `act::Gelu`, `Scale<float>`).
std::string Translator::record_name(CXType record) {
  std::string name = metal_type(clang_getCanonicalType(record));
  for (const std::string anonymous = "(anonymous namespace)::"; name.find(anonymous) != std::string::npos;)
    name.erase(name.find(anonymous), anonymous.size());
  if (name.rfind("const ", 0) == 0) name.erase(0, 6);
  return name;
}

// The pointer fields of a struct passed to a kernel (and of the structs it holds) point into the
// buffers: device memory, which Metal's pointers must name (but the `templated` ones, which take their buffer's type).
void Translator::device_pointer_fields(CXType record, const std::set<unsigned>& templated) {
  struct Context {
    Translator* self;
    const std::set<unsigned>& templated;
    std::vector<CXType> inner;
  } context{this, templated, {}};
  clang_Type_visitFields(
      clang_getCanonicalType(record),
      [](CXCursor field, CXClientData data) {
        auto* c = static_cast<Context*>(data);
        const CXType type = clang_getCanonicalType(clang_getCursorType(field));
        if (is_pointer(type) && !c->templated.count(begin_offset(field)) && c->self->device_fields_.insert(begin_offset(field)).second)
          c->self->rw_.insert(begin_offset(field), "device ");
        else if (type.kind == CXType_Record)
          c->inner.push_back(type);
        return CXVisit_Continue;
      },
      &context);
  for (const CXType& inner : context.inner) device_pointer_fields(inner, templated);
}

// The read-only pointer fields of a struct that a kernel's argument builds field by field, where they can become
// template parameters: a struct of the file (not a template, not unnamed), each such field declared alone, no pointer
// field of it given `device` already, and the struct named in the translated code only as its own name, as the type
// of __device__ functions' parameters (which become template parameters too) and as the type of a field of `holder`.
// The structs it holds by value (declared alone) are followed the same way, held by it alone. Empty where they cannot.
std::vector<Translator::FieldPath> Translator::templatable_fields(CXType record, const std::string& holder) {
  const CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(record));
  const CXCursorKind kind = clang_getCursorKind(decl);
  if ((kind != CXCursor_StructDecl && kind != CXCursor_ClassDecl) || !in_main_file(decl) || spelling(decl).empty() ||
      clang_Cursor_isAnonymous(decl) || !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(decl)))
    return {};
  std::vector<FieldPath> read_only;
  std::map<unsigned, int> declarators;  // fields per declaration (`const float *a, *b;` gives both one type)
  for (CXCursor field : fields_of(record)) {
    ++declarators[begin_offset(field)];
    const CXType type = clang_getCanonicalType(clang_getCursorType(field));
    if (is_pointer(type) && device_fields_.count(begin_offset(field))) return {};
    if (is_pointer(type) && clang_isConstQualifiedType(pointee_type(type))) {
      read_only.push_back({field});
    } else if (type.kind == CXType_Record) {
      for (FieldPath& inner : templatable_fields(type, decl_key(decl))) {
        inner.insert(inner.begin(), field);
        read_only.push_back(std::move(inner));
      }
    }
  }
  for (const FieldPath& path : read_only)
    if (declarators[begin_offset(path.front())] > 1) return {};
  if (read_only.empty()) return {};
  // Every use of the struct's name in code that is translated: only __device__ functions' parameters may name it.
  struct Search {
    Translator* self;
    std::string record;
    std::string holder;
    bool in_holder = false;
    bool other_use = false;
  } search{this, decl_key(decl), holder};
  for (const auto& [key, fn] : functions_) {
    clang_visitChildren(
        fn.cursor,
        [](CXCursor c, CXCursor parent, CXClientData data) {
          auto* s = static_cast<Search*>(data);
          if (clang_getCursorKind(c) != CXCursor_TypeRef) return CXChildVisit_Recurse;
          if (decl_key(clang_getCursorReferenced(c)) == s->record && clang_getCursorKind(parent) != CXCursor_ParmDecl)
            s->other_use = true;
          return CXChildVisit_Continue;
        },
        &search);
  }
  // Other structs of the file holding it (but the holder's fields of its type), its own methods naming it.
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<Search*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        const CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_Namespace || k == CXCursor_UnexposedDecl) return CXChildVisit_Recurse;
        if (k != CXCursor_StructDecl && k != CXCursor_ClassDecl && k != CXCursor_ClassTemplate) return CXChildVisit_Continue;
        s->in_holder = !s->holder.empty() && decl_key(c) == s->holder;
        clang_visitChildren(
            c,
            [](CXCursor t, CXCursor parent, CXClientData d) {
              auto* s = static_cast<Search*>(d);
              if (clang_getCursorKind(t) == CXCursor_TypeRef && decl_key(clang_getCursorReferenced(t)) == s->record &&
                  !(s->in_holder && clang_getCursorKind(parent) == CXCursor_FieldDecl))
                s->other_use = true;
              return CXChildVisit_Recurse;
            },
            s);
        return CXChildVisit_Continue;
      },
      &search);
  return search.other_use ? std::vector<FieldPath>{} : read_only;
}

// Makes `leaves` (from templatable_fields) the template parameters of the struct, in order: a read-only pointer
// field's type becomes its parameter, a held struct's type that struct with its fields' parameters.
void Translator::template_record(CXType record, const std::vector<FieldPath>& leaves) {
  const CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(record));
  if (templated_records_.count(decl_key(decl))) return;
  std::string list;
  for (size_t i = 0; i < leaves.size();) {
    const CXCursor field = leaves[i].front();
    size_t end = i + 1;
    while (end < leaves.size() && clang_equalCursors(leaves[end].front(), field)) ++end;
    std::string arguments;
    for (size_t k = i; k < end; ++k) {
      list += fmt::format("{}typename KsField{}", k ? ", " : "", k);
      arguments += fmt::format("{}KsField{}", k > i ? ", " : "", k);
    }
    if (leaves[i].size() == 1) {
      rw_.replace(begin_offset(field), position(field).offset, arguments + " ");
    } else {
      std::vector<FieldPath> inner;
      for (size_t k = i; k < end; ++k) inner.emplace_back(leaves[k].begin() + 1, leaves[k].end());
      const CXType type = clang_getCursorType(field);
      template_record(type, inner);
      rw_.replace(begin_offset(field), position(field).offset, fmt::format("{}<{}> ", record_name(type), arguments));
    }
    i = end;
  }
  rw_.insert(begin_offset(decl), "template <" + list + "> ");
  templated_records_.emplace(decl_key(decl), leaves);
}

// A struct argument of a kernel (a parameter block, a functor) is rebuilt at the top of its body, so
// the kernel's code stays as written: a brace list (`Params{x, y, n}`, designated too) or a local of
// the entry built field by field and from one as `Params p; p.rows = ...;`, its fields' values where
// the launch uses it; any other argument (`Relu()`, `Scale(alpha)`) as it is written. Its pointer fields are the buffers they
// point into, which it writes through its non-const ones.
std::string Translator::struct_binding(CXType record, CXCursor arg, const std::string& name,
                                       const std::function<void(CXCursor)>& writes_through) {
  const std::vector<CXCursor> fields = fields_of(record);
  const std::string record_key = decl_key(clang_getTypeDeclaration(clang_getCanonicalType(record)));
  auto writable = [](CXCursor field) {
    const CXType t = clang_getCanonicalType(clang_getCursorType(field));
    return is_pointer(t) && !clang_isConstQualifiedType(pointee_type(t));
  };
  // The argument as written, without the copies clang adds (a copy constructor is a call to it),
  // and through a launcher's parameter (`const Params& p`), the argument of the launcher's call.
  CXCursor value = strip_implicit(arg);
  for (bool more = true; more;) {
    more = false;
    if (clang_getCursorKind(value) == CXCursor_CallExpr && clang_getCursorKind(clang_getCursorReferenced(value)) == CXCursor_Constructor &&
        clang_Cursor_getNumArguments(value) == 1 &&
        clang_equalCursors(clang_getTypeDeclaration(clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(value, 0)))),
                           clang_getTypeDeclaration(record))) {
      value = strip_implicit(clang_Cursor_getArgument(value, 0));
      more = true;
    } else if (auto use = launcher_call_.uses.find(decl_key(clang_getCursorReferenced(value)));
               clang_getCursorKind(value) == CXCursor_DeclRefExpr && use != launcher_call_.uses.end() &&
               !clang_Cursor_isNull(use->second.argument)) {
      value = strip_implicit(use->second.argument);
      more = true;
    }
  }
  // A field's value from a brace list as the body writes it (a nested brace list with its type's name).
  auto element_text = [&](CXCursor element, CXCursor field) {
    const std::string value = rw_.render(begin_offset(element), end_offset(element));
    return clang_getCursorKind(strip_implicit(element)) == CXCursor_InitListExpr ? record_name(clang_getCursorType(field)) + value : value;
  };
  const std::string type_text = record_name(record);
  const CXCursor var = clang_getCursorReferenced(value);
  const bool local = clang_getCursorKind(value) == CXCursor_DeclRefExpr && clang_getCursorKind(var) == CXCursor_VarDecl &&
                     in_main_file(var) && clang_getCursorSemanticParent(var).kind != CXCursor_TranslationUnit;
  const auto assignments = local ? host_.assignments.find(decl_key(var)) : host_.assignments.end();
  CXCursor init = clang_getNullCursor();
  if (local)
    for (CXCursor k : children(var))
      if (clang_isExpression(clang_getCursorKind(k))) init = k;
  // A default construction (`Params p;`) gives no value; a brace list one per field.
  const bool defaulted = !clang_Cursor_isNull(init) && clang_getCursorKind(strip_implicit(init)) == CXCursor_CallExpr &&
                         clang_Cursor_getNumArguments(strip_implicit(init)) == 0 &&
                         clang_getCursorKind(clang_getCursorReferenced(strip_implicit(init))) == CXCursor_Constructor;
  const auto elements = brace_fields(local && !clang_Cursor_isNull(init) ? init : value, fields);
  if (!elements && (!local || (!defaulted && !clang_Cursor_isNull(init) && assignments == host_.assignments.end()))) {
    if (templated_records_.count(record_key))
      throw Error(fmt::format("'{}' is built field by field for another launch, where its read-only pointer fields became "
                              "template parameters: build it field by field here too",
                              type_text));
    device_pointer_fields(record);
    for (CXCursor k : children(value)) writes_through(k);  // a constructor's arguments: every buffer it names may be written
    // A local constructed in place (`const ScaleAdd op(alpha);`): its constructor call names the variable.
    const CXCursor construct = strip_implicit(init);
    if (local && clang_getCursorKind(construct) == CXCursor_CallExpr &&
        clang_getCursorKind(clang_getCursorReferenced(construct)) == CXCursor_Constructor &&
        text(begin_offset(construct), end_offset(construct)).rfind(spelling(var), 0) == 0)
      return fmt::format("{} {} = {}{};", type_text, name, type_text,
                         rw_.render(begin_offset(construct) + unsigned(spelling(var).size()), end_offset(construct)));
    return fmt::format("{} {} = {};", type_text, name, rw_.render(begin_offset(value), end_offset(value)));
  }
  if (!elements && !defaulted && !clang_Cursor_isNull(init))
    throw Error(fmt::format("'{}' is initialized by a call (line {}) and then assigned field by field: initialize it with "
                            "a brace list (or declare it without one) and assign its fields",
                            spelling(var), position(var).line));
  const unsigned at = begin_offset(value);
  auto field_index = [](const std::vector<CXCursor>& of, CXCursor field) {
    return size_t(std::find_if(of.begin(), of.end(), [&](CXCursor f) { return clang_equalCursors(f, field); }) - of.begin());
  };
  // The one expression a field holds at the launch (its brace element or its last assignment), where the fields of a
  // struct it holds are read; nullopt where it is not one expression (assigned under a condition, by a compound
  // assignment, or the whole struct assigned).
  auto field_source = [&](CXCursor field) -> std::optional<CXCursor> {
    CXCursor source = elements ? (*elements)[field_index(fields, field)] : clang_getNullCursor();
    if (assignments != host_.assignments.end())
      for (const Assignment& a : assignments->second) {
        if (a.at > at || (!a.member.empty() && a.member != spelling(field))) continue;
        if (a.member.empty() || a.op != "=" || !a.guards.empty() || clang_Cursor_isNull(a.value)) return std::nullopt;
        source = a.value;
      }
    return source;
  };
  // A held struct's pointer field's value, through the brace lists giving the fields that lead to it: "" where none
  // is given (a default member initializer), nullopt where they are not brace lists.
  auto held_value = [&](const FieldPath& path) -> std::optional<std::string> {
    std::optional<CXCursor> source = field_source(path.front());
    for (size_t k = 1; source && !clang_Cursor_isNull(*source) && k < path.size(); ++k) {
      const std::vector<CXCursor> inner = fields_of(clang_getCursorType(path[k - 1]));
      const auto elements_of = brace_fields(*source, inner);
      if (!elements_of) return std::nullopt;
      source = (*elements_of)[field_index(inner, path[k])];
    }
    if (!source) return std::nullopt;
    return clang_Cursor_isNull(*source) ? "" : rw_.render(begin_offset(*source), end_offset(*source));
  };
  // `target.f = value;` for each field of a brace list of a struct of type `type` (a held struct's, recursively); a field
  // given no value keeps its default member initializer.
  std::function<std::string(const std::string&, CXType, CXCursor)> held_assignments = [&](const std::string& target, CXType type,
                                                                                           CXCursor list) {
    const std::vector<CXCursor> inner = fields_of(type);
    const auto values = brace_fields(list, inner);
    std::string text;
    for (size_t k = 0; values && k < inner.size(); ++k) {
      const CXCursor v = (*values)[k];
      if (clang_Cursor_isNull(v)) continue;
      const CXType field_type = clang_getCursorType(inner[k]);
      if (clang_getCanonicalType(field_type).kind == CXType_Record && brace_fields(v, fields_of(field_type)))
        text += held_assignments(target + "." + spelling(inner[k]), field_type, v);
      else
        text += fmt::format(" {}.{} = {};", target, spelling(inner[k]), rw_.render(begin_offset(v), end_offset(v)));
    }
    return text;
  };
  auto held_not_followed = [&](CXCursor field) {
    return Error(fmt::format("field '{}' of '{}' holds pointers that became template parameters for another launch: give it "
                             "a brace list here too",
                             spelling(field), type_text));
  };
  // Read-only pointer fields become template parameters where they can (once per struct, and never after a launch
  // gave them `device`), so that each takes the type of the buffer it is given; those of a held struct where the
  // launch gives that struct as a brace list.
  auto templated = templated_records_.find(record_key);
  if (templated == templated_records_.end()) {
    std::vector<FieldPath> leaves = templatable_fields(record);
    if (std::any_of(leaves.begin(), leaves.end(), [&](const FieldPath& p) { return p.size() > 1 && !held_value(p); }))
      std::erase_if(leaves, [](const FieldPath& p) { return p.size() > 1; });
    if (!leaves.empty()) {
      template_record(record, leaves);
      templated = templated_records_.find(record_key);
    }
  }
  std::set<unsigned> templated_offsets, held_templated;  // the templated pointer fields; the fields holding some
  if (templated != templated_records_.end())
    for (const FieldPath& path : templated->second) {
      templated_offsets.insert(begin_offset(path.back()));
      if (path.size() > 1) held_templated.insert(begin_offset(path.front()));
    }
  device_pointer_fields(record, templated_offsets);
  std::map<unsigned, std::string> field_values;  // the templated fields' values, by field
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string field = spelling(fields[i]);
    const CXCursor element = elements ? (*elements)[i] : clang_getNullCursor();
    std::vector<CXCursor> values;
    if (!clang_Cursor_isNull(element)) values.push_back(element);
    if (assignments != host_.assignments.end())
      for (const Assignment& a : assignments->second)
        if (a.at <= at && a.member == field && !clang_Cursor_isNull(a.value)) values.push_back(a.value);
    const bool assigned = assignments != host_.assignments.end() &&
                          std::any_of(assignments->second.begin(), assignments->second.end(),
                                      [&](const Assignment& a) { return a.at <= at && (a.member == field || a.member.empty()); });
    if (values.empty() && !assigned) continue;  // its default member initializer, if any
    if (writable(fields[i]))
      for (CXCursor v : values) writes_through(v);
    if (held_templated.count(begin_offset(fields[i]))) {
      // A held struct whose fields are template parameters: its brace list's values, field by field (the struct's
      // type has template arguments the brace list does not name).
      const std::optional<CXCursor> source = field_source(fields[i]);
      if (!source || clang_Cursor_isNull(*source)) throw held_not_followed(fields[i]);
      out += held_assignments(name + "." + field, clang_getCursorType(fields[i]), *source);
      continue;
    }
    // An array field given a brace list (`{{d, 1}, m, d}`): an array is not assignable, its elements are.
    if (const CXType array = clang_getCanonicalType(clang_getCursorType(fields[i]));
        array.kind == CXType_ConstantArray && clang_getCanonicalType(clang_getArrayElementType(array)).kind != CXType_ConstantArray &&
        values.size() == 1 && !clang_Cursor_isNull(element) && clang_getCursorKind(strip_implicit(element)) == CXCursor_InitListExpr) {
      const std::vector<CXCursor> items = children(strip_implicit(element));
      for (long long k = 0; k < clang_getArraySize(array); ++k)
        out += fmt::format(" {}.{}[{}] = {};", name, field, k,
                           size_t(k) < items.size() ? "(" + rw_.render(begin_offset(items[size_t(k)]), end_offset(items[size_t(k)])) + ")" : "{}");
      continue;
    }
    const std::string assigned_value =
        !local ? element_text(element, fields[i])
               : host_value(var, at, clang_getCursorType(fields[i]), field, [&]() -> std::string {
                   if (clang_Cursor_isNull(element))
                     throw Error(fmt::format("field '{}' of '{}' is updated before it is given a value", field, spelling(var)));
                   return element_text(element, fields[i]);
                 });
    out += fmt::format(" {}.{} = {};", name, field, assigned_value);
    field_values[begin_offset(fields[i])] = assigned_value;
  }
  if (templated == templated_records_.end()) return fmt::format("{} {};", type_text, name) + out;
  // A templated field's type is its value's (`decltype((x) + 0)`: the pointer, not a reference to it); one given no
  // buffer (none, or a null pointer) keeps `device`.
  std::string arguments;
  for (const FieldPath& path : templated->second) {
    std::string v;
    if (path.size() > 1) {
      const std::optional<std::string> held = held_value(path);
      if (!held)
        throw held_not_followed(path.front());
      v = *held;
    } else if (field_values.count(begin_offset(path.front()))) {
      v = field_values.at(begin_offset(path.front()));
    }
    while (v.size() > 1 && v.front() == '(' && v.back() == ')') v = v.substr(1, v.size() - 2);
    const bool null = v.empty() || v == "nullptr" || v == "NULL" || v == "0";
    arguments += (arguments.empty() ? "" : ", ") + (null ? "device " + metal_type(clang_getCanonicalType(clang_getCursorType(path.back())))
                                                         : fmt::format("decltype(({}) + 0)", v));
  }
  return fmt::format("{}<{}> {};", type_text, arguments, name) + out;
}

// The task tensor or scratch buffer a kernel argument points into (`y`, `partial + row * n`), or "".
std::string Translator::buffer_of(CXCursor argument) {
  std::pair<Translator*, std::string> found(this, "");
  clang_visitChildren(
      argument,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* f = static_cast<std::pair<Translator*, std::string>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        const std::string key = decl_key(clang_getCursorReferenced(c));
        if (auto p = f->first->host_.parameters.find(key); p != f->first->host_.parameters.end() && f->first->task_.find_tensor(p->second))
          f->second = p->second;
        for (const auto& b : f->first->scratch_)
          if (b.key == key) f->second = b.name;
        return f->second.empty() ? CXChildVisit_Recurse : CXChildVisit_Break;
      },
      &found);
  if (found.second.empty() && clang_getCursorKind(argument) == CXCursor_DeclRefExpr) {
    const std::string key = decl_key(clang_getCursorReferenced(argument));
    if (auto p = host_.parameters.find(key); p != host_.parameters.end() && task_.find_tensor(p->second)) return p->second;
    for (const auto& b : scratch_)
      if (b.key == key) return b.name;
  }
  return found.second;
}

// A pure host function of the file called by the entry (`int ceil_div(int, int)`) may reach a
// kernel argument: the header defines it as the __device__ functions are.
void Translator::add_host_helper(CXCursor call) {
  std::string why;
  CXCursor definition = pure_helper(call, &why);
  if (clang_Cursor_isNull(definition) || functions_.count(decl_key(definition))) return;
  functions_[decl_key(definition)] = Function{definition};
  clang_visitChildren(
      definition,
      [](CXCursor c, CXCursor, CXClientData self) {
        if (clang_getCursorKind(c) == CXCursor_CallExpr) static_cast<Translator*>(self)->add_host_helper(c);
        return CXChildVisit_Recurse;
      },
      this);
}

// cudaMalloc(&p, bytes) / cudaMallocAsync(&p, bytes, stream): a scratch buffer of p's element type,
// sized bytes / sizeof(element) (a directive expression over the task's axes and params).
void Translator::add_scratch(CXCursor malloc_call) {
  std::vector<CXCursor> kids = children(malloc_call);
  CXCursor var = clang_getNullCursor();
  if (kids.size() >= 3) {
    CXCursor target = strip_implicit(kids[1]);
    while (!clang_Cursor_isNull(target) && clang_getCursorKind(target) != CXCursor_DeclRefExpr) {
      std::vector<CXCursor> inner = children(target);
      target = inner.empty() ? clang_getNullCursor() : strip_implicit(inner.back());
    }
    if (!clang_Cursor_isNull(target)) var = clang_getCursorReferenced(target);
  }
  if (clang_Cursor_isNull(var) || clang_getCursorKind(var) != CXCursor_VarDecl)
    return problem(out_.problems, malloc_call, spelling(malloc_call), "expected the address of a local pointer variable");
  CXType element = pointee_type(clang_getCursorType(var));
  const std::string t = take(clang_getTypeSpelling(clang_getCanonicalType(element)));
  auto dtype = kTemplateTypes.find(t);
  if (dtype == kTemplateTypes.end())
    return problem(out_.problems, malloc_call, spelling(malloc_call), "a scratch buffer of '" + t + "' (not an MLX dtype)");
  try {
    const std::string bytes = directive_expression(kids[2], host_);
    const std::string name = spelling(var);
    scratch_.push_back({decl_key(var), name,
                        fmt::format("// scratch: {} = {}[({}) / {}]", name, dtype->second, bytes, clang_Type_getSizeOf(element))});
  } catch (const Error& e) {
    problem(out_.problems, malloc_call, "scratch size", e.what());
  }
}

// cudaMemset(buffer, 0, ...) of a task output or scratch buffer: its initial value, which MLX's
// init_value gives the kernel writing it. Returns the buffer's name, or "".
std::string Translator::zeroed_buffer(CXCursor memset_call) {
  std::vector<CXCursor> kids = children(memset_call);
  if (kids.size() < 3) return "";
  CXEvalResult value = clang_Cursor_Evaluate(kids[2]);
  const bool zero = value && clang_EvalResult_getKind(value) == CXEval_Int && clang_EvalResult_getAsLongLong(value) == 0;
  if (value) clang_EvalResult_dispose(value);
  CXCursor target = strip_implicit(kids[1]);
  while (clang_getCursorKind(target) == CXCursor_CStyleCastExpr || clang_getCursorKind(target) == CXCursor_ParenExpr) {
    std::vector<CXCursor> inner = children(target);
    if (inner.empty()) break;
    target = strip_implicit(inner.back());
  }
  if (!zero || clang_getCursorKind(target) != CXCursor_DeclRefExpr) return "";
  const std::string key = decl_key(clang_getCursorReferenced(target));
  for (const auto& b : scratch_)
    if (b.key == key) return b.name;
  auto name = host_.parameters.find(key);
  if (name != host_.parameters.end() &&
      std::any_of(task_.outputs.begin(), task_.outputs.end(), [&](const TensorSpec& t) { return t.name == name->second; }))
    return name->second;
  return "";
}

// A type as Metal spells it: CUDA type names mapped, `long long` as long, qualifiers kept.
std::string Translator::metal_type(CXType t) {
  // A pointer typedef (`typedef float* fptr;`) is spelled out: a Metal pointer's type names its address space.
  if ((t.kind == CXType_Typedef || t.kind == CXType_Elaborated) && is_pointer(t))
    return metal_type(pointee_type(t)) + " *" + (clang_isConstQualifiedType(t) ? " const" : "");
  std::string s = take(clang_getTypeSpelling(t));
  for (const std::string drop : {"__restrict__ ", "__restrict ", " __restrict__", " __restrict", "__restrict__", "__restrict"})
    for (size_t at; (at = s.find(drop)) != std::string::npos;) s.erase(at, drop.size());
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"unsigned long long", "ulong"}, {"long long", "long"}, {"unsigned int", "uint"}, {"unsigned short", "ushort"},
           {"unsigned char", "uchar"}, {"unsigned long", "ulong"}})
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  std::string out, word;
  auto flush = [&] {
    auto m = maps_.types.find(word);
    out += m != maps_.types.end() ? m->second : word == "double" ? "float" : word;
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
  switch (clang_getCursorKind(c)) {
    case CXCursor_DeclRefExpr: {
      CXCursor decl = clang_getCursorReferenced(c);
      auto s = spaces_.find(decl_key(decl));
      if (s != spaces_.end()) return s->second;
      if (clang_getCursorKind(decl) == CXCursor_VarDecl && !is_pointer(clang_getCursorType(decl)))
        return clang_getCursorSemanticParent(decl).kind == CXCursor_TranslationUnit ? "constant" : "thread";
      return "device";
    }
    case CXCursor_ParenExpr:
    case CXCursor_CStyleCastExpr:
    case CXCursor_CXXReinterpretCastExpr:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXConstCastExpr:
    case CXCursor_UnaryOperator:
    case CXCursor_ArraySubscriptExpr:
    case CXCursor_MemberRefExpr:
    case CXCursor_UnexposedExpr: {
      // A struct's pointer field (`p.x` of a kernel's struct argument) points into a buffer.
      if (clang_getCursorKind(c) == CXCursor_MemberRefExpr && is_pointer(clang_getCursorType(c))) return "device";
      std::vector<CXCursor> kids = children(c);
      if (!kids.empty()) return space_of(clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr ? kids.front() : kids.back());
      return "device";
    }
    case CXCursor_BinaryOperator:
    case CXCursor_ConditionalOperator:
      for (CXCursor k : children(c))
        if (is_pointer(clang_getCursorType(k)) || clang_getCanonicalType(clang_getCursorType(k)).kind == CXType_ConstantArray ||
            clang_getCanonicalType(clang_getCursorType(k)).kind == CXType_IncompleteArray)
          return space_of(k);
      return "device";
    default:
      return "device";
  }
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
      if (written.rfind("thread ", 0) == 0 && at != std::string::npos) out.replace(at, 6, spaces[j]);
    }
    return out;
  };
  if (bound.size() == 1) return respaced(*bound.begin());
  std::string out = text;
  std::string unused;
  for (const auto& spaces : bound) {
    if (std::all_of(spaces.begin(), spaces.end(), [](const std::string& space) { return space == "thread"; })) continue;
    unused += (unused.empty() ? "" : ", ") + std::string("typename = void");
    std::string overload = respaced(spaces);
    if (overload.rfind("template <", 0) == 0)
      overload.insert(10, unused + ", ");
    else
      overload = "template <" + unused + "> " + overload;
    out += (out.back() == '\n' ? "" : "\n") + overload;
  }
  return out;
}

// A static __shared__ variable of a function template whose type or size names the template's parameters
// (FasterTransformer's `static __shared__ T shared[32];` in `blockReduceSum<T>`): the kernel declares it with the
// arguments its calls give them (one set: each instantiation would have its own array).
void Translator::resolve_hoisted_types() {
  auto whole_words = [](std::string text, const std::string& word, const std::string& by) {
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + by.size())) {
      auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
      if ((at > 0 && ident(text[at - 1])) || (at + word.size() < text.size() && ident(text[at + word.size()]))) {
        at += 1;
        continue;
      }
      text.replace(at, word.size(), by);
    }
    return text;
  };
  for (auto& [name, h] : hoisted_) {
    auto owner = functions_.find(h.owner_key);
    if (owner == functions_.end() || clang_getCursorKind(owner->second.cursor) != CXCursor_FunctionTemplate) continue;
    std::vector<CXCursor> parameters;
    for (CXCursor k : children(owner->second.cursor))
      if (clang_getCursorKind(k) == CXCursor_NonTypeTemplateParameter || clang_getCursorKind(k) == CXCursor_TemplateTypeParameter)
        parameters.push_back(k);
    std::set<std::pair<std::string, std::string>> given;
    for (const auto& site : call_sites_) {
      if (site.callee != h.owner_key) continue;
      const CXCursor specialization = clang_getCursorReferenced(site.call);
      if (clang_Cursor_isNull(specialization) || clang_Cursor_getNumTemplateArguments(specialization) < int(parameters.size())) continue;
      std::string element = h.element, dims = h.dims;
      for (size_t i = 0; i < parameters.size(); ++i) {
        const CXTemplateArgumentKind kind = clang_Cursor_getTemplateArgumentKind(specialization, unsigned(i));
        std::string value;
        if (kind == CXTemplateArgumentKind_Type) value = metal_type(clang_Cursor_getTemplateArgumentType(specialization, unsigned(i)));
        else if (kind == CXTemplateArgumentKind_Integral) value = integral_template_argument(specialization, unsigned(i), parameters[i]);
        else continue;
        element = whole_words(element, spelling(parameters[i]), value);
        dims = whole_words(dims, spelling(parameters[i]), "(" + value + ")");
      }
      given.insert({element, dims});
    }
    if (given.size() == 1) std::tie(h.resolved_element, h.resolved_dims) = *given.begin();
    if (given.size() > 1)
      problem(owner->second.record.problems, owner->second.cursor, "static __shared__ '" + h.name + "' of a function template",
              "its calls instantiate it with different template arguments, each with an array of its own, which the port "
              "hoists into the kernel once: declare the arrays in the kernel and pass them");
  }
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
    std::string op = text(end_offset(kids[0]), begin_offset(kids[1]));
    std::erase_if(op, [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); });
    if (clang_getCursorKind(field) != CXCursor_FieldDecl || op != "=") return;
    given.push_back({field, kids[1]});
  } else {
    const CXType record = clang_getCanonicalType(clang_getCursorType(c));
    if (record.kind != CXType_Record) return;
    std::vector<CXCursor> fields;
    clang_Type_visitFields(
        record,
        [](CXCursor f, CXClientData data) {
          static_cast<std::vector<CXCursor>*>(data)->push_back(f);
          return CXVisit_Continue;
        },
        &fields);
    for (size_t i = 0; i < kids.size() && i < fields.size(); ++i) given.push_back({fields[i], kids[i]});
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
  // elements): ks_ro_cast keeps whichever space its operand has. The operand's space is known once the whole
  // function is read, hence the edits' producers.
  const CXType pointee = clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(cast)));
  if (!clang_isConstQualifiedType(pointee) || is_pointer(pointee)) {
    rw_.insert(unsigned(type_b + 1), [this, operand] { return space_of(operand) + " "; });
    return;
  }
  helpers_.insert("ks_ro_cast");
  std::string element = metal_type(pointee);
  if (element.find("type-parameter") != std::string::npos) {
    // A template parameter (`const T2*`): canonical types name it by position, so the element is the written one.
    element = rw_.render(unsigned(type_b + 1), unsigned(type_e));
    while (!element.empty() && (element.back() == '*' || std::isspace(static_cast<unsigned char>(element.back())))) element.pop_back();
  }
  if (element.rfind("const ", 0) == 0) element.erase(0, 6);
  const unsigned head_b = c_style ? unsigned(type_b) : b, head_e = unsigned(type_e + 1);
  rw_.replace(head_b, head_e, [this, operand, head_b, head_e, type_b, c_style, element] {
    if (space_of(operand) == "device") return "ks_ro_cast<" + element + ">" + (c_style ? "(" : "");
    return rw_.render(head_b, unsigned(type_b + 1)) + space_of(operand) + " " + rw_.render(unsigned(type_b + 1), head_e);
  });
  if (c_style) rw_.insert(e, [this, operand] { return space_of(operand) == "device" ? ")" : ""; });
}

// Returns true when the declaration was replaced as a whole (its initializer is not translated).
bool Translator::map_declaration(CXCursor var, Function& fn) {
  const std::string key = decl_key(var);
  CXType type = clang_getCursorType(var);
  if (const Group group = group_of(type); group.kind != Group::none) {
    if (const std::string why = tile_refusal(group, false); !why.empty()) problem(fn.record.problems, var, "tiled_partition", why);
    rw_.replace(begin_offset(var), end_offset(var), "");
    return true;
  }
  std::vector<CXCursor> kids = children(var);
  CXCursor init = clang_getNullCursor();
  if (!kids.empty() && clang_isExpression(clang_getCursorKind(kids.back()))) init = kids.back();
  if (has_child(var, CXCursor_CUDASharedAttr)) {
    spaces_[key] = "threadgroup";
    if (!fn.kernel && clang_Cursor_getStorageClass(var) != CX_SC_Extern) {
      CXType element = type;
      while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
      const unsigned name_end = position(var).offset + unsigned(spelling(var).size());
      HoistedShared h{decl_key(fn.cursor), spelling(var), spelling(fn.cursor) + "_" + spelling(var), metal_type(element),
                      text(name_end, end_offset(var)), "", ""};
      h.resolved_element = h.element;
      h.resolved_dims = h.dims;
      fn.shared.insert(h.hoisted);
      hoisted_[h.hoisted] = h;
      // In `__shared__ float a[32], b[32];` the second declaration starts at `b`: take its comma too.
      unsigned from = begin_offset(var);
      while (from > 0 && std::isspace(static_cast<unsigned char>(rw_.text()[from - 1]))) --from;
      rw_.replace(from > 0 && rw_.text()[from - 1] == ',' ? from - 1 : begin_offset(var), end_offset(var), "");
      return false;
    }
    if (clang_Cursor_getStorageClass(var) == CX_SC_Extern && !fn.kernel) {
      // Reported here, with the file's problems: a method returning it (the CUDA samples' SharedMemory<T>, whose
      // conversion operator the kernel calls implicitly) is reached by no call the report follows.
      problem(out_.problems, var, "extern __shared__ in a __device__ function",
              "Metal declares threadgroup memory in the kernel only: declare the extern __shared__ array in the kernel and "
              "pass it down as a pointer (for the CUDA samples' SharedMemory<T>: `extern __shared__ T sdata[];` in the kernel)");
      return false;
    }
    if (clang_Cursor_getStorageClass(var) == CX_SC_Extern) {
      dynamic_shared_.push_back(var);
      fn.dynamic_shared.push_back(var);
      rw_.replace(begin_offset(var), end_offset(var), "");
      ++fn.record.translated["extern __shared__"];
    } else {
      ++fn.record.translated["__shared__"];
    }
    return false;
  }
  const unsigned name_at = position(var).offset;
  // `const T *a = x, *b = y;`: a declarator after a comma, after one written `auto` or itself a
  // pointer written `auto`, becomes a declaration of its own.
  const std::string& t = rw_.text();
  unsigned after = name_at;  // back over `*`, `&` and qualifiers to the comma before the declarator
  for (bool more = true; more;) {
    while (after > 0 && std::isspace(static_cast<unsigned char>(t[after - 1]))) --after;
    unsigned word = after;
    while (word > 0 && (std::isalnum(static_cast<unsigned char>(t[word - 1])) || t[word - 1] == '_')) --word;
    static const std::set<std::string> qualifiers = {"const", "volatile", "__restrict__", "__restrict"};
    more = after > 0 && (t[after - 1] == '*' || t[after - 1] == '&' || qualifiers.count(t.substr(word, after - word)));
    if (more) after = t[after - 1] == '*' || t[after - 1] == '&' ? after - 1 : word;
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
    if (!clang_Cursor_isNull(init)) {
      spaces_[key] = space_of(init);
      rw_.replace(split ? after - 1 : begin_offset(var), name_at, split ? "; auto " : "auto ");
      automatic_ends_.insert(end_offset(var));
    } else {
      spaces_[key] = "device";
      rw_.insert(begin_offset(var), "device ");
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

void Translator::map_call(CXCursor call, CXCursor callee, Function& fn) {
  std::vector<Problem>& problems = fn.record.problems;
  const std::string name = spelling(callee);
  std::vector<CXCursor> kids = children(call);
  const CXCursorKind callee_kind = clang_getCursorKind(callee);
  // Constructors, conversions and operators of the CUDA types (half, vectors) are Metal's own.
  if (callee_kind == CXCursor_Constructor || callee_kind == CXCursor_ConversionFunction ||
      (callee_kind == CXCursor_CXXMethod && name.rfind("operator", 0) == 0))
    return;
  // Methods of cooperative groups are mapped as OWNER::METHOD, cg::reduce by its operation.
  std::string key = name;
  Group group = method_group(call);  // the group a method or cg::reduce works on
  if (callee_kind == CXCursor_CXXMethod || group.kind != Group::none) {
    const std::string owner = group.kind == Group::block  ? "thread_block"
                              : group.kind == Group::tile ? "thread_block_tile"
                                                          : spelling(clang_getCursorSemanticParent(callee));
    // A dependent member reference has no spelling: its name ends its text (`tile.any`).
    std::string method = text(begin_offset(kids.at(0)), end_offset(kids.at(0)));
    method = spelling(kids[0]).empty() ? method.substr(method.find_last_of(".>") + 1) : spelling(kids[0]);
    key = owner + "::" + method;
    if (!maps_.functions.count(key))
      return problem(problems, call, key,
                     owner != "grid_group" ? "this cooperative-groups method is not translated"
                     : method == "sync"       ? "grid-wide synchronization has no Metal equivalent (split the kernel)"
                                              : "grid-wide groups have no Metal equivalent (split the kernel)");
  } else if (name == "reduce" && clang_Cursor_getNumArguments(call) == 3) {
    std::string op = take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(call, 2)))));
    op = op.substr(0, op.find('<'));  // cooperative_groups::plus<float> -> plus
    key = "reduce:" + op.substr(op.rfind(':') + 1);
    group = group_of(clang_getCursorType(strip_implicit(clang_Cursor_getArgument(call, 0))));
  }
  // CUDA's unsuffixed math overloads (`exp(float)`, `std::sqrt`) are its `f` functions.
  if (callee_kind != CXCursor_CXXMethod && group.kind == Group::none && !maps_.functions.count(key) &&
      !maps_.untranslatable.count(key) && (maps_.functions.count(key + "f") || maps_.untranslatable.count(key + "f")))
    key += "f";
  if (auto u = maps_.untranslatable.find(key); u != maps_.untranslatable.end())
    return problem(problems, call, name, u->second);
  auto m = maps_.functions.find(key);
  if (m == maps_.functions.end())
    return problem(problems, call, key, "no Metal mapping for '" + key + "' (add one to src/translate/mappings.toml)");
  const unsigned b = begin_offset(call), e = end_offset(call);
  // A call written in a macro spans the macro's use, whose text before `(` does not name the function.
  const size_t name_at = text(b, e).substr(0, text(b, e).find('(')).find(name);
  // (A call the mapping drops goes with the whole use: `assert(c)` of cuda_include/assert.h.)
  if (callee_kind != CXCursor_CXXMethod && group.kind == Group::none && name_at == std::string::npos && !m->second.metal.empty())
    return problem(problems, call, name, "used inside a macro: expand the macro by hand");
  const FunctionMapping& f = m->second;
  std::vector<CXCursor> args(kids.begin() + (kids.empty() ? 0 : 1), kids.end());
  std::string pattern = f.metal;
  std::vector<std::string> helpers = f.helpers;
  if (f.width_arg > 0 && size_t(f.width_arg) <= args.size()) {
    CXCursor width = strip_implicit(args[size_t(f.width_arg) - 1]);
    CXEvalResult v = clang_Cursor_Evaluate(width);
    const bool constant = v && clang_EvalResult_getKind(v) == CXEval_Int;
    const long long value = constant ? clang_EvalResult_getAsLongLong(v) : 0;
    if (v) clang_EvalResult_dispose(v);
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
    ++fn.record.translated[key + " (tile below 32)"];
  }
  convert_arguments(callee, args);
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
  std::string element = "int", space = "device";
  if (!args.empty() && is_pointer(clang_getCursorType(strip_implicit(args[0])))) {
    element = metal_type(clang_getPointeeType(clang_getCanonicalType(clang_getCursorType(strip_implicit(args[0])))));
    space = space_of(args[0]);
    const CXType pointee = clang_getCanonicalType(pointee_type(clang_getCursorType(strip_implicit(args[0]))));
    const long long size = clang_Type_getSizeOf(pointee);
    if (name.rfind("atomic", 0) == 0 && pointee.kind == CXType_Double)  // narrowing it to float would lose what it accumulates
      return problem(problems, call, name, "an atomic on double: Metal has no double, and no 64-bit atomics (accumulate in float or int)");
    if (name.rfind("atomic", 0) == 0 && size != 4)
      return problem(problems, call, name, fmt::format("{}-bit atomics do not exist in Metal (32-bit only)", size * 8));
  }
  // $R: the call's type, to which min and max convert both arguments (Metal's have one type); std::max's is a
  // `const T&`, whose const the conversion leaves out.
  const CXType result = clang_getCanonicalType(clang_getCursorType(call));
  const std::string result_type = result.kind >= CXType_Bool && result.kind <= CXType_LongDouble ? unqualified_type(result) : "";
  rw_.replace(b, e, [this, pattern, args, element, space, result_type] {
    std::string s = pattern;
    for (size_t at; (at = s.find("$R")) != std::string::npos;) s.replace(at, 2, result_type);
    for (size_t i = args.size(); i >= 1; --i) {
      const std::string arg = rw_.render(begin_offset(args[i - 1]), end_offset(args[i - 1]));
      for (size_t at; (at = s.find("$" + std::to_string(i))) != std::string::npos;) s.replace(at, 2, arg);
    }
    for (size_t at; (at = s.find("$space")) != std::string::npos;) s.replace(at, 6, space);
    for (size_t at; (at = s.find("$T")) != std::string::npos;) s.replace(at, 2, element);
    return s;
  });
}

void Translator::visit(CXCursor c, Function& fn) {
  std::vector<Problem>& problems = fn.record.problems;
  const CXCursorKind kind = clang_getCursorKind(c);
  if (kind == CXCursor_AsmStmt) {
    const std::string asm_text = text(begin_offset(c), end_offset(c));
    struct Known { const char* needle; const char* construct; const char* reason; };
    static const Known known[] = {
        {"mma.sync", "mma.sync", "tensor-core MMA: rewrite with simdgroup_matrix 8x8 (simdgroup_multiply_accumulate)"},
        {"ldmatrix", "ldmatrix", "warp matrix loads: use simdgroup_load"},
        {"cp.async.bulk", "TMA (cp.async.bulk)", "the tensor memory accelerator has no Metal equivalent"},
        {"cp.async", "cp.async", "asynchronous global->shared copies have no Metal equivalent"},
        {"wgmma", "wgmma", "warpgroup MMA has no Metal equivalent"}};
    for (const auto& k : known)
      if (asm_text.find(k.needle) != std::string::npos) return problem(problems, c, k.construct, k.reason);
    return problem(problems, c, "inline PTX", "inline assembly has no Metal equivalent");
  }
  // C++ that the Metal Shading Language leaves out (metalsim's host compiler would accept it).
  // A library namespace of the declarations (`cub::BlockReduce`): its collectives are not rewritten.
  if (kind == CXCursor_NamespaceRef && from_prelude(clang_getCursorReferenced(c)))
    if (auto u = maps_.untranslatable.find("namespace " + spelling(c)); u != maps_.untranslatable.end())
      return problem(problems, c, "namespace " + spelling(c), u->second);
  if (kind == CXCursor_LambdaExpr) return visit_lambda(c, fn);
  if (kind == CXCursor_GotoStmt) return problem(problems, c, "goto", "the Metal Shading Language has no goto: use a loop or a flag");
  if (kind == CXCursor_ConditionalOperator && fn.kernel && is_pointer(clang_getCursorType(c))) fn.pointer_choices.push_back(c);
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
      if (!fn.kernel)
        problem(problems, c, "extern __shared__ in a __device__ function", "pass the shared array from the kernel as a pointer");
      else if (std::none_of(fn.dynamic_shared.begin(), fn.dynamic_shared.end(), [&](CXCursor d) { return decl_key(d) == decl_key(decl); }))
        fn.dynamic_shared.push_back(decl);  // a file-scope one
    }
  } else if (kind == CXCursor_CallExpr) {
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
    CXCursor callee = called_declaration(c);
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
        CXCursor definition = clang_getCursorDefinition(callee);
        CXCursor pattern = clang_getSpecializedCursorTemplate(callee);
        const std::string key = decl_key(!clang_Cursor_isNull(pattern) ? pattern : clang_Cursor_isNull(definition) ? callee : definition);
        if (functions_.count(key)) {
          fn.callees.insert(key);
          // Group handles passed to the function are dropped with its parameters for them.
          std::vector<CXCursor> args;
          for (int i = 0; i < clang_Cursor_getNumArguments(c); ++i) args.push_back(clang_Cursor_getArgument(c, unsigned(i)));
          std::vector<size_t> groups = group_parameters(functions_.at(key).cursor);
          groups.erase(std::remove_if(groups.begin(), groups.end(), [&](size_t i) { return i >= args.size(); }), groups.end());
          call_sites_.push_back({c, key, args.size() - groups.size()});
          // The object a method is called on is translated too (`red[threadIdx.x / 32].merge(acc)`), and its space
          // follows the parameters' (a member operator's object is its first argument).
          std::vector<CXCursor> passed = args;
          const std::string object = object_space(c, callee, passed);
          if (const std::vector<CXCursor> kids = children(c); !kids.empty() && clang_getCursorKind(kids[0]) == CXCursor_MemberRefExpr)
            for (CXCursor k : children(kids[0])) visit(k, fn);
          std::vector<std::string> spaces;
          for (size_t i : reference_parameters(functions_.at(key).cursor)) spaces.push_back(i < passed.size() ? bound_space(passed[i]) : "thread");
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
        const std::string name = spelling(callee);
        for (const std::string& key : {name, name + "f"})
          if (maps_.functions.count(key) || maps_.untranslatable.count(key)) {
            map_call(c, callee, fn);
            break;
          }
      }
    }
  } else if (kind == CXCursor_InitListExpr || kind == CXCursor_BinaryOperator) {
    shared_pointer_field(c, fn);
  } else if (kind == CXCursor_MemberRefExpr) {
    // A reference member (CUB's `TempStorage& temp_storage` bound to __shared__ storage): Metal's reference types
    // carry an address space, which the port does not infer for a member.
    const CXCursor field = clang_getCursorReferenced(c);
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
    if (const std::vector<CXCursor> kids = children(c); !kids.empty() && clang_getCursorKind(strip_implicit(kids.back())) == CXCursor_LambdaExpr)
      lambda_variables_[begin_offset(strip_implicit(kids.back()))] = c;
    if (map_declaration(c, fn)) return;
  } else if ((kind == CXCursor_CompoundAssignOperator || kind == CXCursor_BinaryOperator) && volatile_store(c, fn)) {
    for (CXCursor k : children(c)) visit(k, fn);
    return;
  } else if (kind == CXCursor_ForStmt) {
    if (const std::vector<CXCursor> parts = children(c); !parts.empty() && clang_getCursorKind(parts[0]) == CXCursor_DeclStmt)
      for_inits_.push_back({begin_offset(parts[0]), end_offset(parts[0])});
  } else if (kind == CXCursor_CStyleCastExpr || kind == CXCursor_CXXReinterpretCastExpr || kind == CXCursor_CXXStaticCastExpr) {
    if (is_pointer(clang_getCursorType(c))) {
      map_cast(c);
      ++fn.record.translated["pointer cast (address space)"];
    }
  }
  for (CXCursor k : children(c)) visit(k, fn);
}

// A __device__ function: pointer parameters become template parameters (the caller's address
// space is deduced), references to locals get `thread`.
void Translator::device_function_signature(Function& fn) {
  const std::vector<CXCursor> params = parameters_of(fn.cursor);
  const std::vector<size_t> groups = group_parameters(fn.cursor);
  for (const auto& [b, e] : list_removals(params, groups)) rw_.replace(b, e, "");
  const std::vector<std::string> template_params = parameter_templates(params, fn);
  if (template_params.empty()) return;
  std::string list;
  for (const auto& t : template_params) list += (list.empty() ? "" : ", ") + std::string("typename ") + t;
  const unsigned b = begin_offset(fn.cursor);
  if (clang_getCursorKind(fn.cursor) == CXCursor_FunctionTemplate) {
    // After the function's own template parameters: a call's explicit arguments (`f<256>(...)`) bind those.
    unsigned last = b;
    for (CXCursor k : children(fn.cursor)) {
      const CXCursorKind kind = clang_getCursorKind(k);
      if (kind == CXCursor_TemplateTypeParameter || kind == CXCursor_NonTypeTemplateParameter || kind == CXCursor_TemplateTemplateParameter)
        last = std::max(last, end_offset(k));
    }
    rw_.insert(unsigned(rw_.text().find('>', last)), ", " + list);
  } else {
    rw_.insert(b, "template <" + list + "> ");
  }
}

// The parameters of a __device__ function or a lambda: a pointer's type becomes a template parameter (the caller's
// address space is deduced), as does a struct's whose pointer fields are template parameters; a reference gets the
// space it binds (`thread`, or a lambda's calls' space). Returns the template parameters' names.
std::vector<std::string> Translator::parameter_templates(const std::vector<CXCursor>& params, Function& fn) {
  std::vector<std::string> template_params;
  for (CXCursor p : params) {
    CXType type = clang_getCursorType(p);
    if (spelling(p).empty()) continue;
    if (const Group group = group_of(type); group.kind != Group::none) {
      if (const std::string why = tile_refusal(group, true); !why.empty())
        problem(fn.record.problems, p, "thread_block_tile parameter", why);
      continue;
    }
    if (is_pointer(type)) {
      const std::string name = fmt::format("KsPointer{}", template_params.size());
      template_params.push_back(name);
      spaces_[decl_key(p)] = "device";
      rw_.replace(begin_offset(p), position(p).offset, name + " ");
      continue;
    }
    // A struct whose pointer fields are template parameters: the parameter's type is one too (deduced at the call).
    const CXType bare = clang_getCanonicalType(is_reference(type) ? pointee_type(type) : type);
    if (bare.kind == CXType_Record && templated_records_.count(decl_key(clang_getTypeDeclaration(bare))))
      for (CXCursor k : children(p))
        if (clang_getCursorKind(k) == CXCursor_TypeRef) {
          const std::string name = fmt::format("KsRecord{}", template_params.size());
          template_params.push_back(name);
          rw_.replace(begin_offset(k), end_offset(k), name);
        }
    if (is_reference(type))
      rw_.insert(begin_offset(p), [this, key = decl_key(p)] {
        const auto space = reference_spaces_.find(key);
        return (space == reference_spaces_.end() ? "thread" : space->second) + " ";
      });
  }
  return template_params;
}

void Translator::visit_function(Function& fn) {
  visiting_ = decl_key(fn.cursor);
  if (!fn.kernel) device_function_signature(fn);
  for (CXCursor k : children(fn.cursor))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) {
      visit(k, fn);
    } else if (clang_getCursorKind(k) == CXCursor_ParmDecl && !clang_Cursor_isNull(default_argument(k))) {
      visit(default_argument(k), fn);  // `int width = warpSize`
    }
}

// A lambda expression: its capture list and signature are read here and its body is visited as code of the function
// holding it; the struct and the value that replaces it are written once every function is visited
// (resolve_lambdas), when the address spaces of what it captures and of what its calls pass are known.
void Translator::visit_lambda(CXCursor expr, Function& fn) {
  Lambda lambda;
  lambda.expr = expr;
  lambda.owner = visiting_;
  const std::string& t = rw_.text();
  const unsigned b = begin_offset(expr), e = end_offset(expr);
  auto matching = [&](unsigned open) {  // the bracket closing the one at `open`
    unsigned at = open;
    for (int depth = 0; at < e; ++at) {
      depth += std::string("[({").find(t[at]) != std::string::npos ? 1 : std::string("])}").find(t[at]) != std::string::npos ? -1 : 0;
      if (depth == 0) break;
    }
    return at;
  };
  auto trimmed = [&](unsigned from, unsigned to) {
    while (from < to && std::isspace(static_cast<unsigned char>(t[from]))) ++from;
    while (to > from && std::isspace(static_cast<unsigned char>(t[to - 1]))) --to;
    return std::make_pair(from, to);
  };
  // The capture list: `[&]`, `[=, &acc]`, `[v = x * 2]`.
  const unsigned captures_end = matching(b);
  for (unsigned item = b + 1, at = b + 1; at <= captures_end; ++at) {
    if (at < captures_end && t[at] != ',') {
      if (std::string("[({").find(t[at]) != std::string::npos) at = matching(at);
      continue;
    }
    const auto [from, to] = trimmed(item, at);
    item = at + 1;
    const std::string capture = t.substr(from, to - from);
    if (capture.empty() || capture == "=") continue;
    if (capture == "&") {
      lambda.by_reference = true;
    } else if (capture == "this" || capture == "*this") {
      return problem(fn.record.problems, expr, "lambda capturing this",
                     "a lambda capturing its method's object is not translated: pass the object (or the members it uses) as "
                     "arguments");
    } else if (const size_t assign = capture.find('='); assign != std::string::npos) {
      const auto [name_b, name_e] = trimmed(from, from + unsigned(assign));
      if (t[name_b] == '&')
        return problem(fn.record.problems, expr, "lambda init capture by reference",
                       "a reference initialized in the capture list ('" + capture + "') is not translated: capture the variable by reference");
      lambda.init_captures.push_back({t.substr(name_b, name_e - name_b), trimmed(from + unsigned(assign) + 1, to)});
    } else {
      const bool reference = capture[0] == '&';
      const auto [name_b, name_e] = trimmed(from + (reference ? 1 : 0), to);
      lambda.explicit_captures[t.substr(name_b, name_e - name_b)] = reference;
    }
  }
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(expr)) {
    if (clang_getCursorKind(k) == CXCursor_ParmDecl) lambda.params.push_back(k);
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  }
  // The parameters in parentheses (none without them), then `mutable` and a return type after `->`.
  const size_t open = t.find('(', captures_end);
  unsigned after_params = captures_end + 1;
  if (open != std::string::npos && open < begin_offset(body)) {
    after_params = matching(unsigned(open)) + 1;
    lambda.params_b = unsigned(open) + 1;
    lambda.params_e = after_params - 1;
  }
  const std::string specifiers = t.substr(after_params, begin_offset(body) - after_params);
  lambda.is_mutable = specifiers.find("mutable") != std::string::npos;
  if (const size_t arrow = specifiers.find("->"); arrow != std::string::npos)
    std::tie(lambda.return_b, lambda.return_e) = trimmed(after_params + unsigned(arrow) + 2, begin_offset(body));
  for (CXCursor p : lambda.params)
    if (group_of(clang_getCursorType(p)).kind != Group::none)
      return problem(fn.record.problems, p, "cooperative-groups handle as a lambda parameter",
                     "group handles are dropped, and a lambda's calls are not rewritten to match: capture the handle instead");
  // A use of its method's object (`this->x`, a member named alone): Metal's struct would need a pointer to it.
  bool uses_this = false;
  clang_visitChildren(
      body,
      [](CXCursor c, CXCursor, CXClientData data) {
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_CXXThisExpr || (kind == CXCursor_MemberRefExpr && children(c).empty())) *static_cast<bool*>(data) = true;
        return CXChildVisit_Recurse;
      },
      &uses_this);
  if (uses_this)
    return problem(fn.record.problems, expr, "lambda capturing this",
                   "a lambda using its method's object (`this`, a member named alone) is not translated: pass the object (or "
                   "the members it uses) as arguments");
  lambda.call_templates = parameter_templates(lambda.params, fn);
  // A generic lambda's `auto` parameters: its operator() is a template.
  for (CXCursor p : lambda.params) {
    if (is_pointer(clang_getCursorType(p))) continue;
    const unsigned type_b = begin_offset(p), type_e = spelling(p).empty() ? end_offset(p) : position(p).offset;
    for (size_t at = t.find("auto", type_b); at != std::string::npos && at + 4 <= type_e; at = t.find("auto", at + 4)) {
      auto word = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_'; };
      if ((at > 0 && word(at - 1)) || word(at + 4)) continue;
      const std::string name = fmt::format("KsAuto{}", lambda.call_templates.size());
      lambda.call_templates.push_back(name);
      rw_.replace(unsigned(at), unsigned(at + 4), name);
    }
  }
  // The variables of the enclosing code its body names: each becomes a member (a file-scope extern __shared__ array
  // too, which the kernel declares).
  std::pair<Translator*, Lambda*> search(this, &lambda);
  clang_visitChildren(
      body,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto [self, l] = *static_cast<std::pair<Translator*, Lambda*>*>(data);
        if (clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        const CXCursor decl = clang_getCursorReferenced(c);
        const CXCursorKind kind = clang_getCursorKind(decl), parent = clang_getCursorKind(clang_getCursorSemanticParent(decl));
        const bool inside = begin_offset(decl) >= begin_offset(l->expr) && begin_offset(decl) < end_offset(l->expr);
        const bool local = parent != CXCursor_TranslationUnit && parent != CXCursor_Namespace && parent != CXCursor_UnexposedDecl;
        const bool dynamic_shared = std::any_of(self->dynamic_shared_.begin(), self->dynamic_shared_.end(),
                                                [&](CXCursor d) { return clang_equalCursors(d, decl); });
        if ((kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl) && !inside && (local || dynamic_shared) &&
            group_of(clang_getCursorType(decl)).kind == Group::none &&
            std::none_of(l->captured.begin(), l->captured.end(), [&](CXCursor v) { return clang_equalCursors(v, decl); }))
          l->captured.push_back(decl);
        return CXChildVisit_Recurse;
      },
      &search);
  // Its body is code of the function holding it; its init captures' expressions are evaluated where it is.
  Function inner{expr};
  inner.kernel = fn.kernel;
  visit(body, inner);
  for (CXCursor k : children(expr))
    for (const auto& [name, range] : lambda.init_captures)
      if (clang_isExpression(clang_getCursorKind(k)) && begin_offset(k) >= range.first && end_offset(k) <= range.second) visit(k, fn);
  for (const auto& [construct, count] : inner.record.translated) fn.record.translated[construct] += count;
  fn.record.problems.insert(fn.record.problems.end(), inner.record.problems.begin(), inner.record.problems.end());
  fn.builtins.insert(inner.builtins.begin(), inner.builtins.end());
  fn.shared.insert(inner.shared.begin(), inner.shared.end());
  fn.callees.insert(inner.callees.begin(), inner.callees.end());
  fn.pointer_choices.insert(fn.pointer_choices.end(), inner.pointer_choices.begin(), inner.pointer_choices.end());
  for (CXCursor d : inner.dynamic_shared)
    if (std::none_of(fn.dynamic_shared.begin(), fn.dynamic_shared.end(), [&](CXCursor k) { return clang_equalCursors(k, d); }))
      fn.dynamic_shared.push_back(d);
  lambda.body = std::move(inner);
  ++fn.record.translated["lambda expression (function object)"];
  // Its struct is named after its line and the variable it initializes, and goes before the top-level declaration
  // holding it (a method's struct).
  const Position at = position(expr);
  lambda.name = fmt::format("KsLambda{}", at.line);
  if (const auto v = lambda_variables_.find(b); v != lambda_variables_.end()) {
    lambda.variable = decl_key(v->second);
    lambda.name += "_" + spelling(v->second);
  }
  const auto taken = [&](const std::string& name) {
    return std::any_of(lambdas_.begin(), lambdas_.end(), [&](const Lambda& other) { return other.name == name; });
  };
  if (taken(lambda.name)) lambda.name += fmt::format("_{}", at.column);
  lambda.anchor = functions_.at(visiting_).cursor;
  for (CXCursor p = clang_getCursorSemanticParent(lambda.anchor);; p = clang_getCursorSemanticParent(p)) {
    const CXCursorKind kind = clang_getCursorKind(p);
    if (kind != CXCursor_StructDecl && kind != CXCursor_ClassDecl && kind != CXCursor_ClassTemplate &&
        kind != CXCursor_ClassTemplatePartialSpecialization)
      break;
    lambda.anchor = p;
  }
  rw_.replace(b, e, [this, index = lambdas_.size()] { return lambda_site(lambdas_[index]); });
  lambdas_.push_back(std::move(lambda));
}

// The name code of the body gives a variable: a kernel parameter's binding, a Metal keyword's replacement.
std::string Translator::body_name(CXCursor variable) const {
  if (const auto r = param_renames_.find(decl_key(variable)); r != param_renames_.end()) return r->second;
  if (const auto r = keyword_renames_.find(spelling(variable)); r != keyword_renames_.end()) return r->second;
  return spelling(variable);
}

// Each lambda's members, once every function is visited: what it captures, in the address space it is in, and the
// built-in variables and hoisted __shared__ arrays its body (and what it calls) names, which the struct cannot see;
// the space each reference parameter binds at its calls. What has no single space is reported at the lambda's line.
void Translator::resolve_lambdas() {
  for (Lambda& lambda : lambdas_) {
    std::vector<Problem>& problems = functions_.at(lambda.owner).record.problems;
    const std::string& t = rw_.text();
    for (size_t i = 0; i < lambda.params.size(); ++i) {
      if (!is_reference(clang_getCursorType(lambda.params[i]))) continue;
      std::set<std::string> spaces;
      for (const auto& call : lambda_calls_[lambda.variable])
        if (i < call.size()) spaces.merge(resolved_spaces(call[i]));
      if (spaces.size() > 1)
        problem(problems, lambda.params[i], "lambda reference parameter '" + spelling(lambda.params[i]) + "'",
                fmt::format("its calls bind it to {} memory, and a Metal reference names one address space: take it by value, "
                            "or write a __device__ function (the port overloads those per space)",
                            fmt::join(spaces, " and ")));
      else if (spaces.size() == 1)
        reference_spaces_[decl_key(lambda.params[i])] = *spaces.begin();
    }
    // The enclosing function's (and class's) template parameters: the struct takes them, as its members' types may
    // name them.
    std::vector<CXCursor> scopes;
    for (CXCursor s = functions_.at(lambda.owner).cursor; !clang_equalCursors(s, clang_getCursorSemanticParent(lambda.anchor));
         s = clang_getCursorSemanticParent(s))
      scopes.insert(scopes.begin(), s);
    for (CXCursor scope : scopes)
      for (CXCursor k : children(scope)) {
        const CXCursorKind kind = clang_getCursorKind(k);
        if ((kind != CXCursor_TemplateTypeParameter && kind != CXCursor_NonTypeTemplateParameter) || spelling(k).empty()) continue;
        lambda.outer_templates.push_back(rw_.render(begin_offset(k), position(k).offset + unsigned(spelling(k).size())));
        lambda.outer_names.push_back(spelling(k));
      }
    // The type of a variable's value in the struct: canonical where it names no template parameter, else as written.
    auto value_type = [this](CXType type) {
      if (take(clang_getTypeSpelling(clang_getCanonicalType(type))).find("type-parameter") == std::string::npos) return unqualified_type(type);
      std::string written = metal_type(type);
      return written.rfind("const ", 0) == 0 ? written.substr(6) : written;
    };
    // An array's dimensions as declared (`[32]`, `[BLOCK / 32][33]`), after its name.
    auto dimensions = [&](CXCursor variable) {
      const unsigned from = position(variable).offset + unsigned(spelling(variable).size());
      unsigned to = from;
      for (size_t open = to; (open = t.find_first_not_of(" \t", to)) != std::string::npos && t[open] == '[';)
        to = unsigned(t.find(']', open)) + 1;
      return rw_.render(from, to);
    };
    // A member whose type is a template parameter of the struct, given `type_argument` where the lambda was.
    int templated = 0;
    auto templated_member = [&](const std::string& type_argument, bool reference, const std::string& name) {
      const std::string parameter = fmt::format("KsCapture{}", templated++);
      lambda.members.push_back({(reference ? "thread " + parameter + "& " : parameter + " ") + name + ";", name, type_argument});
    };
    for (CXCursor v : lambda.captured) {
      const std::string key = decl_key(v), name = body_name(v), written = spelling(v);
      const CXType type = clang_getCursorType(v), canonical = clang_getCanonicalType(type);
      const auto listed = lambda.explicit_captures.find(written);
      const bool by_reference = listed != lambda.explicit_captures.end() ? listed->second : lambda.by_reference;
      const bool kernel_parameter = clang_getCursorKind(v) == CXCursor_ParmDecl && functions_.at(lambda.owner).kernel;
      const bool array = canonical.kind == CXType_ConstantArray || canonical.kind == CXType_IncompleteArray ||
                         canonical.kind == CXType_DependentSizedArray;
      CXType element = type;
      while (clang_getArrayElementType(element).kind != CXType_Invalid) element = clang_getArrayElementType(element);
      CXCursor init = clang_getNullCursor();
      for (CXCursor k : children(v))
        if (clang_isExpression(clang_getCursorKind(k))) init = k;
      const CXEvalResult value = clang_Cursor_isNull(init) || clang_getCursorKind(v) != CXCursor_VarDecl ? nullptr : clang_Cursor_Evaluate(init);
      const CXEvalResultKind value_kind = value ? clang_EvalResult_getKind(value) : CXEval_UnExposed;
      const bool constexpr_written = text(begin_offset(v), position(v).offset).find("constexpr") != std::string::npos;
      auto [space, spaced] = spaces_.count(key) ? std::pair(spaces_.at(key), true) : std::pair(std::string("thread"), false);
      if (spaced && space == "threadgroup") {
        // __shared__ memory (static storage in CUDA: named, never copied, whatever the capture list says).
        if (canonical.kind == CXType_IncompleteArray || clang_Cursor_getStorageClass(v) == CX_SC_Extern)
          lambda.members.push_back({fmt::format("threadgroup {}* {};", metal_type(element), name), name, ""});
        else if (array)
          lambda.members.push_back({fmt::format("threadgroup {} (&{}){};", metal_type(element), name, dimensions(v)), name, ""});
        else
          lambda.members.push_back({fmt::format("threadgroup {}& {};", metal_type(type), name), name, ""});
      } else if (clang_isConstQualifiedType(type) && canonical.kind >= CXType_Bool && canonical.kind <= CXType_LongDouble &&
                 (constexpr_written || value_kind == CXEval_Int || value_kind == CXEval_Float)) {
        // A constant: the struct's own, so that constant expressions in the body (sizes, template arguments) keep it.
        std::string constant = value_kind == CXEval_Int ? std::to_string(clang_EvalResult_getAsLongLong(value))
                               : value_kind == CXEval_Float
                                   ? fmt::format("{}f", float(clang_EvalResult_getAsDouble(value)))
                                   : rw_.render(begin_offset(init), end_offset(init));
        lambda.members.push_back({fmt::format("static constant constexpr {} {} = {};", value_type(type), name, constant), "", ""});
      } else if (array) {
        if (!by_reference)
          problem(problems, lambda.expr, "array '" + written + "' captured by copy",
                  "a lambda's copy of a whole array is not translated: capture it by reference (`[&" + written + "]`)");
        lambda.members.push_back({fmt::format("thread {} (&{}){};", metal_type(element), name, dimensions(v)), name, ""});
      } else if (is_reference(type) && by_reference) {
        // What a reference refers to: its space is what it binds (a parameter's: what the function's calls bind).
        std::set<std::string> bound = resolved_spaces(clang_getCursorKind(v) == CXCursor_ParmDecl ? "param:" + key
                                                      : clang_Cursor_isNull(init)                 ? "thread"
                                                                                                  : bound_space(init));
        if (bound.size() > 1)
          problem(problems, lambda.expr, "capture of '" + written + "' by reference",
                  fmt::format("'{}' refers to {} memory (its function is called with both), and a Metal reference names one "
                              "address space: capture it by copy, or pass it as an argument",
                              written, fmt::join(bound, " and ")));
        lambda.members.push_back({fmt::format("{} {}& {};", *bound.begin(), metal_type(pointee_type(type)), name), name, ""});
      } else if (is_pointer(type) || (is_reference(type) && is_pointer(pointee_type(type)))) {
        // A pointer takes the type of its value, whose space (device or constant for a buffer, threadgroup, thread) the
        // port leaves to Metal (`auto row = x + ...`). A kernel's parameters are MLX's arguments: copied.
        templated_member("decltype((" + name + ") + 0)", by_reference && !kernel_parameter, name);
      } else if (const auto captured_lambda = std::find_if(lambdas_.begin(), lambdas_.end(), [&](const Lambda& l) { return l.variable == key; });
                 captured_lambda != lambdas_.end()) {
        const std::string site = lambda_site(*captured_lambda);
        templated_member(site.substr(0, site.find('{')), by_reference, name);
      } else {
        const CXType bare = clang_getCanonicalType(is_reference(type) ? pointee_type(type) : type);
        if (bare.kind == CXType_Record && templated_records_.count(decl_key(clang_getTypeDeclaration(bare))))
          problem(problems, lambda.expr, "capture of '" + written + "'",
                  "its struct's pointer fields became template parameters (their buffers' types), which the lambda's struct "
                  "does not follow: capture the fields it uses in locals first");
        const bool reference = by_reference && !kernel_parameter;
        lambda.members.push_back({reference ? fmt::format("thread {}& {};", metal_type(type), name)
                                            : fmt::format("{} {};", value_type(is_reference(type) ? pointee_type(type) : type), name),
                                  name, ""});
      }
      if (value) clang_EvalResult_dispose(value);
    }
    for (const auto& [name, range] : lambda.init_captures) {
      CXCursor decl = clang_getNullCursor();  // the variable the init capture declares, as its body names it
      std::pair<std::string, CXCursor*> search(name, &decl);
      clang_visitChildren(
          lambda.expr,
          [](CXCursor c, CXCursor, CXClientData data) {
            auto* s = static_cast<std::pair<std::string, CXCursor*>*>(data);
            if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && spelling(c) == s->first) *s->second = clang_getCursorReferenced(c);
            return CXChildVisit_Recurse;
          },
          &search);
      if (clang_Cursor_isNull(decl)) continue;  // unused
      if (is_pointer(clang_getCursorType(decl))) templated_member("", false, name);
      else lambda.members.push_back({fmt::format("{} {};", value_type(clang_getCursorType(decl)), name), "", ""});
      lambda.members.back().init_b = range.first;
      lambda.members.back().init_e = range.second;
    }
    // The built-in variables and hoisted __shared__ arrays of its body and callees, as the function holding it has them.
    std::set<std::string> builtins = lambda.body.builtins, shared = lambda.body.shared;
    for (const auto& callee : lambda.body.callees) {
      builtins.insert(functions_.at(callee).builtins.begin(), functions_.at(callee).builtins.end());
      shared.insert(functions_.at(callee).shared.begin(), functions_.at(callee).shared.end());
    }
    for (const auto& b : builtins) lambda.members.push_back({"uint3 " + kBuiltins.at(b) + ";", kBuiltins.at(b), ""});
    for (const auto& name : shared) {
      const HoistedShared& h = hoisted_.at(name);
      lambda.members.push_back({fmt::format("threadgroup {} (&{}){};", h.resolved_element, h.hoisted, h.resolved_dims),
                                h.owner_key == lambda.owner ? h.name : h.hoisted, ""});
    }
  }
}

// What replaces a lambda: its struct built from its members' values there (`KsLambda8_load<decltype((row) + 0)>{row, cols}`).
std::string Translator::lambda_site(const Lambda& lambda) {
  std::vector<std::string> arguments = lambda.outer_names, values;
  for (const LambdaMember& m : lambda.members) {
    std::string init = m.init, argument = m.type_argument;
    if (m.init_b < m.init_e) {
      init = rw_.render(m.init_b, m.init_e);
      if (m.declaration.rfind("KsCapture", 0) == 0) argument = "decltype((" + init + ") + 0)";  // a pointer
    }
    if (!argument.empty()) arguments.push_back(argument);
    if (!init.empty()) values.push_back(init);
  }
  return fmt::format("{}{}{{{}}}", lambda.name, arguments.empty() ? "" : "<" + fmt::format("{}", fmt::join(arguments, ", ")) + ">",
                     fmt::join(values, ", "));
}

// A lambda's struct: its members, and its body as a (const unless mutable) operator(), a template for `auto` and
// pointer parameters; the return type as written, else the type of what it returns (deduced where that names a
// template parameter).
std::string Translator::lambda_struct(const Lambda& lambda) {
  std::vector<std::string> templates = lambda.outer_templates;
  for (const LambdaMember& m : lambda.members)
    if (const size_t at = m.declaration.find("KsCapture"); at != std::string::npos)
      templates.push_back("typename " + m.declaration.substr(at, m.declaration.find_first_of(" &", at) - at));
  std::string out = templates.empty() ? "" : fmt::format("template <{}>\n", fmt::join(templates, ", "));
  out += "struct " + lambda.name + " {\n";
  for (const LambdaMember& m : lambda.members) out += "  " + m.declaration + "\n";
  CXCursor body = clang_getNullCursor();
  for (CXCursor k : children(lambda.expr))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) body = k;
  std::string result = "auto", trailing;
  if (lambda.return_b < lambda.return_e) {
    trailing = " -> " + rw_.render(lambda.return_b, lambda.return_e);
  } else {
    CXCursor returned = clang_getNullCursor();  // the first return's value (not a nested lambda's)
    bool returns = false;
    std::tuple<CXCursor*, bool*> search(&returned, &returns);
    clang_visitChildren(
        body,
        [](CXCursor c, CXCursor, CXClientData data) {
          auto [value, found] = *static_cast<std::tuple<CXCursor*, bool*>*>(data);
          if (clang_getCursorKind(c) == CXCursor_LambdaExpr) return CXChildVisit_Continue;
          if (clang_getCursorKind(c) != CXCursor_ReturnStmt) return CXChildVisit_Recurse;
          *found = true;
          for (CXCursor k : children(c)) *value = k;
          return CXChildVisit_Break;
        },
        &search);
    const CXType type = clang_getCanonicalType(clang_getCursorType(returned));
    if (!returns || clang_Cursor_isNull(returned)) result = "void";
    else if (type.kind != CXType_Invalid && type.kind != CXType_Unexposed && type.kind != CXType_Dependent &&
             take(clang_getTypeSpelling(type)).find("type-parameter") == std::string::npos)
      result = unqualified_type(type);
  }
  std::string call_templates;
  for (const auto& name : lambda.call_templates) call_templates += (call_templates.empty() ? "" : ", ") + ("typename " + name);
  // The body without what is inserted after its `}` (the arguments a call passes after the lambda, which are the call's).
  out += fmt::format("  {}{} operator()({}){}{} {}\n}};\n", call_templates.empty() ? "" : "template <" + call_templates + "> ", result,
                     lambda.params_b < lambda.params_e ? rw_.render(lambda.params_b, lambda.params_e) : "",
                     lambda.is_mutable ? "" : " const", trailing, rw_.render(begin_offset(body), end_offset(body) - 1) + "}");
  return out;
}

// A declaration in a named namespace stays in it (`ops::Gelu`); the body, outside, names it unqualified too through the
// header's `using namespace`.
std::string Translator::in_namespaces(CXCursor declaration, std::string text) {
  const std::vector<std::string> names = namespaces_of(declaration);
  if (!names.empty()) namespaces_.insert(fmt::format("{}", fmt::join(names, "::")));
  for (auto n = names.rbegin(); n != names.rend(); ++n) text = "namespace " + *n + " {\n" + text + "}\n";
  return text;
}

std::string Translator::header() {
  std::vector<std::pair<unsigned, std::string>> parts;
  // Each lambda's struct before the declaration holding it (a nested lambda's first: it ends first).
  for (const Lambda& lambda : lambdas_) parts.push_back({begin_offset(lambda.anchor), in_namespaces(lambda.anchor, lambda_struct(lambda))});
  std::pair<Translator*, void*> context(this, &parts);
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<Translator*>(static_cast<std::pair<Translator*, void*>*>(data)->first);
        auto* parts = static_cast<std::vector<std::pair<unsigned, std::string>>*>(static_cast<std::pair<Translator*, void*>*>(data)->second);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        auto in_namespaces = [c, self](std::string text) { return self->in_namespaces(c, std::move(text)); };
        const CXCursorKind kind = clang_getCursorKind(c);
        const unsigned b = begin_offset(c), e = end_offset(c);
        switch (kind) {
          case CXCursor_MacroDefinition: {
            if (self->macros_.expanded.count(spelling(c))) break;  // no use is left
            const size_t line = self->rw_.text().rfind('\n', b);
            const unsigned from = line == std::string::npos ? 0 : unsigned(line + 1);
            parts->push_back({b, self->rw_.render(from, e) + "\n"});
            break;
          }
          case CXCursor_StructDecl:
          case CXCursor_ClassDecl:
          case CXCursor_UnionDecl:
          case CXCursor_ClassTemplate:
          case CXCursor_ClassTemplatePartialSpecialization:
          case CXCursor_EnumDecl:
          case CXCursor_TypedefDecl:
          case CXCursor_TypeAliasDecl:
          case CXCursor_TypeAliasTemplateDecl:
            if (pointer_typedef(c)) break;  // written out at its uses (expand_pointer_typedefs)
            // `typedef struct { ... } Params;` defines the struct inside the typedef, whose text carries it.
            while (kind == CXCursor_TypedefDecl && !parts->empty() && parts->back().first > b && parts->back().first < e) parts->pop_back();
            // A declaration without definition too: a primary template that only its specializations define
            // (`template <int N> struct Vec;`), a forward declaration.
            // (Not one of a struct whose definition became a template here.)
            if (clang_isCursorDefinition(c) ||
                (kind != CXCursor_EnumDecl && !self->templated_records_.count(decl_key(c)))) {
              std::string text = self->rw_.render(b, e);
              // its methods, with the address spaces their reference parameters bind
              for (const auto& [key, fn] : self->functions_) {
                if (fn.kernel ||
                    std::all_of(fn.reference_spaces.begin(), fn.reference_spaces.end(), [](const auto& v) { return v.empty(); }) ||
                    !clang_equalCursors(clang_getCursorSemanticParent(fn.cursor), c))
                  continue;
                const std::string method = self->rw_.render(begin_offset(fn.cursor), end_offset(fn.cursor));
                if (const size_t at = text.find(method); at != std::string::npos)
                  text.replace(at, method.size(), self->with_reference_spaces(fn, method));
              }
              parts->push_back({b, in_namespaces(text + ";\n")});
            }
            break;
          case CXCursor_VarDecl: {
            if (has_child(c, CXCursor_CUDASharedAttr)) break;  // declared in the kernel
            const bool constant = has_child(c, CXCursor_CUDAConstantAttr);
            if (!constant && !clang_isConstQualifiedType(clang_getCursorType(c))) break;  // host state
            // `constexpr int a = 1, b = 2;` is one declaration per name, all starting at `constexpr`:
            // the last one spans the whole statement.
            if (!parts->empty() && parts->back().first == b) parts->pop_back();
            parts->push_back({b, in_namespaces((constant ? "" : "constant ") + self->rw_.render(b, e) + ";\n")});
            break;
          }
          case CXCursor_FunctionDecl:
          case CXCursor_FunctionTemplate: {
            auto f = self->functions_.find(decl_key(c));
            if (f == self->functions_.end() || f->second.kernel) break;
            if (builtin_vector_operator(c)) {
              const std::string note = "operators of the file over vector types (helper_math.h style) dropped: Metal's vector types have them";
              if (std::find(self->out_.notes.begin(), self->out_.notes.end(), note) == self->out_.notes.end()) self->out_.notes.push_back(note);
              break;
            }
            parts->push_back({b, in_namespaces(self->with_reference_spaces(f->second, self->rw_.render(b, e) + "\n"))});
            break;
          }
          case CXCursor_UnexposedDecl:
          case CXCursor_Namespace:
            return CXChildVisit_Recurse;
          default:
            break;
        }
        return CXChildVisit_Continue;
      },
      &context);
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& h : helpers_) out += maps_.helpers.at(h);
  for (const auto& [at, text] : parts) out += text;
  // Each enclosing namespace too: the kernel's code names `detail::f` from inside `kernels`, and the body is outside.
  std::set<std::string> used;
  for (const auto& name : namespaces_)
    for (size_t end = name.find("::"); ; end = name.find("::", end + 2)) {
      used.insert(name.substr(0, end));
      if (end == std::string::npos) break;
    }
  for (const auto& name : used) out += "using namespace " + name + ";\n";
  return out;
}

std::string Translator::kernel_body(const Function& kernel, const std::vector<std::string>& bindings) {
  std::string out;
  for (const auto& b : bindings) out += b + "\n";
  for (const auto& name : kernel.shared) {
    const HoistedShared& h = hoisted_.at(name);
    out += fmt::format("threadgroup {} {}{};\n", h.resolved_element, h.hoisted, h.resolved_dims);
  }
  // The kernel's extern __shared__ arrays share its launch's dynamic shared memory (KS_DYNAMIC_SHARED_BYTES).
  const std::vector<CXCursor>& dynamic = kernel.dynamic_shared;
  for (size_t i = 0; i < dynamic.size(); ++i) {
    CXType element = clang_getArrayElementType(clang_getCursorType(dynamic[i]));
    const std::string t = metal_type(element), name = spelling(dynamic[i]);
    if (i == 0)
      out += fmt::format("threadgroup {} {}[(KS_DYNAMIC_SHARED_BYTES + sizeof({}) - 1) / sizeof({})];\n", t, name, t, t);
    else
      out += fmt::format("threadgroup {}* {} = (threadgroup {}*){};\n", t, name, t, spelling(dynamic[0]));
  }
  for (CXCursor k : children(kernel.cursor))
    if (clang_getCursorKind(k) == CXCursor_CompoundStmt) out += rw_.render(begin_offset(k), end_offset(k)) + "\n";
  return out;
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

Translation Translator::run() {
  parse();
  token_edits();
  expand_pointer_typedefs();
  // Kernels and __device__ functions of the file.
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* self = static_cast<Translator*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_UnexposedDecl || kind == CXCursor_Namespace) return CXChildVisit_Recurse;
        // Methods of the file's structs are __device__ functions too (the struct's text carries them).
        if (kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl || kind == CXCursor_ClassTemplate) return CXChildVisit_Recurse;
        const bool method = kind == CXCursor_CXXMethod || kind == CXCursor_Constructor || kind == CXCursor_ConversionFunction;
        if ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate || method) && clang_isCursorDefinition(c)) {
          Function f{c};
          f.kernel = has_child(c, CXCursor_CUDAGlobalAttr);
          if (f.kernel || has_child(c, CXCursor_CUDADeviceAttr)) self->functions_[decl_key(c)] = f;
        }
        // A file-scope extern __shared__ array is the dynamic shared memory of each kernel naming it.
        if (kind == CXCursor_VarDecl && has_child(c, CXCursor_CUDASharedAttr)) {
          self->spaces_[decl_key(c)] = "threadgroup";
          if (clang_Cursor_getStorageClass(c) == CX_SC_Extern) {
            self->dynamic_shared_.push_back(c);  // the header leaves it out
          } else {
            self->problem(self->out_.problems, c, "file-scope __shared__ variable '" + spelling(c) + "'",
                          "Metal declares threadgroup memory in the kernel only: declare it in the kernel");
          }
        }
        if (kind == CXCursor_VarDecl && has_child(c, CXCursor_CUDADeviceAttr) && !has_child(c, CXCursor_CUDAConstantAttr) &&
            !clang_isConstQualifiedType(clang_getCursorType(c)))
          self->problem(self->out_.problems, c, "__device__ variable '" + spelling(c) + "'",
                        "MLX kernels have no global state; use a cudaMalloc scratch buffer");
        return CXChildVisit_Continue;
      },
      this);
  find_launch();
  for (auto& [key, fn] : functions_) visit_function(fn);
  // A pointer chosen between two address spaces (`vals = in_smem ? shared_buf : dst`, llama.cpp's softmax): a
  // Metal pointer points into one space, and the two are different types.
  for (auto& [key, fn] : functions_)
    for (CXCursor choice : fn.pointer_choices) {
      const std::vector<CXCursor> kids = children(choice);
      if (kids.size() != 3) continue;
      const std::string then_space = space_of(kids[1]), else_space = space_of(kids[2]);
      if (then_space != else_space)
        problem(fn.record.problems, choice, "pointer into " + then_space + " or " + else_space + " memory",
                "a Metal pointer points into one address space, and a conditional cannot choose between two: branch "
                "around the code that uses it, or copy into one space");
    }
  // Built-in variables and hoisted __shared__ variables used by __device__ functions are passed
  // down from the kernel.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [key, fn] : functions_)
      for (const auto& callee : fn.callees) {
        for (const auto& b : functions_.at(callee).builtins) changed |= fn.builtins.insert(b).second;
        for (const auto& h : functions_.at(callee).shared) changed |= fn.shared.insert(h).second;
      }
  }
  resolve_hoisted_types();
  resolve_lambdas();
  // A kernel's report covers the __device__ functions it calls, directly or not.
  for (auto& [key, fn] : functions_) {
    if (!fn.kernel) continue;
    KernelTranslation k = fn.record;
    k.name = spelling(fn.cursor);
    k.line = int(position(fn.cursor).line);
    k.launched = std::any_of(launches_.begin(), launches_.end(), [&](const Launch& l) { return l.kernel == key; });
    std::set<std::string> reached;
    std::vector<std::string> pending(fn.callees.begin(), fn.callees.end());
    while (!pending.empty()) {
      const std::string callee = pending.back();
      pending.pop_back();
      if (!reached.insert(callee).second) continue;
      const Function& f = functions_.at(callee);
      for (const auto& [construct, count] : f.record.translated) k.translated[construct] += count;
      k.problems.insert(k.problems.end(), f.record.problems.begin(), f.record.problems.end());
      pending.insert(pending.end(), f.callees.begin(), f.callees.end());
    }
    out_.kernels.push_back(std::move(k));
  }
  for (auto& [key, fn] : functions_) {
    if (fn.kernel || (fn.builtins.empty() && fn.shared.empty())) continue;
    std::string params;
    for (const auto& b : fn.builtins) params += ", uint3 " + kBuiltins.at(b);
    for (const auto& name : fn.shared) {
      const HoistedShared& h = hoisted_.at(name);
      const bool own = h.owner_key == key;
      params += fmt::format(", threadgroup {} (&{}){}", own ? h.element : h.resolved_element, own ? h.name : h.hoisted,
                            own ? h.dims : h.resolved_dims);
    }
    const std::vector<CXCursor> decl_params = parameters_of(fn.cursor);
    // Before the parameters with default arguments (`int width = warpSize`), which must come last.
    if (const size_t defaulted = first_defaulted(fn.cursor); defaulted < decl_params.size()) {
      rw_.insert(begin_offset(decl_params[defaulted]), params.substr(2) + ", ");
      continue;
    }
    const unsigned after = decl_params.empty() ? position(fn.cursor).offset : end_offset(decl_params.back());
    const size_t close = rw_.text().find(')', after);
    const bool none_kept = decl_params.size() == group_parameters(fn.cursor).size();
    rw_.insert(unsigned(close), none_kept ? params.substr(2) : params);
  }
  for (const auto& site : call_sites_) {
    const Function& callee = functions_.at(site.callee);
    if (callee.builtins.empty() && callee.shared.empty()) continue;
    std::string args;
    for (const auto& b : callee.builtins) args += ", " + kBuiltins.at(b);
    for (const auto& h : callee.shared) args += ", " + h;
    // A call that passes a defaulted parameter gets them before it, as the parameters are.
    const size_t defaulted = first_defaulted(callee.cursor);
    if (defaulted < size_t(clang_Cursor_getNumArguments(site.call)))
      rw_.insert(begin_offset(clang_Cursor_getArgument(site.call, unsigned(defaulted))), args.substr(2) + ", ");
    else
      rw_.insert(end_offset(site.call) - 1, site.arguments == 0 ? args.substr(2) : args);
  }
  std::string candidate = fmt::format("// Translated from {} by `ksearch port` (docs/TRANSLATE.md): ",
                                      std::filesystem::path(file_).filename().string());
  bool defined = !launches_.empty();
  for (size_t i = 0; i < launches_.size(); ++i) {
    auto kernel = functions_.find(launches_[i].kernel);
    if (kernel == functions_.end()) {
      problem(out_.problems, launches_[i].call, "kernel launch", "the launched kernel is not defined in this file");
      defined = false;
      continue;
    }
    candidate += fmt::format("{}kernel {}, line {}", i ? "; " : "", spelling(kernel->second.cursor), position(kernel->second.cursor).line);
  }
  if (defined && dispatch_) {
    candidate += ".\n" + dispatch_candidate();
    out_.candidate = candidate;
    out_.notes.push_back("the entry chooses among its launches: the candidate's directives choose the same way per workload");
  } else if (defined && launches_.size() == 1 && scratch_.empty()) {
    candidate += ".\n";
    for (const auto& d : directives(launches_[0])) candidate += d + "\n";
    candidate += header();
    candidate += "// --- body ---\n" + kernel_body(functions_.at(launches_[0].kernel), launches_[0].bindings);
    out_.candidate = candidate;
  } else if (defined) {
    // Several launches: a multi-kernel candidate (docs/METAL.md), each kernel with the file's header.
    candidate += ".\n";
    for (const auto& b : scratch_) candidate += b.directive + "\n";
    const std::string shared_header = header();
    for (const auto& launch : launches_) {
      candidate += "// --- kernel: " + launch.section + " ---\n";
      for (const auto& d : directives(launch)) candidate += d + "\n";
      candidate += fmt::format("// outputs: {}\n", fmt::join(launch.outputs, ", "));
      candidate += shared_header;
      candidate += "// --- body ---\n" + kernel_body(functions_.at(launch.kernel), launch.bindings);
    }
    out_.candidate = candidate;
  }
  clang_disposeTranslationUnit(unit_);
  clang_disposeIndex(index_);
  return out_;
}


}  // namespace

Translation translate_with_clang(const std::filesystem::path& cuda_file, const Task& task) {
  if (!std::filesystem::exists(cuda_file)) throw Error("CUDA file not found: " + cuda_file.string());
  return Translator(std::filesystem::absolute(cuda_file), task).run();
}

}  // namespace ksearch::translate
