#pragma once
// backends/rules: a hardware profile's machine-checked rules (profiles/<backend>.rules.toml) on a
// candidate's text, on its preprocessed source and on the built object, before anything runs it.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/source_scan.hpp"
#include "core/pattern.hpp"

namespace ksearch::backends {

struct RuleViolation {
  std::string rule;
  std::string message;
  int line = 0;  // 1-based line in the candidate source, 0 if not tied to a line
};

// Names to match: exact names, or glob patterns (fnmatch: `*`, `?`, `[...]`); a pattern after `!` is an exception
// (`"__*", "!__attribute__"`: every name starting with two underscores but that one).
class NameList {
 public:
  void add(const std::string& pattern);
  bool matches(const std::string& name) const;
  bool empty() const { return included_.empty(); }

 private:
  struct Patterns {
    std::set<std::string> exact;
    std::vector<std::string> globs;
    bool empty() const { return exact.empty() && globs.empty(); }
    bool matches(const std::string& name) const;
  };
  Patterns included_, excepted_;
};

// A construct the candidate may not use: a regex on its text as the compiler tokenizes it (line splices joined,
// digraphs as the punctuators they stand for, comments and string contents removed: SourceScan::code), or
// identifiers, matched on every use in the text and in the preprocessor's output.
struct ForbiddenRule {
  std::string id;
  std::string message;
  std::string pattern;  // Perl/ECMAScript regex (core/pattern.hpp); empty: none
  std::optional<Pattern> regex;
  // The capture group whose text and line a violation reports: a pattern may match the token before
  // the construct and report only the construct.
  size_t report_group = 0;
  // The pattern sees string literals too (`strings = true`: a `_Pragma("...")` operator's argument); comments never.
  bool sees_strings = false;
  // The pattern reads what the preprocessor made of the candidate's own lines too (`preprocessed = true`: macros
  // expanded, tokens pasted), where a construct spelled through the candidate's macros shows.
  bool sees_preprocessed = false;
  // Only matches at the file's namespace scope count (`global_scope = true`): outside every brace block but an
  // `extern "..." { }` or inline namespace's, whose declarations are the enclosing namespace's.
  bool global_scope_only = false;
  NameList identifiers;
  // Library functions refused where the candidate calls them (`write(...)`, `(write)(...)`, `::write(...)`),
  // not where it names its own variable, parameter or function so: a name the candidate declares is
  // its own. A declared library function then reaches the object rules, which refuse its import.
  NameList calls;
};

// Rules on the shared object a build produced, checked before anything loads it (the [object]
// table of a .rules.toml; `enabled` only where it has one).
struct ObjectRules {
  bool enabled = false;
  NameList allowed_imports;                 // undefined dynamic symbols, by demangled name
  NameList forbidden_imports;               // refused even where allowed_imports or allowed_libraries match
  // Why a refused import is refused: the [[forbid]] rule (identifiers or calls) that names it, if any.
  std::vector<std::pair<NameList, std::string>> import_messages;
  std::set<std::string> allowed_libraries;  // or by the library their symbol version binds them to
  std::vector<std::string> init_functions;  // what the toolchain itself puts in .init_array, each once
  std::vector<std::string> fini_functions;  // likewise for .fini_array
  std::set<std::string> load_hooks;  // what the toolchain's load and unload code calls where the library defines it
  // The toolchain's own functions that run at load or exit time (nvcc's device code registration, atexit) and the
  // imports they may call: their code is read, since a function the candidate defines under the name of one of
  // their callees binds their call to itself (and is often inlined into them).
  std::set<std::string> toolchain_functions;
  NameList toolchain_function_calls;
  std::set<std::string> forbidden_instructions;  // host code, mnemonics as objdump prints them
  // What a resolver the compiler generates for target_clones / target multiversioning (`NAME.resolver`)
  // may call and read besides the function's own versions; other indirect functions are load-time code.
  std::set<std::string> resolver_uses;
  // Embedded device code (.nv_fatbin), checked where either is set:
  bool device_globals = true;      // false: no variables in .nv.global*
  // The toolchain's own objects there (demangled, without nvcc's per-file `_INTERNAL_<hash>::` namespace): the
  // string literals of printf and assert, libcu++'s empty tag objects.
  NameList allowed_device_globals;
  NameList allowed_device_imports;  // what it may call outside itself (undefined functions), by demangled name
  bool checks_device_code = false;

  // `candidate_code`: what the preprocessor made of the candidate's lines (scan_preprocessed), where the backend
  // preprocesses; it tells a function-local `static const` table of the device code from a mutable one.
  std::vector<RuleViolation> check(const std::filesystem::path& library, const SourceScan* candidate_code = nullptr) const;
};

// Machine-checked rules of a hardware profile (loaded from a .rules.toml file).
struct RuleSet {
  std::vector<ForbiddenRule> forbidden;
  // Hardware features of other targets that this one lacks (tensor cores on Metal, ...): patterns
  // on prose, case-insensitive. A hypothesis carried over from another backend's search (`ksearch
  // run --from`) whose text names one is irrelevant here and dropped.
  std::vector<ForbiddenRule> unavailable;
  std::set<std::string> allowed_includes;  // <name> includes; empty = any
  bool allow_quoted_includes = false;
  size_t max_source_bytes = 256 * 1024;
  ObjectRules object;

  // On the candidate's text, without a compiler: size, patterns, identifiers, includes, and no
  // line directives (they would make the preprocessor's line markers lie).
  std::vector<RuleViolation> check(const std::string& source) const;
  // On what the compiler sees (`scan_preprocessed` of the preprocessor's output, for the candidate's file): its
  // identifiers (macros expanded, tokens pasted) and the files it really includes.
  std::vector<RuleViolation> check_preprocessed(const SourceScan& candidate_code) const;
  std::string describe() const;  // the rules as a bullet list, for prompts
  // The first `unavailable` feature `text` (a hypothesis' title, description, ...) names; null when none.
  const ForbiddenRule* unavailable_in(const std::string& text) const;
};

RuleSet load_rules(const std::filesystem::path& file);  // throws Error naming file and line

}  // namespace ksearch::backends
