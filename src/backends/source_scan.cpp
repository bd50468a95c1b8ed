#include "backends/source_scan.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

namespace ksearch::backends {

namespace {

bool identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}
bool identifier_char(char c) { return identifier_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool horizontal_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

// Translation phase 2: every backslash-newline removed (gcc also accepts spaces between the two).
// `splices` holds the offsets in `text` where one was, so that original line numbers can be told.
struct Spliced {
  std::string text;
  std::vector<size_t> splices;
};

Spliced splice_lines(std::string_view in) {
  Spliced out;
  out.text.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\\') {
      size_t j = i + 1;
      while (j < in.size() && horizontal_space(in[j])) ++j;
      if (j < in.size() && in[j] == '\n') {
        out.splices.push_back(out.text.size());
        i = j;
        continue;
      }
    }
    out.text.push_back(in[i]);
  }
  return out;
}

// One pass over spliced text. In preprocessed mode, line markers set the current file and line,
// and only the candidate's regions are lexed token by token (the rest is skipped line by line).
class Lexer {
 public:
  Lexer(const Spliced& spliced, std::optional<std::string> candidate_file)
      : s_(spliced.text), splices_(spliced.splices), candidate_(std::move(candidate_file)) {}

  SourceScan run() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (horizontal_space(c)) {
        emit(std::string_view(&s_[pos_++], 1));
        continue;
      }
      if (!in_candidate()) {  // a header's text: only its line markers matter
        if (line_start_ && c == '#') directive();
        else skip_to_newline();
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        emit(" ");
        skip_to_newline();
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        emit(" ");
        block_comment();
        continue;
      }
      const bool first = line_start_;
      line_start_ = false;
      if (first && (c == '#' || (c == '%' && peek(1) == ':'))) directive();
      else token();
    }
    return std::move(out_);
  }

 private:
  char peek(size_t ahead) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  bool in_candidate() const { return !candidate_ || current_file_ == *candidate_; }

  // Lines of the splices before `offset` count as lines of the file.
  void catch_up_splices(size_t offset) {
    while (next_splice_ < splices_.size() && splices_[next_splice_] <= offset) {
      ++next_splice_;
      ++line_;
    }
  }
  int line_here() {
    catch_up_splices(pos_);
    return line_;
  }
  // A line ends; in the code text the lines that splices joined into it follow as empty lines, so that
  // the text's line numbers are the file's (a construct is reported at its logical line's first line).
  void newline() {
    catch_up_splices(pos_);
    emit("\n");
    for (; emitted_splices_ < next_splice_; ++emitted_splices_) emit("\n");
    ++line_;
    ++pos_;
    line_start_ = true;
  }
  void emit(std::string_view text) {
    if (!in_candidate()) return;
    out_.code += text;
    out_.code_and_strings += text;
  }
  // A literal from `begin` (its prefix or opening quote) to pos_: the quotes are kept, the contents blanked
  // in `code` (newlines kept).
  void emit_literal(size_t begin) {
    const std::string_view text = s_.substr(begin, pos_ - begin);
    out_.code_and_strings += text;
    const size_t open = text.find_first_of("\"'");
    const size_t close = text.size() > open + 1 && (text.back() == '"' || text.back() == '\'') ? text.size() - 1 : text.size();
    for (size_t i = 0; i < text.size(); ++i)
      out_.code += i <= open || i >= close || text[i] == '\n' ? text[i] : ' ';
  }
  void skip_to_newline() {
    const size_t nl = s_.find('\n', pos_);
    pos_ = nl == std::string_view::npos ? s_.size() : nl;
  }
  void skip_horizontal_space() {
    while (pos_ < s_.size() && horizontal_space(s_[pos_])) ++pos_;
  }
  void block_comment() {
    pos_ += 2;
    while (pos_ < s_.size() && !(s_[pos_] == '*' && peek(1) == '/')) {
      if (s_[pos_] == '\n') newline();  // a directive may follow the comment's end on this line
      else ++pos_;
    }
    pos_ = std::min(pos_ + 2, s_.size());
  }
  std::string identifier() {
    const size_t begin = pos_;
    while (pos_ < s_.size() && identifier_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(begin, pos_ - begin));
  }
  void number() {  // a pp-number: digits, letters, dots, exponent signs and digit separators
    ++pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if ((c == '+' || c == '-') && std::strchr("eEpP", s_[pos_ - 1])) ++pos_;
      else if (c == '\'' && identifier_char(peek(1))) pos_ += 2;
      else if (identifier_char(c) || c == '.') ++pos_;
      else break;
    }
  }
  void quoted(char quote) {  // an unterminated literal ends with its line, as in the compiler
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '\n') {
      if (s_[pos_] == '\\') pos_ += 2;
      else if (s_[pos_++] == quote) return;
    }
    pos_ = std::min(pos_, s_.size());
  }
  void raw_string() {  // at the quote of R"delim( ... )delim"
    const size_t open = s_.find('(', pos_);
    const std::string_view delimiter = open == std::string_view::npos ? "" : s_.substr(pos_ + 1, open - pos_ - 1);
    if (open == std::string_view::npos || delimiter.size() > 16 || delimiter.find_first_of(" \\)\t\n") != std::string_view::npos)
      return quoted('"');  // not a raw string: the compiler rejects it
    const std::string end = ")" + std::string(delimiter) + "\"";
    const size_t close = s_.find(end, open);
    const size_t stop = close == std::string_view::npos ? s_.size() : close + end.size();
    for (size_t nl = s_.find('\n', open); nl < stop; nl = s_.find('\n', nl + 1)) {
      catch_up_splices(nl);
      ++line_;
    }
    pos_ = stop;
  }
  void token() {
    const size_t begin = pos_;
    const char c = s_[pos_];
    if (identifier_start(c)) {
      const int line = line_here();
      std::string name = identifier();
      const char next = pos_ < s_.size() ? s_[pos_] : '\0';
      const bool raw = next == '"' && (name == "R" || name == "u8R" || name == "uR" || name == "UR" || name == "LR");
      if (raw || ((next == '"' || next == '\'') && (name == "u8" || name == "u" || name == "U" || name == "L"))) {
        out_.tokens.emplace_back(1, next);
        raw ? raw_string() : quoted(next);
        return emit_literal(begin);
      }
      emit(name);
      add_identifier(std::move(name), line);
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      out_.tokens.emplace_back("0");
      number();
      emit(s_.substr(begin, pos_ - begin));
    } else if (c == '"' || c == '\'') {
      out_.tokens.emplace_back(1, c);
      quoted(c);
      emit_literal(begin);
    } else {
      const std::string_view spelled = punctuator();
      emit(spelled);
      out_.tokens.emplace_back(spelled);
    }
  }
  // The punctuator at pos_, a digraph as the punctuator it stands for. `<::` is `<` and `::` where the
  // next character is neither `:` nor `>` (C++'s exception, for `a<::b>`). `::`, `->` and `&&` are one
  // token, any other punctuator one character.
  std::string_view punctuator() {
    static constexpr std::pair<std::string_view, std::string_view> digraphs[] = {
        {"%:%:", "##"}, {"%:", "#"}, {"<%", "{"}, {"%>", "}"}, {"<:", "["}, {":>", "]"}};
    for (const auto& [digraph, meaning] : digraphs)
      if (s_.substr(pos_, digraph.size()) == digraph &&
          !(digraph == "<:" && peek(2) == ':' && peek(3) != ':' && peek(3) != '>')) {
        pos_ += digraph.size();
        return meaning;
      }
    const std::string_view pair = s_.substr(pos_, 2);
    const size_t length = pair == "::" || pair == "->" || pair == "&&" ? 2 : 1;
    pos_ += length;
    return s_.substr(pos_ - length, length);
  }
  void add_identifier(std::string name, int line) {
    out_.tokens.push_back(name);
    out_.identifiers.push_back({std::move(name), line, out_.tokens.size() - 1});
  }
  // At a `#` (or `%:`) that starts a line. In preprocessed output `# N "file" flags` is a line
  // marker; in source text a line directive, which would make the markers lie.
  void directive() {
    const int line = line_here();
    pos_ += s_[pos_] == '#' ? 1 : 2;
    emit("#");
    skip_horizontal_space();
    const bool numeric = std::isdigit(static_cast<unsigned char>(peek(0)));
    if (candidate_ && numeric) return line_marker();
    if (!in_candidate()) return skip_to_newline();
    if (numeric) return out_.line_directives.push_back(line);
    if (!identifier_start(peek(0))) return;
    const std::string name = identifier();
    emit(name);
    out_.tokens.emplace_back("#");
    add_identifier(name, line);
    if (name == "line") out_.line_directives.push_back(line);
    if (name == "include" || name == "include_next" || name == "import") {
      skip_horizontal_space();
      if (!candidate_) {
        size_t end = std::min(s_.find('\n', pos_), s_.size());
        while (end > pos_ && horizontal_space(s_[end - 1])) --end;
        out_.include_directives.push_back({name, std::string(s_.substr(pos_, end - pos_)), line});
      }
      if (peek(0) == '<') {  // a header name, not tokens
        const size_t close = s_.find_first_of(">\n", pos_);
        const size_t begin = pos_;
        pos_ = close == std::string_view::npos ? s_.size() : close;
        emit(" " + std::string(s_.substr(begin, pos_ - begin)));
      }
    }
  }
  void line_marker() {
    const size_t begin = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    const int number = std::atoi(std::string(s_.substr(begin, pos_ - begin)).c_str());
    skip_horizontal_space();
    std::string file;
    if (peek(0) == '"') {
      for (++pos_; pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\n'; ++pos_) {
        if (s_[pos_] == '\\') ++pos_;
        file.push_back(s_[pos_]);
      }
      if (peek(0) == '"') ++pos_;
    } else {
      file = current_file_;
    }
    const size_t end = s_.find('\n', pos_);
    const std::string_view flags = s_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
    const bool enters = flags.find(" 1") != std::string_view::npos;
    if (enters && in_candidate()) out_.includes.push_back({file, line_here()});
    skip_to_newline();
    current_file_ = file;
    catch_up_splices(pos_);
    line_ = number - 1;  // the newline that ends the marker starts line `number`
  }

  std::string_view s_;
  const std::vector<size_t>& splices_;
  std::optional<std::string> candidate_;
  SourceScan out_;
  std::string current_file_;
  size_t pos_ = 0, next_splice_ = 0, emitted_splices_ = 0;
  int line_ = 1;
  bool line_start_ = true;
};

}  // namespace

SourceScan scan_source(std::string_view text) {
  const Spliced spliced = splice_lines(text);
  return Lexer(spliced, std::nullopt).run();
}

SourceScan scan_preprocessed(std::string_view text, const std::string& file) {
  const Spliced spliced = splice_lines(text);
  return Lexer(spliced, file).run();
}

}  // namespace ksearch::backends
