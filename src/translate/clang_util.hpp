#pragma once
// Small helpers over libclang's C API for the translator: cursor text, positions and children.
#include <clang-c/Index.h>

#include <optional>
#include <string>
#include <vector>

namespace ksearch::translate {

std::string take(CXString s);  // the string, disposed
std::string spelling(CXCursor c);
std::vector<CXCursor> children(CXCursor c);
bool has_child(CXCursor c, CXCursorKind kind);
// A struct or class declaration, also a template of one or its partial specialization.
bool is_record(CXCursorKind kind);
// The declaration at file or namespace scope that holds `c` (`c` itself where it is one): the struct around a method,
// the function around a local struct.
CXCursor file_level_declaration(CXCursor c);
// An explicit cast: C-style, functional, or static_, reinterpret_, const_cast.
bool is_cast(CXCursorKind kind);
std::vector<CXCursor> parameters_of(CXCursor function);  // its ParmDecl children, in order

struct Position {
  std::string file;
  unsigned line = 0, column = 0, offset = 0;
};
Position position(CXSourceLocation location);  // where the code is written (macro uses: the use)
Position position(CXCursor c);
unsigned begin_offset(CXCursor c);
unsigned end_offset(CXCursor c);
// A key unique to a declaration: its file and offset (also for parameters and locals).
std::string decl_key(CXCursor declaration);

// The spellings of the tokens a cursor spans.
std::vector<std::string> tokens_of(CXTranslationUnit unit, CXCursor c);
// A binary operator's operator (`=`, `+`, `&&`): the token between its operands; "" for anything else. libclang (14)
// names no operator, and inside a macro's expansion every token is placed at the macro's use, so there the operator
// is not found (""), and the caller names the macro.
std::string operator_of(CXTranslationUnit unit, CXCursor c);
// Whether a (canonical) type kind is an integer type, signed or not, bool aside.
inline bool is_integer_kind(CXTypeKind k) { return k >= CXType_Char_U && k <= CXType_Int128; }
// The element type of a pointer or array (or the type itself, for neither), canonical, as CUDA names it, without its
// const and volatile.
std::string element_type(CXType t);
// Skips implicit conversions and other unexposed wrappers that share their child's text.
CXCursor strip_implicit(CXCursor c);
// Skips those, parentheses and casts (`static_cast<uint32_t>(__cvta_generic_to_shared(p))`): the expression cast.
CXCursor strip_casts(CXCursor c);
// A constant the compiler evaluates (a literal, sizeof, constexpr arithmetic, `-INFINITY`) as a directive expression
// (`true` as 1, infinity as _inf); "" where it is none, or NaN.
std::optional<long long> integer_constant(CXCursor e);
// `nullptr`, `NULL` or a literal 0: a null pointer constant, which points into no address space.
bool null_pointer_constant(CXCursor e);
// An integral template argument of a specialization as a directive value: a bool as 1 or 0 (clang's 1-bit value
// reads as -1 signed), an unsigned one without sign extension.
std::string integral_template_argument(CXCursor specialization, unsigned i, CXCursor parameter);  // an integer constant expression's value, or nullopt
std::string constant_text(CXCursor c);
// The template arguments a call writes as expressions after the function's name (`k<64, &f>(...)`: 64, &f), in order.
std::vector<CXCursor> written_template_values(CXCursor call);
// The template arguments written after a name (`k<float, 4, T>`: the callee expression of a launch in a template
// launcher, which libclang does not resolve), each as its tokens and its offsets, in order; none without `<`.
struct WrittenArgument {
  std::string text;  // its tokens joined by spaces (`unsigned int`, `BLOCK * 2`)
  unsigned begin = 0, end = 0;
};
std::vector<WrittenArgument> written_template_arguments(CXTranslationUnit unit, CXCursor callee);
// The declaration a call calls, or a null cursor (dependent calls name an overload set: its first).
CXCursor called_declaration(CXCursor call);
// The arguments a call spells, in order: a parameter's default argument that it leaves out has no text.
std::vector<CXCursor> written_arguments(CXCursor call);
// `&e` or `*e`: the address of an object, or the object a pointer points to.
bool is_address_operation(CXTranslationUnit unit, CXCursor e);
// The call operator of a lambda (a method, or a method template for a generic lambda).
bool is_lambda_operator(CXCursor method);
// The arguments a call passes before the parameters of `definition`, the function it calls: 1 for an operator call of a
// method (a lambda's or a functor's `f(x)`, whose first argument is the object itself), else 0.
int object_arguments(CXCursor call, CXCursor definition);
// A function as the file defines it: a template specialization's pattern, else its definition, else itself.
CXCursor defining_cursor(CXCursor function);
// The method (or method template) `name` of a struct or of the template a specialization comes from; a null cursor.
CXCursor method_of(CXCursor record, const std::string& name);
// The declaration a type reference names, or the type a parameter that an expression names is declared with, as
// written (`Op` of `Op op`: a template parameter stays one); a null cursor for anything else.
CXCursor written_type(CXCursor c);
// A built-in type as written (`unsigned`, `long int`, `signed char`) in clang's canonical spelling (`unsigned int`,
// `long`, `signed char`); anything else as it is, qualifiers aside.
std::string canonical_builtin_type(const std::string& written);
// The template arguments in a type's spelling (`Tile<float, 64, Pair<int, 2>>`: `float`, `64`, `Pair<int, 2>`), in order.
std::vector<std::string> type_template_arguments(CXType t);
bool is_pointer(CXType t);
// The elements' type of an array (of arrays: the innermost), canonical; a type that is no array, canonical itself
// (so `is_pointer(array_element_or_self(t))`: a pointer, or an array of pointers).
CXType array_element_or_self(CXType t);
// A pointer to an array (`float (*tile)[33]`), whose declarator has its name inside parentheses.
bool is_array_pointer(CXType t);
// An object of this type cannot change: a const type, or an array of const elements (`const float t[4]`, whose const
// clang keeps on the element type).
bool is_const_object(CXType t);
bool is_reference(CXType t);
// A pointer or reference to a function, or an array of them (`float (*load)(const float*, int)`, `Op ops[2]`).
bool is_function_pointer(CXType t);
// What a pointer or reference type points to, also through typedefs (`typedef float* fptr;`), where
// clang_getPointeeType alone gives an invalid type.
CXType pointee_type(CXType t);

}  // namespace ksearch::translate
