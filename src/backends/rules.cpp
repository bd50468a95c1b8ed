#include "backends/rules.hpp"

#include <fmt/format.h>

#include <sstream>
#include <toml++/toml.h>

#include "core/error.hpp"

namespace ksearch {

std::string strip_comments_and_strings(const std::string& source) {
  std::string out = source;
  enum { code, line_comment, block_comment, string_lit, char_lit } state = code;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/') { state = line_comment; out[i] = ' '; }
        else if (c == '/' && next == '*') { state = block_comment; out[i] = ' '; out[++i] = ' '; }
        else if (c == '"') state = string_lit;
        else if (c == '\'') state = char_lit;
        break;
      case line_comment:
        if (c == '\n') state = code; else out[i] = ' ';
        break;
      case block_comment:
        if (c == '*' && next == '/') { out[i] = ' '; out[++i] = ' '; state = code; }
        else if (c != '\n') out[i] = ' ';
        break;
      case string_lit:
      case char_lit:
        if (c == '\\') { out[i] = ' '; if (next != '\n' && next) out[++i] = ' '; }
        else if ((state == string_lit && c == '"') || (state == char_lit && c == '\'')) state = code;
        else if (c != '\n') out[i] = ' ';
        break;
    }
  }
  return out;
}

namespace {
int line_of(const std::string& text, size_t offset) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(offset), '\n'));
}
}  // namespace

std::vector<RuleViolation> RuleSet::check(const std::string& source) const {
  std::vector<RuleViolation> out;
  if (source.size() > max_source_bytes)
    out.push_back({"source-size", fmt::format("source is {} bytes, over the limit of {}", source.size(), max_source_bytes), 0});
  const std::string code = strip_comments_and_strings(source);
  for (const auto& rule : forbidden) {
    for (auto it = std::sregex_iterator(code.begin(), code.end(), rule.regex); it != std::sregex_iterator(); ++it) {
      out.push_back({rule.id, fmt::format("{} (found '{}')", rule.message, it->str()), line_of(code, size_t(it->position()))});
      break;  // one report per rule is enough for a fix
    }
  }
  // Includes are read from the original text: the stripper blanks the quoted file names.
  static const std::regex include_re(R"(^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]*)[>"])", std::regex::multiline);
  for (auto it = std::sregex_iterator(source.begin(), source.end(), include_re); it != std::sregex_iterator(); ++it) {
    const bool quoted = (*it)[1] == "\"";
    const std::string header = (*it)[2];
    const int line = line_of(source, size_t(it->position()));
    if (code.compare(size_t(it->position()), 1, source, size_t(it->position()), 1) != 0) continue;  // inside a comment
    if (quoted && !allow_quoted_includes)
      out.push_back({"include", fmt::format("#include \"{}\": candidates are a single file; only <system> headers are allowed", header), line});
    else if (!quoted && !allowed_includes.empty() && !allowed_includes.count(header))
      out.push_back({"include", fmt::format("#include <{}> is not allowed on this target", header), line});
  }
  return out;
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
  return text;
}

RuleSet load_rules(const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}: {}", file.string(), e.source().begin.line, e.description()));
  }
  RuleSet rules;
  rules.max_source_bytes = size_t(root["limits"]["max_source_bytes"].value_or(int64_t(256 * 1024)));
  if (auto* forbid = root["forbid"].as_array()) {
    for (const auto& node : *forbid) {
      const auto* t = node.as_table();
      if (!t) throw Error(fmt::format("{}: [[forbid]] entries must be tables", file.string()));
      ForbiddenPattern p;
      p.id = (*t)["id"].value_or(std::string());
      p.pattern = (*t)["pattern"].value_or(std::string());
      p.message = (*t)["message"].value_or(std::string());
      if (p.id.empty() || p.pattern.empty() || p.message.empty())
        throw Error(fmt::format("{}:{}: a [[forbid]] rule needs id, pattern and message", file.string(), node.source().begin.line));
      try {
        p.regex = std::regex(p.pattern, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        throw Error(fmt::format("{}:{}: bad pattern for rule '{}': {}", file.string(), node.source().begin.line, p.id, e.what()));
      }
      rules.forbidden.push_back(std::move(p));
    }
  }
  if (auto* includes = root["includes"]["allow"].as_array())
    for (const auto& h : *includes) rules.allowed_includes.insert(h.value_or(std::string()));
  rules.allow_quoted_includes = root["includes"]["allow_quoted"].value_or(false);
  return rules;
}

}  // namespace ksearch
