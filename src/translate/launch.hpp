#pragma once
// Host-side expressions of a kernel launch (grid, block, shared memory bytes, template arguments) as
// metal directive expressions over the task's axes and params (docs/METAL.md): the entry's
// parameters become the task's names, its local variables their initializers, C++ integer
// division a floor (directive expressions are evaluated in floating point).
#include <clang-c/Index.h>

#include <array>
#include <map>
#include <string>

namespace ksearch::translate {

struct HostScope {
  CXTranslationUnit unit = nullptr;
  std::map<std::string, std::string> parameters;  // decl_key of an entry parameter -> task name
};

// Throws Error saying which part could not be expressed.
std::string directive_expression(CXCursor expression, const HostScope& scope);
// A dim3 (or an integer, meaning {n, 1, 1}) as three directive expressions.
std::array<std::string, 3> directive_dim3(CXCursor expression, const HostScope& scope);

}  // namespace ksearch::translate
