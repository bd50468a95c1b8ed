#pragma once
// Host-side expressions of a kernel launch (grid, block, shared memory bytes, template arguments) as
// metal directive expressions over the task's axes and params (docs/METAL.md): the entry's
// parameters become the task's names, its local variables their initializers with the assignments
// before the launch applied, C++ integer division a floor (directive expressions are evaluated in
// floating point).
#include <clang-c/Index.h>

#include <array>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace ksearch::translate {

// An assignment to a variable of the entry (`n2 /= 2`, `grid.x = ...`, `++n`, `&sms`).
struct Assignment {
  unsigned at = 0;    // where it takes effect: the end of the assignment
  unsigned line = 0;
  std::string op;     // "=", "+=", ..., "++", "--"; empty when the value cannot be followed (then `why`)
  std::string why;
  CXCursor value = clang_getNullCursor();  // the assigned expression (none for ++ and --)
  std::string answer;                      // or the value the port gives (a device query's answer), for "="
  int field = -1;                          // 0, 1, 2 for `.x`, `.y`, `.z` of a dim3
  std::string member;                      // a field of a struct (`p.rows = ...`)
  std::vector<std::pair<CXCursor, bool>> guards;  // the enclosing ifs' conditions, true in the then branch
  // op "loop": a loop stepping the variable (`while (value) v step_op= step;`) at most `steps` times
  std::string step_op;
  long long step = 0;
  int steps = 0;
  std::optional<long long> start;  // the variable's value before the loop, where it is a constant
};

// A local struct of the entry, and where it is read.
struct StructLocal {
  CXCursor var = clang_getNullCursor();
  unsigned at = 0;
};

struct HostScope {
  CXTranslationUnit unit = nullptr;
  std::map<std::string, std::string> parameters;  // decl_key of an entry parameter -> task name
  std::map<std::string, std::vector<Assignment>> assignments;  // decl_key of a variable -> its assignments, in order
  int inlined_calls = 0;  // the depth of helper calls being inlined (a recursive helper is refused)
  std::map<std::string, CXType> types;  // decl_key of a launcher's template type parameter -> the call's type
  // While value_at writes a counting loop's condition at one of the loop variable's values: that value, for the
  // variable's uses inside the condition's extent (decl_key -> value, begin, end). Set and cleared by value_at.
  struct LoopValue {
    std::string value;
    unsigned begin = 0, end = 0;
  };
  mutable std::map<std::string, LoopValue> loop_values;
  // The local structs of the entry that names in a launcher or helper stand for, and where its call reads them: a
  // struct parameter given one (`launch(params, stream)`, by value or reference), and "this" in a method called on one
  // (`plan.launch(x, y, stream)`, whose `cols` and `this->cols` are that local's).
  std::map<std::string, StructLocal> objects;
  std::map<std::string, std::array<std::string, 3>> dims;  // decl_key of a launcher's dim3 parameter -> the call's sizes
};

// The assignments to the entry's variables. Straight-line ones, those under an `if` and a loop that only steps one
// integer variable by a constant while a condition holds (a bounded number of times) are followed; another
// assignment in a loop or a switch, or one through the variable's address or a reference, is not.
void collect_assignments(CXCursor entry, HostScope& scope);

// How value_at writes a value: the variable's initial value (asked only when needed), a value
// assigned with `=` (a dim3 field of it when field >= 0), an expression as it is (an if's condition,
// the operand of `+=`), and `a op b`.
struct ValueText {
  std::function<std::string()> initial;
  std::function<std::string(CXCursor value, int field)> value;
  std::function<std::string(CXCursor expression)> operand;
  std::function<std::string(const std::string& op, const std::string& a, const std::string& b)> binary;
  std::string line_break;  // where a long value may break its line ("\n" in C++ text; a directive is one line)
  // All ones below the highest set bit of a value of `bits` bits (a bit smear's result), where the text can say it once.
  std::function<std::string(const std::string& value, int bits, bool is_signed)> smear;
};

// The value of a variable (one field of a dim3 when field >= 0, the struct field `member` when it is
// not empty) at source offset `at`: its initial value with the assignments before `at` applied, an
// assignment under an if as `(c ? new : old)`. Throws Error naming the assignment that cannot be followed.
std::string value_at(CXCursor var, unsigned at, int field, const HostScope& scope, const ValueText& text,
                     const std::string& member = "");

// The fields of a struct type, in order.
std::vector<CXCursor> fields_of(CXType record);
// What a brace list (`Params{x, y, n}`, `{x, y, n}`, `{.x = x, .n = n}`) gives each of `fields`, in
// field order (a null cursor where it gives none); nullopt when `e` is not a brace list. Throws Error
// for a designator of a member's member or of an element, more values than fields, and brace elision.
std::optional<std::vector<CXCursor>> brace_fields(CXCursor e, const std::vector<CXCursor>& fields);
// The value a brace list gives each field (a null cursor for none), for device code: brace_fields where it follows
// the list, else the list's elements in field order.
std::vector<CXCursor> brace_values(CXCursor e, const std::vector<CXCursor>& fields);
// The value a local struct's brace-list initializer gives its field `member` (a null cursor for none).
CXCursor initial_field(CXCursor var, const std::string& member);

// The local struct of the entry the base of a member access names where it is read at `at` (a local itself, a name
// standing for one: HostScope::objects; `this`, written or not, with a null base); a null var for anything else.
StructLocal struct_local(CXCursor base, unsigned at, const HostScope& scope);
// The local struct of the entry a method call is made on (`plan` of `plan.blocks()`, `launch` of a functor's
// `launch(x)`; the scope's own object for a call on `this`), as the call reads it.
StructLocal method_object(CXCursor call, const HostScope& scope);

// The definition of the function of the main file that `call` calls when its body is `return e;` after
// declarations, assignments to its locals and parameters (in ifs and loops too) and device queries (a function
// of its arguments: a ceil_div, a next power of two, also a lambda that captures nothing); else a null cursor,
// with `why` said. The body's assignments, device queries' answers among them, are left in `body` where given (a
// helper asking the device can only be inlined in a launch size, not defined in Metal).
CXCursor pure_helper(CXCursor call, std::string* why, HostScope* body = nullptr);

// Whether code asks the device (a device query anywhere in it, lambdas included).
bool asks_device(CXCursor code);

// The arguments of the class template a struct type instantiates (`Rowsum<256>`, `std::integral_constant<int, 8>`), each
// with its template parameter: a value as a directive value (`true` as 1), or a type.
struct TemplateArgument {
  std::string value;
  CXType type{CXType_Invalid, {nullptr, nullptr}};
};
std::vector<std::pair<CXCursor, TemplateArgument>> class_template_arguments(CXType type);

// Throws Error saying which part could not be expressed.
std::string directive_expression(CXCursor expression, const HostScope& scope);
// A dim3 (or an integer, meaning {n, 1, 1}) as three directive expressions.
std::array<std::string, 3> directive_dim3(CXCursor expression, const HostScope& scope);

}  // namespace ksearch::translate
