#include "backends/rules.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

#include "backends/source_scan.hpp"
#include "core/error.hpp"

namespace ksearch::backends {

void NameList::add(const std::string& pattern) {
  Patterns& into = pattern.starts_with("!") ? excepted_ : included_;
  const std::string name = pattern.starts_with("!") ? pattern.substr(1) : pattern;
  if (name.find_first_of("*?[") == std::string::npos) into.exact.insert(name);
  else into.globs.push_back(name);
}

bool NameList::Patterns::matches(const std::string& name) const {
  if (exact.count(name)) return true;
  for (const auto& glob : globs)
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

bool NameList::matches(const std::string& name) const { return included_.matches(name) && !excepted_.matches(name); }

namespace {

int line_of(const std::string& text, size_t offset) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
}

bool is_identifier(const std::string& token) { return !token.empty() && (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '_'); }

// Identifiers after which a name is used, not declared (`return write(...)`).
bool expression_keyword(const std::string& token) {
  static const std::set<std::string> keywords = {"return", "case", "throw", "else", "do", "goto", "co_return", "co_await",
                                                 "co_yield", "new", "delete", "sizeof", "alignof", "typeid", "not", "and",
                                                 "or", "xor", "bitand", "bitor", "compl", "not_eq"};
  return keywords.count(token) > 0;
}

// The names the candidate declares itself: a variable, parameter, lambda, function or macro of its own,
// after a type, a specifier, `auto`, `*`, `&`, `&&`, `>` or `#define`. Erring toward "declared" costs
// nothing: a library function the candidate declares and calls is an import the object rules refuse.
std::set<std::string> declared_names(const SourceScan& scan) {
  std::set<std::string> names;
  for (const auto& id : scan.identifiers) {
    if (id.token == 0) continue;
    const std::string& before = scan.tokens[id.token - 1];
    if ((is_identifier(before) && !expression_keyword(before)) || before == "*" || before == "&" || before == "&&" || before == ">")
      names.insert(id.name);
  }
  return names;
}

// Whether the identifier calls a function of its name: followed by `(`, also parenthesized (`(write)(...)`);
// not a member (`.`, `->`) nor a name qualified by a class or namespace (`std::exit` is an import the
// object rules refuse).
bool is_call(const SourceScan& scan, const SourceIdentifier& id) {
  const auto& tokens = scan.tokens;
  size_t open = 0;
  while (open < id.token && tokens[id.token - 1 - open] == "(") ++open;
  const size_t before = id.token - open;  // the token before the name and its parentheses
  if (before > 0 && (tokens[before - 1] == "." || tokens[before - 1] == "->")) return false;
  if (before > 1 && tokens[before - 1] == "::" && is_identifier(tokens[before - 2])) return false;
  size_t after = id.token + 1;
  for (size_t closed = 0; closed < open && after < tokens.size() && tokens[after] == ")"; ++closed) ++after;
  return after < tokens.size() && tokens[after] == "(";
}

// The first use of a rule's identifiers, or call of its functions, if any.
// `expanded`: the scan is of the preprocessor's output, where the text rules found nothing: the name comes from a
// macro used on its line (a header's, such as cpuid.h's __cpuid_count, or the candidate's own token pasting).
std::optional<RuleViolation> first_use(const ForbiddenRule& rule, const SourceScan& scan, const std::set<std::string>& declared,
                                       bool expanded) {
  for (const auto& id : scan.identifiers) {
    if (rule.identifiers.matches(id.name))
      return RuleViolation{rule.id,
                           expanded ? fmt::format("{} (found '{}' in what the preprocessor made of this line: a macro used there "
                                                  "expands to it)",
                                                  rule.message, id.name)
                                    : fmt::format("{} (found '{}'; the name counts in any use, a variable's too: rename it if "
                                                  "it is one)",
                                                  rule.message, id.name),
                           id.line};
    if (rule.calls.matches(id.name) && !declared.count(id.name) && is_call(scan, id))
      return RuleViolation{rule.id, fmt::format("{} (found a call to '{}')", rule.message, id.name), id.line};
  }
  return std::nullopt;
}

// Whether `at` lies in the text's global namespace: every brace block open there is an `extern "..."` block or an inline
// namespace, whose declarations are the enclosing namespace's (the text's string contents are removed).
bool at_global_scope(const std::string& text, size_t at) {
  static const Pattern transparent_opener(R"((?:\bextern\s*(?:"[^"\n]*")?|\binline\s+namespace(?:\s+[\w:]+)?)\s*$)");
  std::vector<bool> open;  // per open block, whether it is transparent
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '{') {
      const size_t from = i > 64 ? i - 64 : 0;
      open.push_back(transparent_opener.found_in(std::string_view(text).substr(from, i - from)));
    } else if (text[i] == '}' && !open.empty()) {
      open.pop_back();
    }
  }
  return std::all_of(open.begin(), open.end(), [](bool transparent) { return transparent; });
}

// The rule's pattern on the candidate's text. The text is untrusted: one built to make the pattern backtrack past the
// engine's limits is refused as such (a violation naming the rule), never left unchecked.
std::optional<Pattern::Match> find_pattern(const ForbiddenRule& rule, const std::string& text, std::vector<RuleViolation>& out) {
  const bool refused = std::any_of(out.begin(), out.end(), [](const RuleViolation& v) { return v.rule == "rule-check"; });
  if (!rule.regex || refused) return std::nullopt;  // once refused, the other patterns need not spend their time
  try {
    std::optional<Pattern::Match> match = rule.regex->search(text);
    while (match && rule.global_scope_only && !at_global_scope(text, match->position(rule.report_group)))
      match = rule.regex->search(text, match->position() + 1);
    return match;
  } catch (const PatternLimitError& e) {
    out.push_back({"rule-check", fmt::format("the source could not be checked against rule '{}' within the pattern engine's limits "
                                             "(a source built to make the check backtrack): {}",
                                             rule.id, e.what())});
    return std::nullopt;
  }
}

}  // namespace

std::vector<RuleViolation> RuleSet::check(const std::string& source) const {
  std::vector<RuleViolation> out;
  if (source.size() > max_source_bytes)
    out.push_back({"source-size", fmt::format("source is {} bytes, over the limit of {}", source.size(), max_source_bytes), 0});
  const SourceScan scan = scan_source(source);
  const std::set<std::string> declared = declared_names(scan);
  for (int line : scan.line_directives)
    out.push_back({"line-directive", "Line directives (#line N \"file\", # N \"file\") are not allowed: they would hide where code comes from.", line});
  // One report per rule is enough for a fix. Patterns read the text as the compiler tokenizes it.
  for (const auto& rule : forbidden) {
    const std::string& text = rule.sees_strings ? scan.code_and_strings : scan.code;
    if (const auto match = find_pattern(rule, text, out))
      out.push_back({rule.id, fmt::format("{} (found '{}')", rule.message, match->str(rule.report_group)),
                     line_of(text, match->position(rule.report_group))});
    else if (auto use = first_use(rule, scan, declared, false))
      out.push_back(*use);
  }
  // Every form of include counts (`#include_next`, `#import`, a macro for the name), read by the lexer as the
  // preprocessor reads it: line splices joined, `%:` as `#`, comments skipped.
  for (const auto& include : scan.include_directives) {
    const int line = include.line;
    const std::string& rest = include.target;
    const size_t close = rest.find(rest.starts_with("<") ? '>' : '"', 1);
    if (include.directive != "include") {
      out.push_back({"include", fmt::format("#{} is not allowed: use #include", include.directive), line});
      continue;
    }
    if ((!rest.starts_with("<") && !rest.starts_with("\"")) || close == std::string::npos) {
      out.push_back({"include", fmt::format("#include {}: an include must name its header directly (<name>), not through a macro",
                                            rest), line});
      continue;
    }
    const bool quoted = rest[0] == '"';
    const std::string header = rest.substr(1, close - 1);
    // A quoted name the allowlist holds is that header, as Visual Studio's CUDA template writes `#include
    // "cuda_runtime.h"`: the preprocessed check then requires it to resolve to a system header of that name.
    if (quoted && !allow_quoted_includes && !allowed_includes.count(header))
      out.push_back({"include", fmt::format("#include \"{}\": candidates are a single file; only <system> headers are allowed", header), line});
    else if (!quoted && !allowed_includes.empty() && !allowed_includes.count(header))
      out.push_back({"include", fmt::format("#include <{}> is not allowed on this target", header), line});
  }
  return out;
}

std::vector<RuleViolation> RuleSet::check_preprocessed(const SourceScan& scan) const {
  std::vector<RuleViolation> out;
  const std::set<std::string> declared = declared_names(scan);
  for (const auto& rule : forbidden) {
    // The candidate's lines of the preprocessor's output, their contents only (line numbers are the output's).
    const auto match = rule.sees_preprocessed ? find_pattern(rule, scan.code, out) : std::nullopt;
    if (match)
      out.push_back({rule.id, fmt::format("{} (found '{}' in what the preprocessor made of the candidate's lines: a macro "
                                          "it uses expands to it)",
                                          rule.message, match->str(rule.report_group))});
    else if (auto use = first_use(rule, scan, declared, true))
      out.push_back(*use);
  }
  // A header is allowed where its path ends with an allowed name: the preprocessor names an
  // included file by the search directory it was found in, then the name as written.
  for (const auto& include : scan.includes) {
    const std::string path = std::filesystem::path(include.path).lexically_normal().string();
    const bool system = !path.empty() && path[0] == '/';
    bool allowed = allowed_includes.empty() && (system || allow_quoted_includes);
    for (const auto& name : allowed_includes)
      allowed = allowed || (system && path.size() > name.size() && path.ends_with("/" + name));
    if (!allowed)
      out.push_back({"include", fmt::format("the candidate includes {}, which is not among the headers allowed on this target", path),
                     include.line});
  }
  return out;
}

const ForbiddenRule* RuleSet::unavailable_in(const std::string& text) const {
  for (const auto& rule : unavailable)
    try {
      if (rule.regex->found_in(text)) return &rule;
    } catch (const PatternLimitError&) {
      return &rule;  // a text that cannot be read within the limits is not relied on
    }
  return nullptr;
}

std::string RuleSet::describe() const {
  std::string text;
  for (const auto& rule : forbidden) text += fmt::format("- {}\n", rule.message);
  if (!allowed_includes.empty()) {
    std::string list;
    for (const auto& h : allowed_includes) list += (list.empty() ? "" : ", ") + h;
    text += "- Only these headers may be included: " + list + "\n";
  }
  text += fmt::format("- Source at most {} bytes, one file.\n", max_source_bytes);
  if (object.enabled)
    text += fmt::format(
        "- The built library is checked too: no code that runs at load or exit time (constructors, global objects "
        "with constructors or destructors), no thread-local storage, and only the library functions this target "
        "allows ({}).\n",
        object.allowed_imports.matches("printf") ? "math, memory and string functions, printf, and the target's own runtime"
                                                 : "math and memory functions only: no printing");
  return text;
}

namespace {

using Lists = std::map<std::string, std::vector<std::string>>;

// A rules file as it is read: its path, for messages, and the named lists that its arrays of strings may splice
// in (an entry "@name": the [lists] of the file and of the files it includes).
struct RulesFile {
  std::filesystem::path path;
  const Lists* lists = nullptr;  // null: "@name" entries are errors (in [lists] itself and in `include`)

  // A TOML array of strings (absent: empty), "@name" entries replaced by that list; anything else in it is an
  // error naming the key.
  std::vector<std::string> strings(toml::node_view<const toml::node> node, const std::string& key) const {
    std::vector<std::string> out;
    if (!node) return out;
    const auto* array = node.as_array();
    if (!array) throw Error(fmt::format("{}: {} must be an array of strings", path.string(), key));
    for (const auto& item : *array) {
      const int line = int(item.source().begin.line);
      if (!item.is_string()) throw Error(fmt::format("{}:{}: {} must hold strings", path.string(), line, key));
      const std::string entry = item.value_or(std::string());
      if (!entry.starts_with("@")) {
        out.push_back(entry);
        continue;
      }
      if (!lists) throw Error(fmt::format("{}:{}: {} cannot name a list ('{}')", path.string(), line, key, entry));
      const auto list = lists->find(entry.substr(1));
      if (list == lists->end())
        throw Error(fmt::format("{}:{}: {} names the list '{}', which neither this file's [lists] nor an included "
                                "file's defines", path.string(), line, key, entry.substr(1)));
      out.insert(out.end(), list->second.begin(), list->second.end());
    }
    return out;
  }
};

toml::table parse_rules_file(const std::filesystem::path& file) {
  try {
    return toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}: {}", file.string(), e.source().begin.line, e.description()));
  }
}

// The [lists] table of a rules file into `lists`: arrays of strings, each name defined once over a rules file
// and the files it includes.
void add_lists(const toml::table& root, const std::filesystem::path& file, Lists& lists) {
  const auto node = root["lists"];
  if (!node) return;
  const auto* table = node.as_table();
  if (!table) throw Error(fmt::format("{}: lists must be a table of arrays of strings", file.string()));
  for (const auto& [name, value] : *table) {
    const std::string key(name.str());
    if (lists.count(key))
      throw Error(fmt::format("{}:{}: the list '{}' is defined twice (here and in another file of the same rules)",
                              file.string(), value.source().begin.line, key));
    lists[key] = RulesFile{file}.strings(toml::node_view<const toml::node>(value), "lists." + key);
  }
}

ObjectRules load_object_rules(toml::node_view<const toml::node> table, const RulesFile& file) {
  ObjectRules rules;
  if (!table.is_table()) return rules;
  rules.enabled = true;
  for (const auto& p : file.strings(table["allowed_imports"], "object.allowed_imports")) rules.allowed_imports.add(p);
  for (const auto& p : file.strings(table["forbidden_imports"], "object.forbidden_imports")) rules.forbidden_imports.add(p);
  for (const auto& l : file.strings(table["allowed_libraries"], "object.allowed_libraries")) rules.allowed_libraries.insert(l);
  rules.init_functions = file.strings(table["init_functions"], "object.init_functions");
  rules.fini_functions = file.strings(table["fini_functions"], "object.fini_functions");
  for (const auto& name : file.strings(table["load_hooks"], "object.load_hooks")) rules.load_hooks.insert(name);
  for (const auto& name : file.strings(table["toolchain_functions"], "object.toolchain_functions"))
    rules.toolchain_functions.insert(name);
  for (const auto& p : file.strings(table["toolchain_function_calls"], "object.toolchain_function_calls"))
    rules.toolchain_function_calls.add(p);
  for (const auto& i : file.strings(table["forbidden_instructions"], "object.forbidden_instructions"))
    rules.forbidden_instructions.insert(i);
  for (const auto& name : file.strings(table["resolver_uses"], "object.resolver_uses")) rules.resolver_uses.insert(name);
  rules.device_globals = table["device_globals"].value_or(true);
  for (const auto& p : file.strings(table["allowed_device_globals"], "object.allowed_device_globals"))
    rules.allowed_device_globals.add(p);
  for (const auto& p : file.strings(table["allowed_device_imports"], "object.allowed_device_imports"))
    rules.allowed_device_imports.add(p);
  rules.checks_device_code = !rules.device_globals || bool(table["allowed_device_imports"]);
  return rules;
}

// The [[`key`]] rules of a rules file: id, message, and a pattern (compiled with `flags`) or identifiers.
std::vector<ForbiddenRule> load_patterns(const toml::table& root, const char* key, const RulesFile& file, bool ignore_case) {
  std::vector<ForbiddenRule> out;
  const auto* entries = root[key].as_array();
  if (!entries) return out;
  for (const auto& node : *entries) {
    const auto* t = node.as_table();
    if (!t) throw Error(fmt::format("{}: [[{}]] entries must be tables", file.path.string(), key));
    const int line = int(node.source().begin.line);
    ForbiddenRule rule;
    rule.id = (*t)["id"].value_or(std::string());
    rule.pattern = (*t)["pattern"].value_or(std::string());
    rule.message = (*t)["message"].value_or(std::string());
    rule.report_group = size_t((*t)["report_group"].value_or(int64_t(0)));
    rule.sees_strings = (*t)["strings"].value_or(false);
    rule.sees_preprocessed = (*t)["preprocessed"].value_or(false);
    rule.global_scope_only = (*t)["global_scope"].value_or(false);
    const auto identifiers = file.strings((*t)["identifiers"], "identifiers");
    for (const auto& name : identifiers) rule.identifiers.add(name);
    const auto calls = file.strings((*t)["calls"], "calls");
    for (const auto& name : calls) rule.calls.add(name);
    if (rule.id.empty() || rule.message.empty() || (rule.pattern.empty() && identifiers.empty() && calls.empty()))
      throw Error(fmt::format("{}:{}: a [[{}]] rule needs id, message, and a pattern, identifiers or calls", file.path.string(), line, key));
    try {
      if (!rule.pattern.empty()) rule.regex.emplace(rule.pattern, ignore_case);
    } catch (const Error& e) {
      throw Error(fmt::format("{}:{}: bad pattern for rule '{}': {}", file.path.string(), line, rule.id, e.what()));
    }
    if (rule.report_group > (rule.regex ? rule.regex->group_count() : 0))
      throw Error(fmt::format("{}:{}: rule '{}' reports group {}, which its pattern lacks", file.path.string(), line, rule.id,
                              rule.report_group));
    out.push_back(std::move(rule));
  }
  return out;
}

}  // namespace

RuleSet load_rules(const std::filesystem::path& file) {
  const toml::table root = parse_rules_file(file);
  // The files it includes (beside it) share [lists] and [[forbid]] rules between backends' rules, and nothing
  // else: a limit or an [object] table there would read as if it applied.
  Lists lists;
  std::vector<std::pair<std::filesystem::path, toml::table>> included;
  for (const auto& name : RulesFile{file}.strings(root["include"], "include")) {
    const std::filesystem::path path = file.parent_path() / name;
    toml::table shared = parse_rules_file(path);
    for (const auto& [key, value] : shared)
      if (key.str() != "lists" && key.str() != "forbid")
        throw Error(fmt::format("{}:{}: a rules file that others include holds [lists] and [[forbid]] rules only (not '{}'; "
                                "included by {})",
                                path.string(), value.source().begin.line, key.str(), file.string()));
    add_lists(shared, path, lists);
    included.emplace_back(path, std::move(shared));
  }
  add_lists(root, file, lists);
  const RulesFile own{file, &lists};
  RuleSet rules;
  for (const auto& [path, shared] : included)
    for (auto& rule : load_patterns(shared, "forbid", RulesFile{path, &lists}, false)) rules.forbidden.push_back(std::move(rule));
  for (auto& rule : load_patterns(root, "forbid", own, false)) rules.forbidden.push_back(std::move(rule));
  std::set<std::string> ids;
  for (const auto& rule : rules.forbidden)
    if (!ids.insert(rule.id).second)
      throw Error(fmt::format("{}: the rule '{}' is defined twice (in this file or the files it includes)", file.string(), rule.id));
  rules.max_source_bytes = size_t(root["limits"]["max_source_bytes"].value_or(int64_t(256 * 1024)));
  rules.unavailable = load_patterns(root, "unavailable", own, true);
  for (const auto& rule : rules.unavailable)
    if (rule.pattern.empty()) throw Error(fmt::format("{}: [[unavailable]] rule '{}' needs a pattern", file.string(), rule.id));
  for (const auto& h : own.strings(root["includes"]["allow"], "includes.allow")) rules.allowed_includes.insert(h);
  rules.allow_quoted_includes = root["includes"]["allow_quoted"].value_or(false);
  rules.object = load_object_rules(root["object"], own);
  for (const auto& rule : rules.forbidden)
    for (const NameList* names : {&rule.identifiers, &rule.calls})
      if (!names->empty()) rules.object.import_messages.emplace_back(*names, rule.message);
  return rules;
}

}  // namespace ksearch::backends
