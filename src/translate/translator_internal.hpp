#pragma once
// The translator's internal state and the pieces its files share (docs/TRANSLATE.md): the mapping
// table, what is known of each kernel, __device__ function and lambda of the file, and the Translator
// class, whose members are defined by concern:
//   translator.cpp        parsing, token edits, the order of the passes (run)
//   mappings.cpp          the embedded mapping table, Metal helpers and CUDA declarations
//   entry.cpp             the entry: its launches, launchers, scratch buffers, host values
//   kernel_arguments.cpp  one launch: geometry, template arguments, kernel parameters bound
//   struct_arguments.cpp  struct arguments of kernels rebuilt in the body, pointer fields templated
//   dispatch.cpp          alternative launches as one kernel choosing per workload
//   device_code.cpp       the walk over device code: names, declarations, volatile stores
//   calls.cpp             calls of CUDA functions mapped through mappings.toml
//   ptx.cpp               inline PTX that ports (cp.async)
//   functions.cpp         __device__ function signatures, what kernels pass down to them
//   groups.cpp            cooperative groups handle types, libcu++'s pipelines and barriers
//   cub.cpp               CUB's block and warp collectives
//   types.cpp             Metal types and address spaces
//   writes.cpp            whether a function may write through a pointer parameter
//   fills.cpp             launches that only fill a buffer, folded into the next writer's init_value
//   constant_symbols.cpp  __constant__ memory the entry fills from a buffer, read from that buffer
//   lambdas.cpp           device lambdas as function-object structs
//   output.cpp            the candidate: directives, header, kernel body
// Nothing outside src/translate/translator*.cpp and these files includes it (translate.hpp is the interface).
#include <algorithm>
#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "translate/clang_util.hpp"
#include "translate/launch.hpp"
#include "translate/macros.hpp"
#include "translate/rewriter.hpp"
#include "translate/translate.hpp"

namespace ksearch::translate::detail {

using tasks::EntrySpec;
using tasks::Task;
using tasks::TensorSpec;

// ------------------------------------------------------------------- the mapping table (mappings.cpp)
struct FunctionMapping {
  std::string metal;  // a name, or a pattern with $1.., $space, $T
  std::vector<std::string> helpers;
  int width_arg = 0;  // 1-based argument: a warp width, absent or 32 for `metal`
  std::string segmented;  // the pattern for a width below 32 ("": not translated)
  std::vector<std::string> segmented_helpers;
  std::string note;   // added to the notes when used
  std::string threadgroup;  // an array the pattern names ("int ks_votes[32]"), declared by the kernel
};

struct Mappings {
  std::map<std::string, FunctionMapping> functions;
  std::map<std::string, std::string> untranslatable;
  std::map<std::string, std::string> types;  // token (or `std::NAME`) -> Metal spelling: [types] and [macros]
  std::map<std::string, std::vector<std::string>> type_helpers;  // the helpers a [types] spelling names
  std::map<std::string, std::string> helpers;  // name -> code
};

// The table of src/translate/mappings.toml and the helpers of the Metal helper files, as embedded.
Mappings load_mappings();
// The CUDA declarations are written to the cache once per content, and clang includes them from there.
std::filesystem::path cuda_include_dir();

// Metal names of CUDA's built-in variables (MLX declares them when the body names them).
extern const std::map<std::string, std::string> kBuiltins;  // device_code.cpp
// The MLX template dtypes of CUDA's scalar types (template arguments, scratch buffers).
extern const std::map<std::string, std::string> kTemplateTypes;  // kernel_arguments.cpp

// -------------------------------------------------------------- functions, lambdas, calls of them
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

// The name of an extern __shared__ array in the kernel (SharedMemory<T>'s `__smem`, a reserved name in Metal, as
// `ks_smem`).
std::string dynamic_shared_name(CXCursor array);  // shared_accessors.cpp

// A type in threadgroup memory: `threadgroup float`, but a pointer's own space follows its `*` (`const device float*
// threadgroup`), since a space before the type is the pointee's.
inline bool is_pointer_spelling(const std::string& type) {
  const size_t last = type.find_last_not_of(' ');
  return last != std::string::npos && type[last] == '*';
}
inline std::string in_threadgroup(const std::string& type) {
  return is_pointer_spelling(type) ? type + " threadgroup" : "threadgroup " + type;
}
// The declaration of a variable (`name` with its dimensions) of threadgroup memory. A pointer's type is named first
// (`typedef const device float* KsSharedPointer_row; threadgroup KsSharedPointer_row row[4];`, its own space before a
// name applies to the pointer): metalsim, as Metal's compiler, reads `threadgroup TYPE NAME[...]`.
inline std::string threadgroup_declaration(const std::string& type, const std::string& name, const std::string& dims) {
  if (!is_pointer_spelling(type)) return "threadgroup " + type + " " + name + dims + ";";
  return "typedef " + type + " KsSharedPointer_" + name + "; threadgroup KsSharedPointer_" + name + " " + name + dims + ";";
}

// A static __shared__ variable of a __device__ function. Metal declares threadgroup memory in the
// kernel only, so the kernel declares it (one per threadgroup, as in CUDA) under a hoisted name and
// passes it by reference down to the function, which keeps its own name for it.
struct HoistedShared {
  std::string owner_key;     // the declaring function
  std::string name, hoisted;  // `sm`, `block_merge_sm`
  std::string element, dims;  // `float`, `[32]`
  std::string resolved_element, resolved_dims;  // as the kernel declares them: a function template's parameters bound by its calls
  bool dynamic = false;  // extern __shared__: a pointer into the kernel's dynamic shared memory, no dims
  // How a function taking it declares it (`threadgroup float (&sm)[32]`, `threadgroup float* sm`): under its own name
  // in the declaring function, as the kernel's variable elsewhere.
  std::string parameter(bool own) const {
    const std::string& type = own ? element : resolved_element;
    const std::string& named = own ? name : hoisted;
    return dynamic ? "threadgroup " + type + "* " + named
                   : in_threadgroup(type) + " (&" + named + ")" + (own ? dims : resolved_dims);
  }
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
  // an extended `__device__` lambda the entry makes and passes to a kernel: its captures are the entry's values
  bool host = false;
  std::vector<std::string> call_templates;  // its operator()'s template parameters (`auto` and pointer parameters)
  // Set once every function is visited (resolve_lambdas):
  std::vector<std::string> outer_templates, outer_names;  // the enclosing templates' parameters, which the struct takes
  std::vector<LambdaMember> members;
};

// A call of a __device__ function of the file: it passes what the kernel passes down (built-in variables, hoisted
// __shared__ arrays) too.
struct CallSite {
  CXCursor call;
  std::string callee;
  size_t arguments = 0;  // those left in the call (group handles are dropped)
  std::string caller;     // the function the call is written in
};

// ------------------------------------------------------------- cooperative groups (groups.cpp)
// A cooperative group handle's type (also a reference to one), or one of libcu++'s synchronization objects
// (cuda::pipeline, cuda::barrier, their shared state and arrival tokens): its methods become threadgroup and
// SIMD-group functions or nothing, so the object itself has no Metal counterpart. A tile's width is its size as
// written: "32", "16", or a template parameter's name ("TILE", which a kernel's template directive binds).
struct Group {
  enum Kind { none, block, tile, grid, pipeline, barrier, sync_state } kind = none;
  std::string width;
  bool block_scope = false;  // a pipeline's: the block's copies (a barrier where it waits), or the thread's own
  bool literal() const { return !width.empty() && std::all_of(width.begin(), width.end(), ::isdigit); }
};

// The group a handle's type (or a reference to one) names: none for any other type.
Group group_of(CXType type);

// The group whose method a call calls (`tile.shfl_down(v, 1)`), also when the handle's type depends
// on a template parameter and clang leaves the method unresolved.
Group method_group(CXCursor call);

// libcu++'s cuda::atomic_ref (a reference to one too), and the object one is made of (`cuda::atomic_ref<float>
// ref(y[i])`, also a temporary's) under an expression: a null cursor where there is none.
bool is_atomic_ref(CXType type);
// cooperative groups' run-time handle, cg::thread_group (a reference to one too): thread_groups.cpp writes its type out.
bool is_thread_group(CXType type);
bool is_atomic_object(CXType type);  // cuda::atomic<T, scope>
CXCursor atomic_referent(CXCursor c);

// Why a tile of this width is not translated ("" when it is): tiles are segments of a SIMD group (32
// lanes); a size known only from a template parameter is translated where the kernel's template
// directive binds it, not as a __device__ function's parameter, which the port drops.
std::string tile_refusal(const Group& g, bool in_parameter);

// Which parameters of a function are group handles.
std::vector<size_t> group_parameters(CXCursor function);
// The text with each cg::thread_group handle whose group is known written as that group's type, and each run-time
// tiled_partition(parent, N) of a constant size as tiled_partition<N>(parent) (thread_groups.cpp); `unit` parses `text`.
std::string concrete_thread_groups(CXTranslationUnit unit, const std::string& text);

// ------------------------------------------------------------------------------- shared helpers
// types.cpp:
// A typedef or alias of the file naming a pointer type (`typedef float* fptr;`).
bool pointer_typedef(CXCursor decl);
// The parameters of a function that are references (group handles aside, which are dropped).
std::vector<size_t> reference_parameters(CXCursor function);

// functions.cpp:
// The text that removes `items[i]` of a comma-separated list (parameters, arguments) for each i
// in `drop` (ascending), commas included, as ranges that do not overlap.
std::vector<std::pair<unsigned, unsigned>> list_removals(const std::vector<CXCursor>& items, const std::vector<size_t>& drop);

// calls.cpp: the mapping key of a function of namespace std (libcu++'s cuda::std too) that the table names as such
// (`std::popcount`), else its name.
std::string std_key(CXCursor callee, const Mappings& maps);

// Each whole-word `word` of `text` (not part of a longer identifier) replaced by `by`.
std::string whole_words(std::string text, const std::string& word, const std::string& by);

// ------------------------------------------------------------------------- the translator's state
class Translator {
 public:
  Translator(const std::filesystem::path& file, const Task& task);

  Translation run();

 private:
  // parsing and classification (translator.cpp)
  void parse();
  void blank_skipped_code();
  void drop_narrowed_duplicates();
  bool from_prelude(CXCursor declaration) const {
    return position(declaration).file.rfind(include_dir_.string(), 0) == 0;
  }
  bool in_main_file(CXCursor c) const { return clang_Location_isFromMainFile(clang_getCursorLocation(c)); }
  // Declared constexpr (before its name), which CUDA lets device code call (--expt-relaxed-constexpr). Read from the
  // text: a declaration that starts with a macro (`__host__ __device__ constexpr`) tokenizes to nothing.
  bool is_constexpr(CXCursor function) const {
    const unsigned b = begin_offset(function), name_at = position(function).offset;
    const std::string head = name_at > b ? text(b, name_at) : std::string();
    for (size_t at = head.find("constexpr"); at != std::string::npos; at = head.find("constexpr", at + 1)) {
      const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      if ((at == 0 || !word(head[at - 1])) && (at + 9 == head.size() || !word(head[at + 9]))) return true;
    }
    return false;
  }
  void problem(std::vector<Problem>& to, CXCursor at, std::string construct, std::string reason) {
    const Position p = position(at);
    to.push_back({file_, int(p.line), int(p.column), std::move(construct), std::move(reason)});
  }
  std::string text(unsigned b, unsigned e) const { return rw_.text().substr(b, e - b); }
  // A line of the text parsed as the line of the file it comes from (the file's or one of its headers': included_).
  unsigned source_line(unsigned line) const {
    return line > 0 && line <= included_.lines.size() ? included_.lines[line - 1].second : line;
  }
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

  // edits of the whole file (translator.cpp, types.cpp)
  void token_edits();
  void expand_pointer_typedefs();
  // the entry (entry.cpp)
  void find_launch();
  std::pair<std::string, std::string> memset_fill(CXCursor memset_call);
  // MLX takes a kernel's init_value as a float: whether an integer buffer's initial value survives it.
  static bool init_value_holds(long long v) { return static_cast<long long>(static_cast<float>(v)) == v; }
  void add_host_helper(CXCursor call);
  void add_scratch(CXCursor malloc_call);
  void add_scratch_part(CXCursor var);
  // device code (device_code.cpp)
  void visit(CXCursor c, Function& fn);
  void refuse_function_pointer(CXCursor declaration, Function& fn);
  void refuse_tuple(CXCursor declaration, CXType type, Function& fn);
  void span_declaration(CXCursor var, Function& fn);
  std::set<std::string> other_space_spans_;  // spans viewing memory outside device buffers (span_declaration)
  CXCursor functor_operator(CXCursor call, Function& fn);
  bool volatile_store(CXCursor assignment, Function& fn);
  bool map_declaration(CXCursor var, Function& fn);
  void rebind_pointer_variables(CXCursor block);
  void static_local(CXCursor var, Function& fn);
  void shared_pointer_declaration(CXCursor var, CXType element, CXCursor root, Function& fn);
  bool atomic_reference(CXCursor var, Function& fn);
  // dynamic shared memory accessors (shared_accessors.cpp)
  void find_shared_accessors();
  CXCursor shared_accessor_array(CXCursor expression);  // the extern __shared__ array an accessor call returns
  void note_accessor_target(CXCursor expression, CXType target);
  bool map_shared_accessor(CXCursor call, Function& fn);
  void pass_down_dynamic_shared(Function& fn, CXCursor array);
  bool drop_accessor_object(CXCursor var);  // `SharedMemory<T> smem;`: true when dropped
  bool atomic_object_declaration(CXCursor var, Function& fn);
  void shared_record_definition(CXCursor var);
  // inline PTX that ports (ptx.cpp): cp.async, one-instruction math
  bool used_as_shared_address(CXCursor scope, const std::string& key, int depth);
  bool shared_address_parameter(CXCursor param, int depth = 0);
  CXCursor shared_pointer(CXCursor address);
  // `base + bytes` (also `bytes + base`, `base + a + b`): the base for which `is_base` holds and the byte offsets added
  struct ByteOffset {
    CXCursor base;
    std::vector<CXCursor> offsets;
  };
  std::optional<ByteOffset> byte_offset(CXCursor operand, const std::function<bool(CXCursor)>& is_base);
  void pass_shared_address(CXCursor argument, Function& fn);
  bool shared_address_variable(CXCursor var, Function& fn);
  bool port_ptx(CXCursor statement, Function& fn);
  // CUB's collectives (cub.cpp): true when the cursor and its children were visited
  bool visit_cub(CXCursor c, Function& fn);
  std::string cub_collective(CXType type);
  std::string cub_collective_named(CXCursor decl);
  bool shuffle_by_members(CXType record);  // a struct the collectives shuffle member by member (noted for the header)
  // Why a value cannot pass through Metal's shuffles (a struct that shuffle_by_members refuses), "" where it can.
  std::string shuffle_refusal(CXType value);
  std::string member_shuffles(CXCursor record);
  std::string cub_refusal(CXCursor top) const;  // why a declaration of namespace cub is not rewritten ("" when it is)
  void host_cub_call(CXCursor call);
  // calls of CUDA functions (calls.cpp)
  void map_call(CXCursor call, CXCursor callee, Function& fn);
  void init_barrier(CXCursor call);
  void convert_arguments(CXCursor callee, const std::vector<CXCursor>& args);
  // __device__ functions (functions.cpp)
  void visit_function(Function& fn);
  void wrap_function_arguments(CXCursor call, Function& fn);
  std::string function_object(CXCursor named, CXCursor written, Function& fn);
  void function_pointer_template_parameters(Function& fn);
  void default_pointee_parameters(Function& fn, const std::vector<CXCursor>& params);
  void function_template_arguments(CXCursor call, CXCursor callee, Function& fn);
  void device_function_signature(Function& fn);
  void name_pointer_deduced_templates(CXCursor call, CXCursor function, const std::vector<CXCursor>& args, Function& fn);
  std::vector<std::string> parameter_templates(const std::vector<CXCursor>& params, Function& fn);
  void resolve_hoisted_types();
  std::string with_local_constants(CXCursor function, CXCursor array, std::string dims);
  void pass_down_kernel_state();
  void check_records();
  void run_time_recursion();
  void resolve_pointer_parameter_spaces();
  std::string pointer_root(CXCursor expression, int depth = 0);
  CXCursor pointer_operand(CXCursor expression);
  std::string returned_space(const std::string& function);
  std::set<std::string> assigned_spaces(const std::string& key, const std::string& function);
  void index_through_first_component(CXCursor subscript);
  // lambdas (lambdas.cpp)
  void visit_lambda(CXCursor lambda, Function& fn);
  bool is_device_lambda(CXCursor lambda) const;  // annotated __device__ (an extended lambda of the host)
  // The extended __device__ lambda a kernel argument is (`scale`, initialized with one, or the lambda itself), ported
  // as a function object of the kernel: its value there (`KsLambda35_scale<...>{weight}`), or "" for another argument.
  std::string host_lambda(CXCursor argument, const std::string& kernel);
  void resolve_lambdas();
  void resolve_lambda(Lambda& lambda);  // its members and the address spaces its reference parameters bind
  std::string lambda_site(const Lambda& lambda);
  std::string lambda_struct(const Lambda& lambda);
  std::string body_name(CXCursor variable) const;
  // types and address spaces (types.cpp)
  std::string metal_type(CXType t);
  std::string unqualified_type(CXType t);  // metal_type of the canonical type without its const
  std::string space_of(CXCursor expression);
  std::string spaced_pointer(CXType pointer, const std::string& space);
  std::string stored_space(CXCursor var, CXCursor scope, Function& fn, CXCursor* root = nullptr);
  std::string bound_space(CXCursor argument);
  std::set<std::string> resolved_spaces(const std::string& space, int depth = 0) const;
  std::string object_space(CXCursor call, CXCursor callee, std::vector<CXCursor>& args);
  std::string with_reference_spaces(const Function& fn, const std::string& text);
  void map_cast(CXCursor cast);
  bool points_into_read_only(CXCursor pointer, bool through_const = false, int depth = 0);
  // writes.cpp
  bool may_write_through(CXCursor function, CXCursor parameter, int depth = 0);
  // fills.cpp: a launch whose kernel only stores one value (a directive expression) into one buffer.
  struct Fill {
    std::string buffer, value;
  };
  std::optional<Fill> constant_fill(CXCursor launch_call, const std::vector<std::string>& buffers);  // per argument
  bool uniform_call(CXCursor call);
  void shared_pointer_field(CXCursor c, Function& fn);

  // output (output.cpp)
  std::string header();
  std::string in_namespaces(CXCursor declaration, std::string text);
  std::string first_local_named(CXCursor record, CXCursor function);  // struct_arguments.cpp
  std::string kernel_body(const Function& kernel, const std::vector<std::string>& bindings);
  void write_candidate();

  std::string file_;
  const Task& task_;
  const EntrySpec& entry_;
  Mappings maps_;
  IncludedText included_;  // the file with its own quoted headers' text, and where each line comes from
  std::string source_;     // the file before its macros are expanded
  MacroExpansion macros_;  // the file as parsed and rewritten: its own macros expanded
  Rewriter rw_;
  std::string visiting_;  // the decl key of the function being visited (what `this` is in a method)
  std::set<std::string> reported_fields_;  // reference and function-pointer members reported (once each)
  std::filesystem::path include_dir_;
  std::set<std::string> refuse_toolkit_headers();
  CXIndex index_ = nullptr;
  CXTranslationUnit unit_ = nullptr;
  Translation out_;
  std::map<std::string, Function> functions_;  // kernels and __device__ functions by decl_key
  // Definitions left out of the port: a double variant that narrowing to float makes a second definition of a float one.
  std::set<std::string> dropped_definitions_;
  std::vector<CallSite> call_sites_;
  std::map<std::string, HoistedShared> hoisted_;  // by hoisted name
  std::map<std::string, std::string> spaces_;        // decl_key of a variable -> its address space
  // A __device__ function's pointer parameter whose type became a template parameter (parameter_templates): its
  // function and position, whose calls give its space (resolve_pointer_parameter_spaces).
  struct PointerParameter {
    std::string function;
    size_t index;
  };
  std::map<std::string, PointerParameter> pointer_parameters_;
  // A local pointer variable (decl_key) and its initializer, whose space it takes: asked again once the parameters'
  // spaces are known.
  std::map<std::string, CXCursor> pointer_initializers_;
  // A local pointer declared without a value or null, with its function (decl_key) and declaration: its space is the
  // one its assignments give.
  std::map<std::string, std::pair<std::string, CXCursor>> assigned_pointers_;
  // A cast or atomic whose pointer operand names its address space (`(threadgroup float4*)p`), with its function: one
  // of a pointer parameter that calls give pointers into several spaces cannot be written for all of them.
  std::vector<std::pair<std::string, CXCursor>> space_casts_;
  std::set<std::string> returning_;  // functions whose returned pointers' space is being asked (recursion guard)
  // A kernel's template type parameter (decl_key) -> the structs of the file its launches give it (a functor type).
  std::map<std::string, std::vector<CXType>> bound_records_;
  std::map<std::string, std::string> param_renames_;  // decl_key of a kernel parameter -> body name
  // a kernel's function template parameter (`template <T (*ACT_FN)(const T&)>`) -> the function a launch gives it
  std::map<std::string, CXCursor> bound_functions_;
  std::map<std::string, std::string> keyword_renames_;  // identifiers that are Metal keywords -> their names
  std::set<unsigned> statement_calls_;  // begin offsets of calls whose value is discarded (statements of their own)
  std::vector<Position> wide_integers_;  // where the file names a 128-bit integer type (reported if it reaches the port)
  static constexpr const char* kWideIntegerMark = "_ksearch_wide_";  // spelling + mark + index in wide_integers_
  std::vector<CXCursor> dynamic_shared_;             // extern __shared__ declarations
  std::map<std::string, CXCursor> shared_accessors_;  // decl_key of an accessor -> the extern __shared__ array it returns
  // function objects standing for functions passed as arguments: name -> (the function, the struct's text)
  std::map<std::string, std::pair<CXCursor, std::string>> function_objects_;
  std::set<std::string> functor_parameters_;  // function-pointer template parameters that became type parameters
  std::set<std::string> shuffled_records_;  // decl_keys of structs that get member-wise shuffle overloads
  std::set<std::string> accessor_records_;  // decl_keys of structs whose methods are all accessors (SharedMemory<T>)
  std::map<unsigned, CXType> accessor_targets_;  // a template's accessor temporary -> the pointer type it converts to
  std::set<unsigned> automatic_ends_;  // where declarators written `auto` (or split off) end
  std::vector<std::pair<unsigned, unsigned>> for_inits_;  // the initializers of for statements
  std::set<std::string> helpers_;
  // decl_keys of kernel pointer parameters without const that every launch gives a task input (`float* data` given
  // x), or a buffer the kernel does not write: read-only in Metal; and of those some launch gives another buffer
  std::set<std::string> read_only_parameters_, other_buffer_parameters_;
  // decl_keys of kernel pointer parameters with const that a launch gives a task input (with other_buffer_parameters_
  // for those some launch gives another buffer): what a const_cast of one points to is read-only in Metal too
  std::set<std::string> const_input_parameters_;
  std::vector<std::function<bool()>> read_only_casts_;  // whether each cast to a T* without const reads an input
  std::set<std::string> launched_reach_;  // decl_keys of the __device__ functions the launched kernels call
  std::map<std::string, bool> shared_address_parameters_;  // decl_key of an integer parameter -> whether it is one
  std::set<unsigned> cvta_followed_;  // __cvta_generic_to_shared calls (or a helper's) replaced by their pointer
  std::set<unsigned> cub_constructions_;  // where the thread's position was added to a CUB collective's constructor
  std::vector<Lambda> lambdas_;  // in the order their visits end: a nested lambda before the one holding it
  std::map<unsigned, CXCursor> lambda_variables_;  // where a lambda starts -> the variable it initializes
  // The variable of a lambda -> per call of it, the address spaces its arguments bind (for its reference parameters).
  std::map<std::string, std::vector<std::vector<std::string>>> lambda_calls_;
  std::map<std::string, std::string> reference_spaces_;  // a lambda's reference parameter -> the space it binds
  // ---- the host side: the entry (entry.cpp), each launch (kernel_arguments.cpp), its struct arguments
  // (struct_arguments.cpp), alternative launches (dispatch.cpp)
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
    std::string init_value;  // what the buffers it writes hold before it (a cudaMemset or a fill launch), if anything
    std::vector<std::string> bindings;
    std::vector<std::string> outputs;  // the buffers it writes (task outputs, scratch)
    CXCursor chosen = clang_getNullCursor();  // the kernel of this alternative of a launch through a chosen pointer
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
  // `nested` chooses among several launches that one statement makes through one launcher call (their indices), by
  // the launcher's own branches; without it they are launches in sequence.
  using NestedChoice = std::function<std::shared_ptr<Choice>(const std::vector<int>&)>;
  std::shared_ptr<Choice> choice_in(CXCursor statement, const std::vector<CXCursor>& launches,
                                    const NestedChoice& nested = nullptr);  // dispatch.cpp
  // A launch through a function pointer a conditional initializes: the choice among the kernels it may name (added to
  // `kernels`, a leaf per kernel), or null. dispatch.cpp
  std::shared_ptr<Choice> pointer_choice(CXCursor launch_call, std::vector<CXCursor>& kernels);
  std::vector<std::string> directives(const Launch& launch) const;  // output.cpp
  std::string dispatch_candidate();  // dispatch.cpp
  std::shared_ptr<Choice> dispatch_;  // set when the entry's launches are alternatives
  // A cudaMalloc'd buffer of the entry: a scratch buffer of the candidate. One of a struct of the file is a buffer of
  // words (MLX arrays hold scalars) that each kernel using it views as the struct through `view`, a cast pointer.
  struct Scratch {
    std::string key, name, directive;
    std::string record, view;  // the struct's Metal type and the view's name, or empty
    std::string dtype, elements;  // the directive's dtype and element count
    std::string part_of;  // a part at an offset (`float* sums = ws + rows;`): the allocation's name
    bool read_only = false;  // a part through a pointer to const
  };
  // (`written`: where the kernel's template arguments are written, set when the initializer names a kernel template)
  CXCursor kernel_of_pointer(CXCursor variable, const Launch& launch, CXCursor* written = nullptr);
  // initial: what buffers hold before the launches (a cudaMemset's 0, a fill launch's value), as directive expressions
  void translate_launch(Launch& launch, const std::map<std::string, std::string>& initial,
                        std::vector<std::string>& written);  // kernel_arguments.cpp
  std::string null_if_absent(const std::string& value) const;
  // entry.cpp:
  void map_host_calls(CXCursor argument);
  std::set<unsigned> host_calls_;  // calls of kernel arguments and locals whose initializers were mapped (map_host_calls)
  std::string buffer_of(CXCursor argument);
  std::string buffer_named(const std::string& decl_key) const;  // the task tensor or scratch buffer a variable names, or ""
  bool task_input(const std::string& buffer) const;
  CXCursor launching_function(CXCursor call);
  bool launches(CXCursor code);
  CXCursor lambda_operator(CXCursor expression) const;
  std::vector<CXCursor> launch_arguments(CXCursor launch) const;
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
    std::map<std::string, CXCursor> functions;      // decl_key of a function template parameter -> the argument written
    std::map<std::string, std::vector<CXCursor>> packs;  // decl_key of a parameter pack -> the arguments it takes
  };
  LauncherCall launcher_call_;                    // the call being walked or translated
  // Puts host_ back as it was when it leaves its scope, also through an exception.
  struct KeepHostScope {
    Translator& translator;
    HostScope saved = translator.host_;
    ~KeepHostScope() { translator.host_ = std::move(saved); }
  };
  // `work()` as a launch inside a launcher call is read (in the call's scope, with its uses; none: the entry's scope).
  template <typename Work>
  auto in_call(const std::optional<LauncherCall>& call, Work work) {
    KeepHostScope keep{*this};
    if (call) {
      launcher_call_ = *call;
      host_ = call->scope;
    }
    return work();
  }
  // fills.cpp: drops the launches that only fill a buffer before another launch writes it (the entry's launches, the
  // launcher call each is in, the buffer each argument names), adding their values to `initial`.
  void fold_fills(std::vector<CXCursor>& launches, std::vector<std::optional<LauncherCall>>& calls,
                  const std::vector<std::vector<std::string>>& buffers, std::map<std::string, std::string>& initial);
  std::set<std::string> launchers_edited_;        // launchers whose parameter uses are edits already
  std::set<std::string> searching_;               // functions launching_function is looking into
  std::string host_value(CXCursor var, unsigned at);
  std::string host_value(CXCursor var, unsigned at, CXType type, const std::string& member, const std::function<std::string()>& initial);
  std::string struct_binding(CXType record, CXCursor arg, const std::string& name,
                             const std::function<void(CXCursor)>& writes_through);  // struct_arguments.cpp
  // The type of a type reference or an expression as the launcher being walked binds it: its
  // template type parameters (`Op`, also as the type of its parameter `Op op`) are the call's types.
  CXType launcher_type(CXCursor c) {
    const CXCursor named = written_type(c);
    auto bound = clang_Cursor_isNull(named) ? launcher_call_.types.end() : launcher_call_.types.find(decl_key(named));
    return bound != launcher_call_.types.end() ? bound->second : clang_getCursorType(c);
  }
  bool struct_field_edit(CXCursor member);  // entry.cpp
  // struct_arguments.cpp:
  std::string record_name(CXType record);
  void device_pointer_fields(CXType record, const std::set<unsigned>& templated = {});
  // A read-only pointer field of a struct, as the fields leading to it from the struct (`{x, data}` for `args.x.data`).
  using FieldPath = std::vector<CXCursor>;
  std::vector<FieldPath> templatable_fields(CXType record, const std::string& holder = "", const std::set<unsigned>& given_inputs = {});
  void template_record(CXType record, const std::vector<FieldPath>& leaves);
  void local_aggregate(CXCursor var);
  std::set<unsigned> device_fields_;  // struct fields whose pointers were given `device`
  // Structs passed to kernels (and the structs they hold) whose read-only pointer fields became template parameters
  // (by decl key, with the paths to those fields, one parameter each): each field takes the type of the buffer it is
  // given, `device` or `constant` (MLX passes an input of fewer than 8 elements in constant memory, and Metal
  // converts no pointer between the two).
  std::map<std::string, std::vector<FieldPath>> templated_records_;
  // Structs declared in a function whose fields became template parameters: a template cannot be local, so the
  // definition moves to the header before `anchor` (the file-level declaration holding it), after `head`.
  struct LocalRecord {
    CXCursor decl, anchor;
    std::string head;  // `template <typename KsField0> `
  };
  std::vector<LocalRecord> local_records_;
  std::set<std::string> namespaces_;  // the named namespaces the header declares things in
  std::vector<Launch> launches_;
  std::vector<Scratch> scratch_;
  // __constant__ symbols the entry fills (decl_key -> the symbol's name, and the buffer it is copied from, or the
  // host scalars copied into its elements), and their bindings in the kernels that read them (constant_symbols.cpp)
  struct ConstantSource {
    std::string symbol, buffer;
    std::map<long long, CXCursor> values;  // element -> the entry's scalar copied there
    std::string type;                      // their Metal type
    bool array = false;
    long long elements = 1;
  };
  std::map<std::string, ConstantSource> constant_sources_;
  std::set<std::string> initialized_symbols_;  // those given a host table's brace list in the header
  void constant_symbol_copy(CXCursor call);
  void bind_constant_symbols(CXCursor kernel, Launch& launch);
  void constant_symbols_in_functions();
  const Scratch* scratch_of(const std::string& decl_key) const {  // the scratch buffer a host variable holds, or none
    for (const Scratch& b : scratch_)
      if (b.key == decl_key) return &b;
    return nullptr;
  }
  HostScope host_;
};

}  // namespace ksearch::translate::detail
