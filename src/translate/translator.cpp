// The libclang side of the translator (docs/TRANSLATE.md). The CUDA file is parsed once; every
// CUDA construct found in the AST becomes an edit of the source text (a range and what replaces
// it, rendered recursively so that edits nest: a shuffle's argument may itself use threadIdx), as
// source-to-source translators built on Clang do. The kernel the entry launches becomes the MLX
// body, __device__ functions and file-scope types and constants the header. This file parses, makes
// the token edits and runs the passes in order; translator_internal.hpp lists the files doing each.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <regex>

#include "core/error.hpp"
#include "core/paths.hpp"

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// The __CUDA_ARCH__ whose branches a port takes: Volta's, the first with the `_sync` warp functions
// that Metal's SIMD groups match, below the branches that use cp.async or bf16 tensor cores.
constexpr int kDeviceArch = 700;

// A toolkit header as an include names it: its path below the include directory (`cooperative_groups/scan.h`).
std::string as_included(const std::string& path) {
  const size_t at = path.rfind("/include/");
  return at == std::string::npos ? std::filesystem::path(path).filename().string() : path.substr(at + 9);
}

// The lines (from 1) of the main file that the preprocessor skips (the inactive branches of its conditionals).
std::set<unsigned> skipped_lines(CXTranslationUnit unit, const std::string& file) {
  std::set<unsigned> out;
  if (CXSourceRangeList* ranges = clang_getSkippedRanges(unit, clang_getFile(unit, file.c_str()))) {
    for (unsigned i = 0; i < ranges->count; ++i)
      for (unsigned line = position(clang_getRangeStart(ranges->ranges[i])).line;
           line <= position(clang_getRangeEnd(ranges->ranges[i])).line; ++line)
        out.insert(line);
    clang_disposeSourceRangeList(ranges);
  }
  return out;
}

}  // namespace

Translator::Translator(const std::filesystem::path& file, const Task& task)
    : file_(file.string()),
      task_(task),
      entry_(task.entry("cuda")),
      maps_(load_mappings()),
      included_(include_local_headers(file)),
      source_(launches_as_chevrons(alignas_first(select_arch_branches(included_.text, kDeviceArch)))),
      macros_(expand_file_macros(source_)),
      rw_(macros_.text) {}

// clang's errors for a name it does not know (CUDA's, perhaps, that cuda_include/ does not declare).
constexpr std::array<const char*, 5> kUnknownNameErrors = {"undeclared identifier", "no member named", "no type named",
                                                           "unknown type name", "no template named"};

void Translator::parse() {
  include_dir_ = cuda_include_dir();
  const std::string include_flag = "-I" + include_dir_.string();
  const std::vector<const char*> args = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++20",
                                         "-Wno-unknown-cuda-version", include_flag.c_str(), "-include", "ksearch_cuda.h"};
  index_ = clang_createIndex(0, 0);
  auto parse_text = [&](const std::string& text) {
    CXUnsavedFile expanded{file_.c_str(), text.c_str(), static_cast<unsigned long>(text.size())};
    CXTranslationUnit unit = nullptr;
    const CXErrorCode rc = clang_parseTranslationUnit2(index_, file_.c_str(), args.data(), int(args.size()), &expanded, 1,
                                                       CXTranslationUnit_DetailedPreprocessingRecord, &unit);
    if (rc != CXError_Success || !unit) throw Error("ksearch port: clang could not parse " + file_);
    return unit;
  };
  // Macros defined in conditionals expanded as the preprocessor chooses (`#ifdef __CUDACC__`, which the parse defines as
  // nvcc does): its skipped lines, the same in the expanded text (directives are kept line for line), take no effect.
  if (macros_.conditional) {
    CXTranslationUnit first = parse_text(rw_.text());
    const std::set<unsigned> skipped = skipped_lines(first, file_);
    clang_disposeTranslationUnit(first);
    macros_ = expand_file_macros(source_, skipped);
    rw_ = Rewriter(macros_.text);
  }
  // Run-time group handles (and a template's `auto` tiles) written as the groups they hold, then the file parsed as the
  // port reads it.
  if (rw_.text().find("thread_group") != std::string::npos || rw_.text().find("tiled_partition") != std::string::npos) {
    CXTranslationUnit first = parse_text(rw_.text());
    const std::string concrete = concrete_thread_groups(first, rw_.text());
    clang_disposeTranslationUnit(first);
    if (concrete != rw_.text()) rw_ = Rewriter(concrete);
  }
  unit_ = parse_text(rw_.text());
  // The errors inside a toolkit header (and clang's "too many errors" after them) are its include's one problem.
  const std::set<std::string> toolkit = refuse_toolkit_headers();
  for (unsigned i = 0; i < clang_getNumDiagnostics(unit_); ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit_, i);
    const Position p = position(clang_getDiagnosticLocation(d));
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && (toolkit.empty() || (!p.file.empty() && !toolkit.count(p.file)))) {
      // A name clang does not know may be CUDA's that the translator does not declare; other errors are the file's.
      const std::string said = take(clang_getDiagnosticSpelling(d));
      const bool unknown_name = std::any_of(kUnknownNameErrors.begin(), kUnknownNameErrors.end(),
                                            [&](const char* e) { return said.find(e) != std::string::npos; });
      const bool not_found = said.find("file not found") != std::string::npos;
      out_.problems.push_back({p.file.empty() ? file_ : p.file, int(p.line), int(p.column), "parse error",
                               said + (unknown_name ? " (the translator knows the CUDA API declared in src/translate/cuda_include/)"
                                       : not_found  ? " (the port reads a quoted header from the folder of the file including "
                                                      "it, and the CUDA API from src/translate/cuda_include/)"
                                                    : "")});
    }
    clang_disposeDiagnostic(d);
  }
  host_.unit = unit_;
  if (!macros_.expanded.empty())
    out_.notes.push_back(fmt::format("macros of the file expanded where they are used: {}", fmt::join(macros_.expanded, ", ")));
}

// A CUDA header that cuda_include/ does not declare can still be found where a machine has the toolkit (its headers
// in /usr/local/include): parsed host-side, it declares little or nothing of its device API, which then neither ports
// nor is reported. Its include is reported instead, alike on every machine. Returns the toolkit's headers the parse
// read (as clang names them), the ones the file includes and theirs.
std::set<std::string> Translator::refuse_toolkit_headers() {
  struct Seen {
    Translator* self;
    std::filesystem::path ours;
    std::set<std::string> reported, toolkit;
    // a CUDA toolkit header (by its real path: /usr/local/include's are links into the toolkit), not one of ours
    bool is_toolkit(const std::string& name) const {
      std::error_code ec;
      const std::string text = std::filesystem::weakly_canonical(name, ec).string();
      return text.rfind(ours.string(), 0) != 0 && text.find("/cuda") != std::string::npos &&
             text.find("/include/") != std::string::npos;
    }
  } seen{this, std::filesystem::weakly_canonical(include_dir_), {}, {}};
  clang_getInclusions(
      unit_,
      [](CXFile included, CXSourceLocation* stack, unsigned depth, CXClientData data) {
        auto* s = static_cast<Seen*>(data);
        const std::string name = take(clang_getFileName(included));
        if (depth == 0 || !s->is_toolkit(name)) return;
        s->toolkit.insert(name);
        // reported where code of the user's includes it (a toolkit header's own includes follow from that one)
        const Position from = position(stack[0]);
        if (s->is_toolkit(from.file) || !s->reported.insert(name).second) return;
        s->self->out_.problems.push_back(
            {from.file, int(from.line), int(from.column), "#include <" + as_included(name) + ">",
             "a header of the CUDA toolkit that the translator does not declare: it knows the CUDA API declared in "
             "src/translate/cuda_include/ (docs/TRANSLATE.md, \"How to add a mapping\"), and reads no toolkit header"});
      },
      &seen);
  return seen.toolkit;
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
      {"__noinline__", ""}, {"__forceinline__", "inline"}, {"__inline__", "inline"}, {"__inline", "inline"}, {"__shared__", "threadgroup"}, {"__constant__", "constant"},
      // C++20's (the file is parsed as nvcc's -std=c++20 takes it); Metal's C++ is C++14: a consteval function is a
      // constexpr one there, and constinit only asks the compiler to check what a constant already is.
      {"consteval", "constexpr"}, {"constinit", ""}, {"noexcept", ""}};
  // CUDA identifiers that Metal reserves get a name of the file's own (`kernel` -> `kernel_`).
  static const std::set<std::string> metal_keywords = {"device", "constant", "thread", "threadgroup", "threadgroup_imageblock",
                                                       "ray_data", "object_data", "kernel", "vertex", "fragment", "sampler",
                                                       "texture", "visible", "stage_in"};
  // So do the file's own variables, parameters, fields and functions named as the libc functions Metal's rules refuse
  // wherever the name appears (profiles/metal.rules.toml, host-calls: a double-buffer index `read`, a `write` flag).
  // And those named as Metal's built-in scalar types, which Metal reserves as it does `float` (`const int half = kw
  // / 2;`), where the file declares them: CUDA's own `half` type (cuda_fp16.h) keeps its name where it names the type.
  static const std::set<std::string> reserved_when_declared = {"read", "write", "open", "close", "remove", "rename", "free", "time",
                                                   "clock", "signal", "raise", "kill", "exit", "abort", "system", "sleep",
                                                   "rand", "srand", "puts", "perror", "fork", "getpid", "mmap", "syscall",
                                                   "half", "bfloat"};
  // And the file's functions named as functions of Metal's standard library that CUDA lacks (HLSL-style `saturate`,
  // `sign`, `mix`): the candidate is `using namespace metal`, where a call of either would be ambiguous.
  static const std::set<std::string> metal_functions = {
      "sign",      "saturate", "fract",     "step",       "smoothstep",  "mix",         "select",      "clamp",
      "dot",       "cross",    "length",    "length_squared", "distance", "distance_squared", "normalize", "reflect",
      "refract",   "faceforward", "degrees", "radians",   "min3",        "max3",        "median3",     "fmin3",
      "fmax3",     "fmedian3", "popcount",  "ctz",        "clz",         "extract_bits", "insert_bits", "reverse_bits",
      "rotate",    "mad",      "madhi",     "madsat",     "mulhi",       "absdiff",     "addsat",      "subsat",
      "hadd",      "rhadd",    "powr",      "divide",     "all",         "any",         "isordered",   "isunordered"};
  std::set<std::string> renamed(metal_keywords.begin(), metal_keywords.end());
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor, CXClientData data) {
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        const CXCursorKind kind = clang_getCursorKind(c);
        const bool function = kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate;
        if (((kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl || kind == CXCursor_FieldDecl || function) &&
             reserved_when_declared.count(spelling(c))) ||
            (function && metal_functions.count(spelling(c))))
          static_cast<std::set<std::string>*>(data)->insert(spelling(c));
        return CXChildVisit_Recurse;
      },
      &renamed);
  std::set<std::string> identifiers;
  for (unsigned i = 0; i < n; ++i)
    if (clang_getTokenKind(tokens[i]) == CXToken_Identifier) identifiers.insert(spell(i));
  for (const auto& k : renamed) {
    if (!identifiers.count(k)) continue;
    std::string name = k + "_";
    while (identifiers.count(name)) name += "_";
    identifiers.insert(name);
    keyword_renames_[k] = name;
  }
  static const std::regex variable_template("_v$");  // std::numbers::pi_v
  auto libcu_std = [&](unsigned i) { return spell(i) == "cuda" && spell(i + 1) == "::" && spell(i + 2) == "std" && spell(i + 3) == "::"; };
  // tokens [from, last] written as a type mapping's Metal name, its helpers added
  auto use_type = [&](unsigned from, unsigned last, std::map<std::string, std::string>::const_iterator mapping) {
    rw_.replace(begin(from), end(last), mapping->second);
    if (auto h = maps_.type_helpers.find(mapping->first); h != maps_.type_helpers.end()) helpers_.insert(h->second.begin(), h->second.end());
  };
  for (unsigned i = 0; i < n; ++i) {
    const std::string s = spell(i);
    if (auto k = keywords.find(s); k != keywords.end()) {
      rw_.replace(begin(i), end(i), k->second);
    } else if (auto r = keyword_renames_.find(s);
               r != keyword_renames_.end() &&
               clang_getCursorKind(clang_getCursor(unit_, clang_getTokenLocation(unit_, tokens[i]))) != CXCursor_TypeRef &&
               !(i >= 2 && spell(i - 1) == "::" && (spell(i - 2) == "std" || spell(i - 2) == "metal"))) {  // (the library's own)
      rw_.replace(begin(i), end(i), r->second);
    } else if ((s == "__launch_bounds__" || s == "__maxnreg__" || s == "__align__" || s == "__cluster_dims__" || s == "noexcept") &&
               spell(i + 1) == "(") {  // (noexcept(...): Metal's C++ has no exceptions, nor the specifier)
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
    } else if (s == "__int128" || s == "__int128_t" || s == "__uint128_t") {
      // Numbered in the text (write_candidate restores the spelling), so that the report names a use the port
      // keeps, not an earlier one in a host helper it drops.
      rw_.replace(begin(i), end(i), fmt::format("{}{}{}", s, kWideIntegerMark, wide_integers_.size()));
      wide_integers_.push_back(position(clang_getTokenLocation(unit_, tokens[i])));
    } else if (s == "double") {
      rw_.replace(begin(i), end(i), "float");
      if (std::find(out_.notes.begin(), out_.notes.end(), "double narrowed to float (Metal has no double)") ==
          out_.notes.end())
        out_.notes.push_back("double narrowed to float (Metal has no double)");
    } else if (const unsigned std_at = libcu_std(i) ? i + 2 : i; spell(std_at) == "std" && spell(std_at + 1) == "::") {
      // std:: and libcu++'s cuda::std:: are Metal's metal::, but for the types Metal lacks (`std::aligned_storage`,
      // cuda::std::span), written as the port's helpers
      if (auto q = maps_.types.find("std::" + spell(std_at + 2)); q != maps_.types.end()) {
        use_type(i, std_at + 2, q);
        i = std_at + 2;
      } else if (auto constant = maps_.types.find("std::numbers::" + std::regex_replace(spell(std_at + 4), variable_template, ""));
                 spell(std_at + 2) == "numbers" && spell(std_at + 3) == "::" && constant != maps_.types.end()) {
        // C++20's std::numbers::pi, and the variable template pi_v<float> with its argument list
        unsigned last = std_at + 4;
        if (spell(last) != constant->first.substr(15) && spell(last + 1) == "<")
          for (int depth = 0; ++last < n;) {
            depth += spell(last) == "<" ? 1 : spell(last) == ">" ? -1 : 0;
            if (depth == 0) break;
          }
        rw_.replace(begin(i), end(std::min(last, n - 1)), constant->second);
        i = last;
      } else if (spell(std_at + 2) == "bit_cast") {  // C++20's std::bit_cast<T>(v) is Metal's as_type<T>(v)
        rw_.replace(begin(i), end(std_at + 2), "as_type");
        i = std_at + 2;
      } else {
        rw_.replace(begin(i), end(std_at + 1), "metal::");
        i = std_at + 1;
      }
    } else if (auto c = maps_.types.find(s + spell(i + 1) + spell(i + 2)); s == "cuda" && c != maps_.types.end()) {
      use_type(i, i + 2, c);  // libcu++'s cuda::maximum
      i += 2;
    } else if (auto t = maps_.types.find(s); t != maps_.types.end()) {
      use_type(i, i, t);
    }
  }
  clang_disposeTokens(unit_, tokens, n);
}

// Code the preprocessor skips (an inactive branch: `#ifndef USE_ROCM`'s other side, a feature macro the file leaves
// undefined, a host stub under `#ifdef __CUDACC__`'s #else) is blanked, its directives too, and so are the directives
// of every conditional: the candidate is the branch nvcc's preprocessor takes, which Metal's compiler, where
// __CUDACC__ and CUDART_VERSION are undefined, would not choose again (and the candidate's text rules read no skipped
// lambda, PTX or HIP builtin).
void Translator::blank_skipped_code() {
  const std::set<unsigned> skipped = skipped_lines(unit_, file_);
  static const std::set<std::string> conditionals = {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"};
  const std::string& t = rw_.text();
  bool continued = false;  // the line before was a blanked directive continued by `\`
  unsigned number = 1;
  for (size_t line = 0; line < t.size(); ++number) {
    const size_t end = std::min(t.find('\n', line), t.size());
    const size_t first = t.find_first_not_of(" \t", line);
    bool blank = continued || skipped.count(number);
    if (!blank && first < end && t[first] == '#') {
      const size_t word = t.find_first_not_of(" \t", first + 1);
      size_t word_end = word;
      while (word_end < end && std::isalpha(static_cast<unsigned char>(t[word_end]))) ++word_end;
      blank = word < end && conditionals.count(t.substr(word, word_end - word));
    }
    if (blank) rw_.replace(unsigned(line), unsigned(end), "");
    const size_t last = end > line ? t.find_last_not_of(" \t\r", end - 1) : std::string::npos;
    continued = blank && last != std::string::npos && last >= line && t[last] == '\\';
    line = end + 1;
  }
}

// Metal has no double, and the port narrows it to float (token_edits): a file's float and double variants of a function
// (`float acc(float)`, `double acc(double)`), of a method or of a specialization (ATen's `AccumulateType<float>` and
// `<double>`) would become two definitions of one. The variant naming double is left out; code that named it names the
// float one once narrowed. (Where each names double, the first stays.)
void Translator::drop_narrowed_duplicates() {
  std::map<std::string, std::vector<CXCursor>> by_narrowed;
  std::map<std::string, std::string> names;  // decl_key -> the name grouped by
  std::function<void(CXCursor)> visit = [&](CXCursor scope) {
    for (CXCursor c : children(scope)) {
      if (!in_main_file(c)) continue;
      const CXCursorKind kind = clang_getCursorKind(c);
      const bool function = kind == CXCursor_FunctionDecl || kind == CXCursor_CXXMethod;
      const bool specialization = (kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl) &&
                                  !clang_Cursor_isNull(clang_getSpecializedCursorTemplate(c));
      if ((function || specialization) && clang_isCursorDefinition(c)) {
        // (a const method and its non-const overload share a display name, and so do a function template's explicit
        // specializations: their template arguments are added)
        std::string name = take(clang_getCursorDisplayName(c)) + (clang_CXXMethod_isConst(c) ? " const" : "");
        if (const size_t empty = name.find("<>"); function && empty != std::string::npos) {  // `to_acc<>(float)`
          std::vector<std::string> arguments;
          for (int i = 0; i < clang_Cursor_getNumTemplateArguments(c); ++i)
            arguments.push_back(clang_Cursor_getTemplateArgumentKind(c, unsigned(i)) == CXTemplateArgumentKind_Type
                                    ? take(clang_getTypeSpelling(clang_Cursor_getTemplateArgumentType(c, unsigned(i))))
                                    : std::to_string(clang_Cursor_getTemplateArgumentValue(c, unsigned(i))));
          name.replace(empty, 2, fmt::format("<{}>", fmt::join(arguments, ", ")));
        }
        by_narrowed[take(clang_getCursorUSR(clang_getCursorSemanticParent(c))) + "|" + std::to_string(kind) + "|" +
                    whole_words(name, "double", "float")]
            .push_back(c);
        names[decl_key(c)] = name;
      }
      if (kind == CXCursor_Namespace || kind == CXCursor_UnexposedDecl || kind == CXCursor_StructDecl ||
          kind == CXCursor_ClassDecl || kind == CXCursor_ClassTemplate)
        visit(c);
    }
  };
  visit(clang_getTranslationUnitCursor(unit_));
  auto names_double = [&](CXCursor c) {
    const std::string& name = names.at(decl_key(c));
    return whole_words(name, "double", "") != name;
  };
  for (auto& [narrowed, definitions] : by_narrowed) {
    if (definitions.size() < 2 || std::none_of(definitions.begin(), definitions.end(), names_double)) continue;
    // the one kept: the first naming no double, else the first
    const auto kept = std::find_if_not(definitions.begin(), definitions.end(), names_double);
    const CXCursor keep = kept != definitions.end() ? *kept : definitions.front();
    for (CXCursor c : definitions) {
      if (clang_equalCursors(c, keep)) continue;
      dropped_definitions_.insert(decl_key(c));
      rw_.replace(begin_offset(c), end_offset(c), "");
      out_.notes.push_back(fmt::format("line {}: '{}' left out: narrowed to float, it is a second definition of line {}'s",
                                       position(c).line, names.at(decl_key(c)), position(keep).line));
    }
  }
}

Translation Translator::run() {
  parse();
  blank_skipped_code();
  drop_narrowed_duplicates();
  token_edits();
  expand_pointer_typedefs();
  // Kernels and __device__ functions of the file.
  clang_visitChildren(
      clang_getTranslationUnitCursor(unit_),
      [](CXCursor c, CXCursor parent, CXClientData data) {
        auto* self = static_cast<Translator*>(data);
        if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
        if (self->dropped_definitions_.count(decl_key(c))) return CXChildVisit_Continue;
        const CXCursorKind kind = clang_getCursorKind(c);
        if (kind == CXCursor_UnexposedDecl || kind == CXCursor_Namespace) return CXChildVisit_Recurse;
        // A struct's static data member (`static constexpr int kThreads = 256;`): Metal keeps a variable of static
        // storage in the constant address space only.
        if (kind == CXCursor_VarDecl && is_record(clang_getCursorKind(parent))) self->rw_.insert(begin_offset(c), "constant ");
        // Methods of the file's structs are __device__ functions too (the struct's text carries them).
        if (kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl || kind == CXCursor_ClassTemplate ||
            kind == CXCursor_ClassTemplatePartialSpecialization)
          return CXChildVisit_Recurse;
        const bool method = kind == CXCursor_CXXMethod || kind == CXCursor_Constructor || kind == CXCursor_ConversionFunction;
        if ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate || method) && clang_isCursorDefinition(c)) {
          Function f{c};
          f.kernel = has_child(c, CXCursor_CUDAGlobalAttr);
          // (a constexpr function without __device__ is callable from device code under nvcc's --expt-relaxed-constexpr;
          // one the kernels do not call and that does not port is left out of the output)
          if (f.kernel || has_child(c, CXCursor_CUDADeviceAttr) || (!method && self->is_constexpr(c))) self->functions_[decl_key(c)] = f;
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
        // (a const one, `__device__ const float table[4] = {...}`, is a constant, written in the constant space)
        if (kind == CXCursor_VarDecl && has_child(c, CXCursor_CUDADeviceAttr) && !has_child(c, CXCursor_CUDAConstantAttr) &&
            !is_const_object(clang_getCursorType(c)))
          self->problem(self->out_.problems, c, "__device__ variable '" + spelling(c) + "'",
                        "MLX kernels have no global state; use a cudaMalloc scratch buffer");
        return CXChildVisit_Continue;
      },
      this);
  find_shared_accessors();
  find_launch();
  constant_symbols_in_functions();
  for (auto& [key, fn] : functions_) visit_function(fn);
  run_time_recursion();
  resolve_pointer_parameter_spaces();
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
  // down from the kernel (pass_down_kernel_state): a function uses what its callees use.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [key, fn] : functions_)
      for (const auto& callee : fn.callees) {
        for (const auto& b : functions_.at(callee).builtins) changed |= fn.builtins.insert(b).second;
        for (const auto& h : functions_.at(callee).shared) changed |= fn.shared.insert(h).second;
      }
  }
  check_records();
  resolve_hoisted_types();
  resolve_lambdas();
  if (std::any_of(read_only_casts_.begin(), read_only_casts_.end(), [](const auto& read_only) { return read_only(); }))
    helpers_.insert("ks_ro_cast");
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
      if (k.launched) launched_reach_.insert(callee);
      const Function& f = functions_.at(callee);
      for (const auto& [construct, count] : f.record.translated) k.translated[construct] += count;
      k.problems.insert(k.problems.end(), f.record.problems.begin(), f.record.problems.end());
      pending.insert(pending.end(), f.callees.begin(), f.callees.end());
    }
    out_.kernels.push_back(std::move(k));
  }
  pass_down_kernel_state();
  write_candidate();
  clang_disposeTranslationUnit(unit_);
  clang_disposeIndex(index_);
  // Lines of the file's own headers, whose text the parse read in their includes' place, as their own file's.
  const auto at_source = [&](Problem& p) {
    if (p.file != file_ || p.line <= 0 || size_t(p.line) > included_.lines.size()) return;
    p.file = included_.lines[p.line - 1].first;
    p.line = int(source_line(p.line));
  };
  for (Problem& p : out_.problems) at_source(p);
  for (KernelTranslation& k : out_.kernels) {
    for (Problem& p : k.problems) at_source(p);
    k.line = int(source_line(k.line));
  }
  return out_;
}

}  // namespace ksearch::translate::detail

namespace ksearch::translate {

Translation translate_with_clang(const std::filesystem::path& cuda_file, const tasks::Task& task) {
  if (!std::filesystem::exists(cuda_file)) throw Error("CUDA file not found: " + cuda_file.string());
  return detail::Translator(std::filesystem::absolute(cuda_file), task).run();
}

}  // namespace ksearch::translate
