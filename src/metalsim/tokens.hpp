// Metal source text as tokens: what rewrite.cpp turns into host C++ and address_spaces.cpp reads for conversions
// between address spaces. Comments and whitespace are Space tokens, so that the texts joined give the input back.
#pragma once
#include <string>
#include <vector>

namespace ksearch::metalsim {

enum class Tok { Ident, Number, Punct, Space, String };
struct Token {
  Tok kind;
  std::string text;
  int line;  // 1-based, of the token's first character
};

std::vector<Token> tokenize(const std::string& s);
// The index of the first token after i that is not a Space (t.size() if none), and of the last before it (-1 if none).
std::size_t next_token(const std::vector<Token>& t, std::size_t i);
long previous_token(const std::vector<Token>& t, std::size_t i);
// The index of the bracket that closes the one at `open` ('(', '[', '{' or a template's '<'; a '>>' closes two, and a
// '<' that a ';' or '{' follows before its '>' is no bracket), or npos if none.
std::size_t closing_bracket(const std::vector<Token>& t, std::size_t open);
// Which tokens lie on preprocessor lines: from a `#` first on its line to the newline that ends it, past newlines
// a backslash continues and those inside a block comment (a comment is one space to the preprocessor).
std::vector<bool> directive_tokens(const std::vector<Token>& t);

}  // namespace ksearch::metalsim
