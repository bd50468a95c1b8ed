#include "llm/extract.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace ksearch::llm {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string strip_quotes(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return std::string(s.substr(1, s.size() - 2));
  return std::string(s);
}

// Models' answers are untrusted text, and std::regex recurses once per character it matches: each regex below reads
// a piece of bounded length (a degenerate answer's 200 KB fence line or tag would overflow the stack).
constexpr size_t kMaxFilename = 255;
constexpr size_t kMaxTagAttributes = 4096;

bool looks_like_filename(std::string_view s) {
  if (s.size() > kMaxFilename) return false;
  static const std::regex re(R"([\w./+-]*\w\.[A-Za-z0-9]{1,8})");
  return std::regex_match(s.begin(), s.end(), re);
}

// Drop blank lines at the start and whitespace at the end; keep indentation.
std::string tidy(std::string_view code) {
  size_t start = 0;
  while (true) {
    size_t nl = code.find('\n', start);
    if (nl == std::string_view::npos || !trim(code.substr(start, nl - start)).empty()) break;
    start = nl + 1;
  }
  code = code.substr(start);
  size_t end = code.find_last_not_of(" \t\r\n");
  return end == std::string_view::npos ? std::string() : std::string(code.substr(0, end + 1));
}

void set_language_from_filename(CodeBlock& b) {
  if (!b.language && b.filename) b.language = language_from_filename(*b.filename);
}

struct Line {
  size_t begin, end;  // end excludes the '\n'
};

Line line_at(std::string_view text, size_t pos) {
  size_t b = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  b = (b == std::string_view::npos || pos == 0) ? 0 : b + 1;
  size_t e = text.find('\n', pos);
  return {b, e == std::string_view::npos ? text.size() : e};
}

// A fence opens at a line start (after indentation) with 3+ ` or ~.
struct Fence {
  size_t line_begin, marker_pos;
  char ch;
  size_t len;
};

std::optional<Fence> find_fence(std::string_view text, size_t from) {
  for (size_t pos = from; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    size_t p = pos;
    while (p < end && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p < end && (text[p] == '`' || text[p] == '~')) {
      size_t q = p;
      while (q < end && text[q] == text[p]) ++q;
      if (q - p >= 3) return Fence{pos, p, text[p], q - p};
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return std::nullopt;
}

// Filename named on the line right above a fence.
std::optional<std::string> filename_above(std::string_view text, size_t fence_line_begin) {
  if (fence_line_begin == 0) return std::nullopt;
  Line l = line_at(text, fence_line_begin - 1);
  std::string_view s = trim(text.substr(l.begin, l.end - l.begin));
  if (s.empty() || s.size() > 120) return std::nullopt;
  static const std::regex re(
      R"(^(?:#+\s*)?(?:[*_]{1,2})?(?:(?:file(?:name)?|path)\s*:?\s*)?(?:[*_]{1,2})?`?([\w./+-]*\w\.[A-Za-z0-9]{1,8})`?(?:[*_]{1,2})?\s*:?$)",
      std::regex::icase);
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_match(s.begin(), s.end(), m, re)) return m[1].str();
  return std::nullopt;
}

void parse_info_string(std::string_view info, CodeBlock& b) {
  info = trim(info);
  size_t i = 0;
  bool first = true;
  while (i < info.size()) {
    size_t j = info.find_first_of(" \t", i);
    if (j == std::string_view::npos) j = info.size();
    std::string_view tok = info.substr(i, j - i);
    i = info.find_first_not_of(" \t", j);
    if (i == std::string_view::npos) i = info.size();
    if (tok.empty()) continue;
    if (auto eq = tok.find('='); eq != std::string_view::npos) {
      std::string key = lower(tok.substr(0, eq));
      if (key == "title" || key == "file" || key == "filename" || key == "name" || key == "path")
        b.filename = strip_quotes(tok.substr(eq + 1));
    } else if (first) {
      if (!tok.empty() && tok.front() == '{') continue;  // pandoc attributes
      if (auto colon = tok.find(':'); colon != std::string_view::npos) {
        if (colon > 0) b.language = normalize_language(tok.substr(0, colon));
        if (colon + 1 < tok.size()) b.filename = std::string(tok.substr(colon + 1));
      } else if (looks_like_filename(tok)) {
        b.filename = std::string(tok);
      } else {
        b.language = normalize_language(tok);
      }
    }
    first = false;
  }
}

// Parses the fence at f; returns the position after its closing line.
size_t take_fence(std::string_view text, const Fence& f, std::vector<CodeBlock>& out) {
  CodeBlock b;
  Line open = line_at(text, f.marker_pos);
  parse_info_string(text.substr(f.marker_pos + f.len, open.end - f.marker_pos - f.len), b);
  if (!b.filename) b.filename = filename_above(text, f.line_begin);
  size_t body = open.end < text.size() ? open.end + 1 : text.size();
  size_t pos = body;
  size_t next = text.size();
  size_t code_end = text.size();
  b.complete = false;
  while (pos < text.size()) {
    Line l = line_at(text, pos);
    std::string_view t = trim(text.substr(l.begin, l.end - l.begin));
    if (t.size() >= f.len && t.find_first_not_of(f.ch) == std::string_view::npos) {
      code_end = l.begin;
      next = l.end;
      b.complete = true;
      break;
    }
    pos = l.end + 1;
  }
  std::string_view code = text.substr(body, code_end > body ? code_end - body : 0);
  if (!code.empty() && code.back() == '\n') code.remove_suffix(1);
  if (!code.empty() && code.back() == '\r') code.remove_suffix(1);
  b.code = std::string(code);
  set_language_from_filename(b);
  out.push_back(std::move(b));
  return next;
}

constexpr std::array<std::string_view, 3> kTags = {"code", "kernel", "file"};

struct Tag {
  size_t begin;  // '<'
  size_t content_begin;
  std::string name;
  std::string attrs;
};

std::optional<Tag> find_tag(std::string_view text, size_t from) {
  for (size_t pos = text.find('<', from); pos != std::string_view::npos; pos = text.find('<', pos + 1)) {
    for (auto name : kTags) {
      if (text.substr(pos + 1, name.size()) != name) continue;
      size_t after = pos + 1 + name.size();
      if (after >= text.size() || !(text[after] == '>' || std::isspace(static_cast<unsigned char>(text[after])))) continue;
      size_t close = text.find('>', after);
      if (close == std::string_view::npos) return std::nullopt;
      return Tag{pos, close + 1, std::string(name), std::string(text.substr(after, close - after))};
    }
  }
  return std::nullopt;
}

std::optional<std::string> attribute(const std::string& attrs, std::initializer_list<const char*> names) {
  if (attrs.size() > kMaxTagAttributes) return std::nullopt;
  static const std::regex re(R"re(([A-Za-z_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))re");
  for (auto it = std::sregex_iterator(attrs.begin(), attrs.end(), re); it != std::sregex_iterator(); ++it) {
    std::string key = lower((*it)[1].str());
    for (const char* n : names)
      if (key == n) {
        for (int g = 2; g <= 4; ++g)
          if ((*it)[g].matched) return (*it)[g].str();
      }
  }
  return std::nullopt;
}

void scan(std::string_view text, std::vector<CodeBlock>& out);

size_t take_tag(std::string_view text, const Tag& tag, std::vector<CodeBlock>& out) {
  std::string closing = "</" + tag.name + ">";
  size_t close = text.find(closing, tag.content_begin);
  bool complete = close != std::string_view::npos;
  size_t content_end = complete ? close : text.size();
  std::string_view inner = text.substr(tag.content_begin, content_end - tag.content_begin);
  auto filename = attribute(tag.attrs, {"name", "filename", "path", "file"});
  auto language = attribute(tag.attrs, {"language", "lang"});

  std::vector<CodeBlock> nested;
  scan(inner, nested);
  if (nested.empty()) {
    CodeBlock b;
    b.code = tidy(inner);
    nested.push_back(std::move(b));
  }
  for (auto& b : nested) {
    if (nested.size() == 1 && filename && !b.filename) b.filename = filename;
    if (language && !b.language) b.language = normalize_language(*language);
    b.complete = b.complete && complete;
    set_language_from_filename(b);
    out.push_back(std::move(b));
  }
  return complete ? close + closing.size() : text.size();
}

void scan(std::string_view text, std::vector<CodeBlock>& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    auto fence = find_fence(text, pos);
    auto tag = find_tag(text, pos);
    if (fence && (!tag || fence->marker_pos < tag->begin)) pos = take_fence(text, *fence, out);
    else if (tag) pos = take_tag(text, *tag, out);
    else break;
  }
}

// End of the balanced {...} starting at `open`, respecting JSON strings.
std::optional<size_t> balanced_end(std::string_view text, size_t open) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i;
    }
  }
  return std::nullopt;
}

std::optional<nlohmann::json> parse_object(std::string_view s) {
  auto j = nlohmann::json::parse(s.begin(), s.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace

std::string normalize_language(std::string_view lang) {
  std::string l = lower(trim(lang));
  if (l == "c++" || l == "cxx" || l == "cc" || l == "hpp") return "cpp";
  if (l == "cu" || l == "cuh") return "cuda";
  if (l == "py" || l == "python3") return "python";
  if (l == "objective-c++" || l == "objc++") return "objcpp";
  return l;
}

std::optional<std::string> language_from_filename(std::string_view filename) {
  auto dot = filename.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string ext = lower(filename.substr(dot + 1));
  if (ext == "cu" || ext == "cuh") return "cuda";
  if (ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "hpp" || ext == "hh" || ext == "h") return "cpp";
  if (ext == "c") return "c";
  if (ext == "py") return "python";
  if (ext == "metal") return "metal";
  if (ext == "mm") return "objcpp";
  if (ext == "json") return "json";
  if (ext == "toml") return "toml";
  if (ext == "rs") return "rust";
  if (ext == "sh") return "bash";
  return std::nullopt;
}

std::vector<CodeBlock> extract_code_blocks(std::string_view text) {
  std::vector<CodeBlock> out;
  scan(text, out);
  return out;
}

std::optional<CodeBlock> extract_code(std::string_view text, const std::vector<std::string>& languages) {
  auto blocks = extract_code_blocks(text);
  if (blocks.empty()) return std::nullopt;
  auto wanted = [&](const CodeBlock& b) {
    if (languages.empty()) return true;
    for (const auto& l : languages) {
      std::string n = normalize_language(l);
      if (b.language == n) return true;
    }
    return false;
  };
  // Rank: wanted language, then complete, then length.
  auto rank = [&](const CodeBlock& b) { return std::tuple(wanted(b), b.complete, b.code.size()); };
  return *std::max_element(blocks.begin(), blocks.end(),
                           [&](const CodeBlock& a, const CodeBlock& b) { return rank(a) < rank(b); });
}

std::optional<nlohmann::json> extract_json(std::string_view text) {
  for (const auto& b : extract_code_blocks(text)) {
    if (b.language && *b.language != "json" && *b.language != "jsonc") continue;
    if (auto j = parse_object(trim(b.code))) return j;
  }
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    auto end = balanced_end(text, open);
    if (!end) continue;
    if (auto j = parse_object(text.substr(open, *end - open + 1))) return j;
  }
  return std::nullopt;
}

}  // namespace ksearch::llm
