// __constant__ memory the entry fills with cudaMemcpyToSymbol (or cudaMemcpyToSymbolAsync, with a stream): an MLX
// kernel has no constant memory the host writes, so each kernel reading the symbol declares it at the top of its body,
// the header leaving the declaration out.
// - From a task tensor or scratch buffer, whole (`cudaMemcpyToSymbol(c_w, w, bytes)`, device to device, as
//   convolutions load their filters): the name is bound to that buffer (`auto c_filter = w;`).
// - From a host table of constants (`static const float kTaps[5] = {...}`), whole: the symbol's declaration in the
//   header takes the table's brace list.
// - From host scalars, element by element (`cudaMemcpyToSymbol(c_alpha, &alpha, sizeof(float))`, `&eps` at an offset):
//   a constant of the body with their values where the entry copies them (`const float c_alpha = (alpha);`, an array
//   symbol's other elements zero, as constant memory starts).
#include <fmt/format.h>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

// An array symbol filled from host scalars becomes an array of each thread's own: a small one only.
constexpr long long kMaxScalarElements = 64;

// Where `root` names the declaration `key`, or a null cursor.
CXCursor reference_to(CXCursor root, const std::string& key) {
  std::pair<std::string, CXCursor> search(key, clang_getNullCursor());
  clang_visitChildren(
      root,
      [](CXCursor c, CXCursor, CXClientData data) {
        auto* s = static_cast<std::pair<std::string, CXCursor>*>(data);
        if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && decl_key(clang_getCursorReferenced(c)) == s->first) {
          s->second = c;
          return CXChildVisit_Break;
        }
        return CXChildVisit_Recurse;
      },
      &search);
  return search.second;
}

// The scalar `&name` points to (a local or parameter of the entry), or a null cursor.
CXCursor addressed_scalar(CXCursor source) {
  if (clang_getCursorKind(source) != CXCursor_UnaryOperator) return clang_getNullCursor();
  const std::vector<CXCursor> operand = children(source);
  if (operand.size() != 1) return clang_getNullCursor();
  const CXCursor named = strip_implicit(operand[0]);
  const CXCursor variable = clang_getCursorReferenced(named);
  const CXCursorKind kind = clang_getCursorKind(variable);
  const CXType type = clang_getCanonicalType(clang_getCursorType(variable));
  const bool scalar = type.kind >= CXType_Bool && type.kind <= CXType_LongDouble;
  return clang_getCursorKind(named) == CXCursor_DeclRefExpr && (kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl) && scalar
             ? named
             : clang_getNullCursor();
}

// The brace list of a host array of constants (`static const float kTaps[5] = {...}`, at file scope or in the entry)
// that `source` names, or a null cursor.
CXCursor constant_table(CXCursor source) {
  const CXCursor table = clang_getCursorReferenced(source);
  const CXType type = clang_getCanonicalType(clang_getCursorType(table));
  if (clang_getCursorKind(source) != CXCursor_DeclRefExpr || clang_getCursorKind(table) != CXCursor_VarDecl ||
      type.kind != CXType_ConstantArray || !clang_isConstQualifiedType(clang_getArrayElementType(clang_getCursorType(table))))
    return clang_getNullCursor();
  CXCursor list = clang_getNullCursor();
  for (CXCursor k : children(table))
    if (clang_getCursorKind(k) == CXCursor_InitListExpr) list = k;
  if (clang_Cursor_isNull(list)) return list;
  for (CXCursor element : children(list)) {
    CXEvalResult value = clang_Cursor_Evaluate(element);
    const bool constant = value && (clang_EvalResult_getKind(value) == CXEval_Int || clang_EvalResult_getKind(value) == CXEval_Float);
    if (value) clang_EvalResult_dispose(value);
    if (!constant) return clang_getNullCursor();
  }
  return list;
}

}  // namespace

void Translator::constant_symbol_copy(CXCursor call) {
  const std::string name = spelling(call);
  auto refuse = [&](const std::string& why) {
    problem(out_.problems, call, name, "__constant__ memory filled by the host " + why);
  };
  const int count = clang_Cursor_getNumArguments(call);
  if (count < 3) return refuse("with too few arguments");
  const CXCursor symbol_ref = strip_casts(clang_Cursor_getArgument(call, 0));
  const CXCursor symbol = clang_getCursorReferenced(symbol_ref);
  if (clang_getCursorKind(symbol_ref) != CXCursor_DeclRefExpr || !has_child(symbol, CXCursor_CUDAConstantAttr))
    return refuse("into something other than a __constant__ variable named directly is not translated");
  const CXType symbol_type = clang_getCanonicalType(clang_getCursorType(symbol));
  const bool array = symbol_type.kind == CXType_ConstantArray;
  const long long elements = array ? clang_getArraySize(symbol_type) : 1;
  const CXCursor source = strip_casts(clang_Cursor_getArgument(call, 1));
  const std::optional<long long> offset = count > 3 ? integer_constant(clang_Cursor_getArgument(call, 3)) : 0;
  if (!offset) return refuse("at an offset the port cannot read as a constant is not translated");
  if (initialized_symbols_.count(decl_key(symbol)))
    return refuse("after a table of constants filled it is not translated: fill it once");
  // (entered only once a copy is translated: a symbol without one keeps its declaration)
  const auto known = constant_sources_.find(decl_key(symbol));
  ConstantSource filled = known != constant_sources_.end() ? known->second : ConstantSource{spelling(symbol)};
  if (element_type(clang_getCursorType(symbol)) != element_type(clang_getCursorType(source)) &&
      clang_Cursor_isNull(addressed_scalar(source)))
    return refuse(fmt::format("from '{}' is a copy of {} elements into {} ones: the port reads the values themselves, so the "
                              "two must have one element type",
                              rw_.render(begin_offset(source), end_offset(source)), element_type(clang_getCursorType(source)),
                              element_type(clang_getCursorType(symbol))));

  if (const CXCursor scalar = addressed_scalar(source); !clang_Cursor_isNull(scalar)) {
    const long long size = clang_Type_getSizeOf(clang_getCursorType(scalar));
    const std::optional<long long> bytes = integer_constant(clang_Cursor_getArgument(call, 2));
    if (element_type(clang_getCursorType(symbol)) != element_type(clang_getCursorType(scalar)) || bytes != size)
      return refuse(fmt::format("from the scalar '{}' is translated where it fills one element of the symbol's own type "
                                "(sizeof({}) bytes)",
                                spelling(scalar), element_type(clang_getCursorType(symbol))));
    if (*offset % size != 0 || *offset / size >= elements)
      return refuse(fmt::format("at byte {} is not one of the symbol's {} elements", *offset, elements));
    if (array && elements > kMaxScalarElements)
      return refuse(fmt::format("from host scalars into an array of {} elements is not translated: the port declares such a "
                                "symbol in each thread, up to {} elements (pass the values as a tensor of the task)",
                                elements, kMaxScalarElements));
    if (!filled.buffer.empty())
      return refuse("from both a buffer and host values is not translated: fill it from one or the other");
    if (filled.values.count(*offset / size))
      return refuse(fmt::format("twice at byte {} is not translated: the port gives every kernel that reads the symbol one "
                                "value there",
                                *offset));
    filled.array = array;
    filled.elements = elements;
    filled.type = metal_type(array ? clang_getArrayElementType(symbol_type) : symbol_type);
    if (filled.type.rfind("const ", 0) == 0) filled.type.erase(0, 6);
    filled.values[*offset / size] = scalar;
    constant_sources_[decl_key(symbol)] = filled;
    return;
  }
  // A table of constants copied from its start: the symbol's declaration in the header takes its brace list (the
  // symbol's elements past the table's stay zero, as a brace list leaves them).
  if (const CXCursor list = constant_table(source); !clang_Cursor_isNull(list)) {
    const long long given = clang_getArraySize(clang_getCanonicalType(clang_getCursorType(clang_getCursorReferenced(source))));
    if (*offset != 0 || given > elements || !array)
      return refuse(fmt::format("from the table '{}' is translated where it is copied to the start of an array symbol at "
                                "least as long",
                                spelling(source)));
    if (known != constant_sources_.end() || !initialized_symbols_.insert(decl_key(symbol)).second)
      return refuse("from a table and from something else, or twice, is not translated: fill it once");
    rw_.insert(end_offset(symbol), " = " + rw_.render(begin_offset(list), end_offset(list)));
    return;
  }
  const std::string buffer = clang_getCursorKind(source) == CXCursor_DeclRefExpr ? buffer_of(source) : "";
  if (buffer.empty())
    return refuse("from host memory other than a scalar of the entry or a table of constants has no MLX counterpart "
                  "(the port reads a task tensor or scratch buffer copied whole, `cudaMemcpyToSymbol(sym, w, bytes)`, "
                  "scalars, `&alpha`, or a `const` array with a brace list of constants): pass the values as a tensor of "
                  "the task, or as constexpr data when they are fixed");
  if (*offset != 0) return refuse("at an offset into the symbol from a buffer is not translated: copy it to the symbol's start");
  if (const TensorSpec* tensor = task_.find_tensor(buffer); tensor && tensor->optional)
    return refuse("from the optional tensor '" + buffer + "' is not translated (it may be absent)");
  if (!filled.values.empty() || (!filled.buffer.empty() && filled.buffer != buffer))
    return refuse(fmt::format("from '{}' and from {} in one call of the entry is not translated: the port binds the symbol "
                              "to one buffer",
                              buffer, filled.values.empty() ? "'" + filled.buffer + "'" : "host values"));
  filled.buffer = buffer;
  constant_sources_[decl_key(symbol)] = filled;
  out_.notes.push_back(fmt::format("line {}: __constant__ '{}' filled from '{}' is read from '{}' itself by the kernels "
                                   "that read it",
                                   position(call).line, spelling(symbol), buffer, buffer));
}

void Translator::bind_constant_symbols(CXCursor kernel, Launch& launch) {
  for (const auto& [key, source] : constant_sources_) {
    const CXCursor use = reference_to(kernel, key);
    if (clang_Cursor_isNull(use)) continue;
    if (!source.buffer.empty()) {
      if (source.symbol != source.buffer) launch.bindings.push_back(fmt::format("auto {} = {};", source.symbol, source.buffer));
      continue;
    }
    const std::string& type = source.type;
    auto value = [&](long long i) {
      const auto v = source.values.find(i);
      return v == source.values.end() ? type + "(0)"
                                      : "(" + rw_.render(begin_offset(v->second), end_offset(v->second)) + ")";
    };
    if (!source.array) {
      launch.bindings.push_back(fmt::format("const {} {} = {};", type, source.symbol, value(0)));
      continue;
    }
    std::string values;
    for (long long i = 0; i < source.elements; ++i) values += (i ? ", " : "") + value(i);
    launch.bindings.push_back(fmt::format("const {} {}[{}] = {{{}}};", type, source.symbol, source.elements, values));
  }
}

// A __device__ function reading a symbol the host fills: its body has no kernel binding to see.
void Translator::constant_symbols_in_functions() {
  for (const auto& [key, source] : constant_sources_)
    for (auto& [function_key, f] : functions_) {
      if (f.kernel) continue;
      if (const CXCursor use = reference_to(f.cursor, key); !clang_Cursor_isNull(use))
        problem(f.record.problems, use, "__constant__ '" + source.symbol + "' in __device__ function '" + spelling(f.cursor) + "'",
                "the host fills it, and the port declares it in the kernels that read the symbol: read it in the kernel, "
                "or pass it to the function");
    }
}

}  // namespace ksearch::translate::detail
