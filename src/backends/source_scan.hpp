#pragma once
// Lexing of C/C++ source as the compiler sees it (line splices, comments, raw strings, digit
// separators), for rules on identifiers: the candidate's own text, or the preprocessor's output,
// of which only the part its line markers attribute to the candidate's file counts.
#include <string>
#include <string_view>
#include <vector>

namespace ksearch::backends {

struct SourceIdentifier {
  std::string name;
  int line = 0;      // 1-based, in the candidate's file
  size_t token = 0;  // its index in SourceScan::tokens
};

struct IncludedFile {
  std::string path;  // as the preprocessor opened it
  int line = 0;      // of the #include in the candidate's file
};

// An `#include`, `#include_next` or `#import` of the candidate's own text, as the preprocessor reads it (line
// splices joined, `%:` for `#`): what follows the directive's name, to the end of its line.
struct IncludeDirective {
  std::string directive;  // include, include_next or import
  std::string target;     // <name>, "name" or anything else (a macro), without surrounding space
  int line = 0;
};

struct SourceScan {
  std::vector<SourceIdentifier> identifiers;  // outside comments and literals, directives included
  // Every token, in order, for rules that look at an identifier's neighbours: identifiers, punctuators
  // (`::`, `->` and `&&` as one, others one character each), a literal as `0`, `"` or `'`.
  std::vector<std::string> tokens;
  std::vector<IncludeDirective> include_directives;  // source text only
  std::vector<int> line_directives;           // lines of `#line N "file"` / `# N "file"` in the text
  std::vector<IncludedFile> includes;         // preprocessed: the files the candidate includes itself
  // Source text only: the text as the compiler reads its tokens, for rules written as patterns: line splices
  // joined (the lines they joined follow as empty lines, so that line numbers are the file's), digraphs as the
  // punctuators they stand for, comments as a space; literals keep their quotes, their contents blanked in
  // `code` (newlines kept) and kept in `code_and_strings`.
  std::string code, code_and_strings;
};

// The candidate's own text.
SourceScan scan_source(std::string_view text);
// The output of `cc -E` (with line markers): identifiers attributed to `file`, with their lines there,
// including the expansions of macros used in it, and the files it includes directly.
SourceScan scan_preprocessed(std::string_view text, const std::string& file);

}  // namespace ksearch::backends
