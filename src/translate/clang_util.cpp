#include "translate/clang_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ksearch::translate {

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string r = c ? c : "";
  clang_disposeString(s);
  return r;
}

std::string spelling(CXCursor c) { return take(clang_getCursorSpelling(c)); }

std::vector<CXCursor> children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

bool has_child(CXCursor c, CXCursorKind kind) {
  for (CXCursor child : children(c))
    if (clang_getCursorKind(child) == kind) return true;
  return false;
}

bool is_record(CXCursorKind kind) {
  return kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl || kind == CXCursor_ClassTemplate ||
         kind == CXCursor_ClassTemplatePartialSpecialization;
}

CXCursor file_level_declaration(CXCursor c) {
  for (CXCursor p = clang_getCursorSemanticParent(c);; p = clang_getCursorSemanticParent(p)) {
    const CXCursorKind k = clang_getCursorKind(p);
    if (!is_record(k) && k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate && k != CXCursor_CXXMethod &&
        k != CXCursor_Constructor && k != CXCursor_Destructor && k != CXCursor_ConversionFunction)
      return c;
    c = p;
  }
}

bool is_cast(CXCursorKind kind) {
  return kind == CXCursor_CStyleCastExpr || kind == CXCursor_CXXStaticCastExpr || kind == CXCursor_CXXReinterpretCastExpr ||
         kind == CXCursor_CXXConstCastExpr || kind == CXCursor_CXXFunctionalCastExpr;
}

std::vector<CXCursor> parameters_of(CXCursor function) {
  std::vector<CXCursor> out;
  for (CXCursor k : children(function))
    if (clang_getCursorKind(k) == CXCursor_ParmDecl) out.push_back(k);
  return out;
}

std::vector<std::string> tokens_of(CXTranslationUnit unit, CXCursor c) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(c), &tokens, &n);
  std::vector<std::string> out;
  for (unsigned i = 0; i < n; ++i) out.push_back(take(clang_getTokenSpelling(unit, tokens[i])));
  clang_disposeTokens(unit, tokens, n);
  return out;
}

std::string operator_of(CXTranslationUnit unit, CXCursor c) {
  const std::vector<CXCursor> kids = children(c);
  if (kids.size() != 2) return "";
  const unsigned lhs_end = end_offset(kids[0]), rhs_begin = begin_offset(kids[1]);
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(c), &tokens, &n);
  std::string op;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned at = position(clang_getTokenLocation(unit, tokens[i])).offset;
    if (at >= lhs_end && at < rhs_begin && clang_getTokenKind(tokens[i]) == CXToken_Punctuation) op = take(clang_getTokenSpelling(unit, tokens[i]));
  }
  clang_disposeTokens(unit, tokens, n);
  return op;
}

Position position(CXSourceLocation location) {
  CXFile file;
  Position p;
  clang_getExpansionLocation(location, &file, &p.line, &p.column, &p.offset);
  p.file = file ? take(clang_getFileName(file)) : "";
  return p;
}

Position position(CXCursor c) { return position(clang_getCursorLocation(c)); }

std::vector<CXCursor> written_arguments(CXCursor call) {
  std::vector<CXCursor> out;
  for (int i = 0; i < clang_Cursor_getNumArguments(call); ++i) {
    const CXCursor argument = clang_Cursor_getArgument(call, unsigned(i));
    if (clang_Range_isNull(clang_getCursorExtent(argument))) break;
    out.push_back(argument);
  }
  return out;
}

unsigned begin_offset(CXCursor c) { return position(clang_getRangeStart(clang_getCursorExtent(c))).offset; }
unsigned end_offset(CXCursor c) { return position(clang_getRangeEnd(clang_getCursorExtent(c))).offset; }

std::string decl_key(CXCursor declaration) {
  const Position p = position(declaration);
  return p.file + "@" + std::to_string(p.offset);
}

CXCursor strip_implicit(CXCursor c) {
  while (clang_getCursorKind(c) == CXCursor_UnexposedExpr) {
    std::vector<CXCursor> kids = children(c);
    if (kids.size() != 1) break;
    c = kids[0];
  }
  return c;
}

std::vector<CXCursor> written_template_values(CXCursor call) {
  std::vector<CXCursor> values;
  const std::vector<CXCursor> kids = children(call);
  if (kids.empty()) return values;
  const CXCursor callee = strip_implicit(kids[0]);
  const CXCursorKind kind = clang_getCursorKind(callee);
  if (kind != CXCursor_DeclRefExpr && kind != CXCursor_MemberRefExpr) return values;
  for (CXCursor a : children(callee))
    // (a method's object, `plan` of `plan.launch<256>(...)`, starts where the callee does)
    if (clang_isExpression(clang_getCursorKind(a)) && (kind == CXCursor_DeclRefExpr || begin_offset(a) > begin_offset(callee)))
      values.push_back(a);
  return values;
}

std::vector<WrittenArgument> written_template_arguments(CXTranslationUnit unit, CXCursor callee) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(unit, clang_getCursorExtent(callee), &tokens, &n);
  std::vector<WrittenArgument> arguments;
  // The open brackets: `<` is one where a list is open (a nested template's), a comparison inside (), [] or {}.
  std::string open;
  for (unsigned i = 0; i < n; ++i) {
    const std::string t = take(clang_getTokenSpelling(unit, tokens[i]));
    const CXSourceRange extent = clang_getTokenExtent(unit, tokens[i]);
    const unsigned at = position(clang_getRangeStart(extent)).offset, after = position(clang_getRangeEnd(extent)).offset;
    if (open.empty()) {
      if (t != "<") continue;
      open = "<";
      arguments.emplace_back();
      continue;
    }
    if (open.size() == 1 && t == ",") {
      arguments.emplace_back();
      continue;
    }
    const bool in_list = open.back() == '<';
    if (in_list && (t == ">" || t == ">>")) {
      const size_t closes = std::min(t.size(), open.size());
      open.resize(open.size() - closes);
      if (open.empty()) {  // the list's end (`>>` of `k<Foo<int>>` also ends the last argument's inner list)
        if (closes > 1) arguments.back().text += ">", arguments.back().end = after - 1;
        break;
      }
    } else if (t == "(" || t == "[" || t == "{" || (in_list && t == "<")) {
      open += t[0];
    } else if ((t == ")" || t == "]" || t == "}") && open.size() > 1) {
      open.pop_back();
    }
    WrittenArgument& a = arguments.back();
    if (a.text.empty()) a.begin = at;
    a.text += (a.text.empty() ? "" : " ") + t;
    a.end = after;
  }
  clang_disposeTokens(unit, tokens, n);
  if (arguments.size() == 1 && arguments[0].text.empty()) arguments.clear();  // `k<>`
  return arguments;
}

std::string integral_template_argument(CXCursor specialization, unsigned i, CXCursor parameter) {
  const CXTypeKind type = clang_getCanonicalType(clang_getCursorType(parameter)).kind;
  if (type == CXType_Bool) return clang_Cursor_getTemplateArgumentValue(specialization, i) != 0 ? "1" : "0";
  if (type >= CXType_Char_U && type <= CXType_UInt128)
    return std::to_string(clang_Cursor_getTemplateArgumentUnsignedValue(specialization, i));
  return std::to_string(clang_Cursor_getTemplateArgumentValue(specialization, i));
}

std::optional<long long> integer_constant(CXCursor e) {
  if (clang_Cursor_isNull(e)) return std::nullopt;
  CXEvalResult value = clang_Cursor_Evaluate(e);
  std::optional<long long> out;
  if (value && clang_EvalResult_getKind(value) == CXEval_Int) out = clang_EvalResult_getAsLongLong(value);
  if (value) clang_EvalResult_dispose(value);
  return out;
}

bool null_pointer_constant(CXCursor e) {
  const CXCursor value = strip_implicit(e);
  const CXCursorKind kind = clang_getCursorKind(value);
  return kind == CXCursor_CXXNullPtrLiteralExpr || kind == CXCursor_GNUNullExpr ||
         (kind == CXCursor_IntegerLiteral && integer_constant(value) == 0);
}

std::string constant_text(CXCursor c) {
  CXEvalResult value = clang_Cursor_Evaluate(c);
  if (!value) return "";
  std::string text;
  const CXEvalResultKind kind = clang_EvalResult_getKind(value);
  // A bool's 1-bit value reads as -1 signed: `true` is 1.
  if (kind == CXEval_Int && clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Bool) {
    text = clang_EvalResult_getAsLongLong(value) != 0 ? "1" : "0";
  } else if (kind == CXEval_Int && clang_EvalResult_isUnsignedInt(value)) {
    text = std::to_string(clang_EvalResult_getAsUnsigned(value));
  } else if (kind == CXEval_Int) {
    text = std::to_string(clang_EvalResult_getAsLongLong(value));
  } else if (kind == CXEval_Float) {
    const double v = clang_EvalResult_getAsDouble(value);
    if (std::isinf(v)) text = v > 0 ? "_inf" : "-_inf";
    else if (!std::isnan(v)) text = fmt::format("{}", v);
  }
  clang_EvalResult_dispose(value);
  return text;
}

std::string element_type(CXType t) {
  t = clang_getCanonicalType(t);
  if (t.kind == CXType_Pointer) t = clang_getCanonicalType(clang_getPointeeType(t));
  else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray) t = clang_getCanonicalType(clang_getArrayElementType(t));
  std::string spelled = take(clang_getTypeSpelling(t));
  for (const std::string q : {"const ", "volatile "})
    for (size_t at; (at = spelled.find(q)) != std::string::npos;) spelled.erase(at, q.size());
  return spelled;
}

CXCursor strip_casts(CXCursor c) {
  for (c = strip_implicit(c);; ) {
    const CXCursorKind kind = clang_getCursorKind(c);
    if (kind != CXCursor_ParenExpr && !is_cast(kind)) return c;
    const std::vector<CXCursor> kids = children(c);
    if (kids.empty()) return c;
    c = strip_implicit(kids.back());  // a cast's written type (a TypeRef) comes first
  }
}

CXCursor defining_cursor(CXCursor function) {
  const CXCursor pattern = clang_getSpecializedCursorTemplate(function), definition = clang_getCursorDefinition(function);
  return !clang_Cursor_isNull(pattern) ? pattern : clang_Cursor_isNull(definition) ? function : definition;
}

namespace {
// A function of an overload set (`using ::erfc;` shadows come first in <cmath>'s), else its first member.
CXCursor function_of_overloads(CXCursor set) {
  const unsigned n = clang_getNumOverloadedDecls(set);
  for (unsigned i = 0; i < n; ++i) {
    CXCursor d = clang_getOverloadedDecl(set, i);
    if (clang_getCursorKind(d) == CXCursor_FunctionDecl || clang_getCursorKind(d) == CXCursor_FunctionTemplate) return d;
  }
  return n > 0 ? clang_getOverloadedDecl(set, 0) : clang_getNullCursor();
}

// The method named by a dependent reference (`obj.sum`, `Reduce<N>::sum`) in `record`, the struct (template) its
// object's type or its qualifier names: a dependent name names no declaration, so its name is the expression's
// last token.
CXCursor method_named_by(CXCursor reference, CXCursor record) {
  std::string name = spelling(reference);
  if (name.empty()) {
    const CXTranslationUnit unit = clang_Cursor_getTranslationUnit(reference);
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(unit, clang_getCursorExtent(reference), &tokens, &n);
    if (n > 0 && clang_getTokenKind(tokens[n - 1]) == CXToken_Identifier) name = take(clang_getTokenSpelling(unit, tokens[n - 1]));
    clang_disposeTokens(unit, tokens, n);
  }
  return method_of(record, name);
}
}  // namespace

CXCursor method_of(CXCursor record, const std::string& name) {
  const CXCursor pattern = clang_getSpecializedCursorTemplate(record);
  if (!clang_Cursor_isNull(pattern)) record = pattern;
  for (CXCursor k : children(record))
    if ((clang_getCursorKind(k) == CXCursor_CXXMethod || clang_getCursorKind(k) == CXCursor_FunctionTemplate) && spelling(k) == name)
      return k;
  return clang_getNullCursor();
}

std::string canonical_builtin_type(const std::string& written) {
  std::istringstream words(written);
  std::string word, base;
  bool is_unsigned = false, is_signed = false, is_short = false;
  int longs = 0;
  while (words >> word) {
    if (word == "unsigned") is_unsigned = true;
    else if (word == "signed") is_signed = true;
    else if (word == "long") ++longs;
    else if (word == "short") is_short = true;
    else if (word != "const" && word != "volatile") base = word;
  }
  if (base.empty() || base == "int") base = is_short ? "short" : longs == 2 ? "long long" : longs ? "long" : "int";
  else if (base == "double" && longs) base = "long double";
  if (base == "char" && is_signed) base = "signed char";
  return (is_unsigned ? "unsigned " : "") + base;
}

std::vector<std::string> type_template_arguments(CXType t) {
  const std::string text = take(clang_getTypeSpelling(t));
  std::vector<std::string> arguments;
  const size_t open = text.find('<');
  if (open == std::string::npos) return arguments;
  int depth = 0;
  std::string current;
  for (size_t i = open + 1; i < text.size(); ++i) {
    const char ch = text[i];
    if ((ch == ',' || ch == '>') && depth == 0) {
      const size_t b = current.find_first_not_of(' '), e = current.find_last_not_of(' ');
      arguments.push_back(b == std::string::npos ? "" : current.substr(b, e - b + 1));
      current.clear();
      if (ch == '>') break;
      continue;
    }
    depth += (ch == '<' || ch == '(') - (ch == '>' || ch == ')');
    current += ch;
  }
  return arguments;
}

bool is_address_operation(CXTranslationUnit unit, CXCursor e) {
  if (clang_getCursorKind(e) != CXCursor_UnaryOperator || children(e).size() != 1) return false;
  const std::vector<std::string> tokens = tokens_of(unit, e);
  return !tokens.empty() && (tokens.front() == "&" || tokens.front() == "*");
}

bool is_lambda_operator(CXCursor method) {
  const CXCursorKind kind = clang_getCursorKind(method);
  if ((kind != CXCursor_CXXMethod && kind != CXCursor_FunctionTemplate) || spelling(method) != "operator()") return false;
  return take(clang_getTypeSpelling(clang_getCursorType(clang_getCursorSemanticParent(method)))).find("(lambda at ") !=
         std::string::npos;
}

int object_arguments(CXCursor call, CXCursor definition) {
  const CXCursorKind kind = clang_getCursorKind(definition);
  const bool member_operator = (kind == CXCursor_CXXMethod || kind == CXCursor_FunctionTemplate) &&
                               !clang_CXXMethod_isStatic(definition) && spelling(definition).rfind("operator", 0) == 0;
  // (an operator call's first argument is the object it is called on, written first; a call through a template's
  // parameter resolves no operator yet, and its arguments start after the object)
  const std::vector<CXCursor> kids = children(call);
  const bool object_first = !kids.empty() && clang_Cursor_getNumArguments(call) > 0 &&
                            begin_offset(clang_Cursor_getArgument(call, 0)) == begin_offset(kids[0]) &&
                            clang_getCursorKind(kids[0]) != CXCursor_MemberRefExpr;  // (not `f.operator()(x)`)
  return member_operator && object_first ? 1 : 0;
}

CXCursor called_declaration(CXCursor call) {
  CXCursor callee = clang_getCursorReferenced(call);
  if (!clang_Cursor_isNull(callee)) return callee;
  // Calls whose callee depends on a template parameter: the callee expression names an overload set.
  std::vector<CXCursor> kids = children(call);
  if (kids.empty()) return clang_getNullCursor();
  // A qualified name (`std::erfc`) is the overload set itself, its children the qualifier.
  if (clang_getCursorKind(kids[0]) == CXCursor_OverloadedDeclRef) return function_of_overloads(kids[0]);
  // A method called on an object of a dependent type (`Reduce(storage).Sum(v)`, `vec_t<float, N> v; v.load(p)` in a
  // template): the method of that name of the struct (template) the type names, never a name in the object.
  if (clang_getCursorKind(kids[0]) == CXCursor_MemberRefExpr) {
    const CXCursor member = clang_getCursorReferenced(kids[0]);
    if (clang_getCursorKind(member) == CXCursor_CXXMethod || clang_getCursorKind(member) == CXCursor_FunctionTemplate) return member;
    const std::vector<CXCursor> object = children(kids[0]);
    if (object.empty()) return clang_getNullCursor();
    CXType type = clang_getCursorType(strip_implicit(object[0]));
    if (clang_getCanonicalType(type).kind == CXType_Pointer) type = pointee_type(type);
    CXCursor record = clang_getTypeDeclaration(type);
    if (clang_getCursorKind(record) == CXCursor_TypedefDecl || clang_getCursorKind(record) == CXCursor_TypeAliasDecl)
      record = clang_getTypeDeclaration(clang_getTypedefDeclUnderlyingType(record));
    return method_named_by(kids[0], record);
  }
  // A static method of a struct template qualified by dependent arguments (`BlockSum<kBlock>::sum(t, v)`): the
  // reference names nothing, its qualifier the template (before its arguments, which name other declarations).
  if (clang_getCursorKind(kids[0]) == CXCursor_DeclRefExpr && clang_Cursor_isNull(clang_getCursorReferenced(kids[0]))) {
    const std::vector<CXCursor> qualifier = children(kids[0]);
    if (!qualifier.empty() && clang_getCursorKind(qualifier[0]) == CXCursor_TemplateRef)
      return method_named_by(kids[0], clang_getCursorReferenced(qualifier[0]));
  }
  CXCursor found = clang_getNullCursor();
  clang_visitChildren(
      kids[0],
      [](CXCursor c, CXCursor, CXClientData data) {
        if (clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
          *static_cast<CXCursor*>(data) = function_of_overloads(c);
          return CXChildVisit_Break;
        }
        if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
          *static_cast<CXCursor*>(data) = clang_getCursorReferenced(c);
          return CXChildVisit_Break;
        }
        return CXChildVisit_Recurse;
      },
      &found);
  return found;
}

CXCursor written_type(CXCursor c) {
  CXCursor named = clang_getCursorKind(c) == CXCursor_TypeRef ? c : clang_getNullCursor();
  const CXCursor referenced = clang_getCursorReferenced(strip_implicit(c));
  if (clang_Cursor_isNull(named) && clang_getCursorKind(referenced) == CXCursor_ParmDecl)
    for (CXCursor k : children(referenced))
      if (clang_getCursorKind(k) == CXCursor_TypeRef) named = k;
  return clang_Cursor_isNull(named) ? named : clang_getCursorReferenced(named);
}

bool is_pointer(CXType t) { return clang_getCanonicalType(t).kind == CXType_Pointer; }
CXType array_element_or_self(CXType t) {
  t = clang_getCanonicalType(t);
  while (clang_getArrayElementType(t).kind != CXType_Invalid) t = clang_getCanonicalType(clang_getArrayElementType(t));
  return t;
}
bool is_array_pointer(CXType t) {
  if (!is_pointer(t)) return false;
  const CXTypeKind pointee = clang_getCanonicalType(pointee_type(t)).kind;
  return pointee == CXType_ConstantArray || pointee == CXType_IncompleteArray;
}
bool is_const_object(CXType t) {
  for (;; t = clang_getArrayElementType(t)) {
    if (clang_isConstQualifiedType(t) || clang_isConstQualifiedType(clang_getCanonicalType(t))) return true;
    if (clang_getArrayElementType(t).kind == CXType_Invalid) return false;
  }
}
bool is_reference(CXType t) {
  const CXTypeKind k = clang_getCanonicalType(t).kind;
  return k == CXType_LValueReference || k == CXType_RValueReference;
}
bool is_function_pointer(CXType t) {
  while (clang_getArrayElementType(t).kind != CXType_Invalid) t = clang_getArrayElementType(t);
  if (!is_pointer(t) && !is_reference(t)) return false;
  const CXTypeKind pointee = clang_getCanonicalType(pointee_type(t)).kind;
  return pointee == CXType_FunctionProto || pointee == CXType_FunctionNoProto;
}
CXType pointee_type(CXType t) {
  CXType bare = t;
  for (bool sugar = true; sugar;) {
    sugar = bare.kind == CXType_Elaborated || bare.kind == CXType_Typedef;
    if (bare.kind == CXType_Elaborated) bare = clang_Type_getNamedType(bare);
    else if (bare.kind == CXType_Typedef) bare = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(bare));
  }
  const CXType pointee = clang_getPointeeType(bare);
  // Other sugar (a substituted template parameter): the canonical pointer's pointee, which names no typedef.
  return pointee.kind != CXType_Invalid ? pointee : clang_getPointeeType(clang_getCanonicalType(t));
}

}  // namespace ksearch::translate
