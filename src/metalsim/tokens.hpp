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

}  // namespace ksearch::metalsim
