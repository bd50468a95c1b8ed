// __constant__ memory the entry fills from a task tensor or scratch buffer (`cudaMemcpyToSymbol(c_w, w, bytes)`, or
// cudaMemcpyToSymbolAsync with cudaMemcpyDeviceToDevice and a stream, as convolution kernels load their filters): an
// MLX kernel has no constant memory the host writes, but reads the buffer itself, so each kernel reading the symbol
// binds its name to the buffer at the top of its body (`auto c_w = w;`) and the header leaves the declaration out.
#include <fmt/format.h>

#include "translate/translator_internal.hpp"

namespace ksearch::translate::detail {

namespace {

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
  const CXCursor source = strip_casts(clang_Cursor_getArgument(call, 1));
  const std::string buffer = clang_getCursorKind(source) == CXCursor_DeclRefExpr ? buffer_of(source) : "";
  if (buffer.empty())
    return refuse("from host memory has no MLX counterpart (the port binds the symbol to a task tensor or scratch "
                  "buffer it is copied from whole, `cudaMemcpyToSymbol(sym, w, bytes)`): pass the values as a tensor of "
                  "the task, or as constexpr data when they are fixed");
  if (count > 3 && integer_constant(clang_Cursor_getArgument(call, 3)) != 0)
    return refuse("at an offset into the symbol is not translated: copy the buffer to the symbol's start");
  if (const TensorSpec* tensor = task_.find_tensor(buffer); tensor && tensor->optional)
    return refuse("from the optional tensor '" + buffer + "' is not translated (it may be absent)");
  if (element_type(clang_getCursorType(symbol)) != element_type(clang_getCursorType(source)))
    return refuse(fmt::format("from '{}' is a copy of {} elements into {} ones: the port reads the buffer itself, so the "
                              "two must have one element type",
                              spelling(source), element_type(clang_getCursorType(source)), element_type(clang_getCursorType(symbol))));
  const auto [at, inserted] = constant_sources_.emplace(decl_key(symbol), ConstantSource{spelling(symbol), buffer});
  if (!inserted && at->second.buffer != buffer)
    return refuse(fmt::format("from '{}' and '{}' in one call of the entry is not translated: the port binds the symbol to "
                              "one buffer",
                              at->second.buffer, buffer));
  out_.notes.push_back(fmt::format("line {}: __constant__ '{}' filled from '{}' is read from '{}' itself by the kernels "
                                   "that read it",
                                   position(call).line, spelling(symbol), buffer, buffer));
}

void Translator::bind_constant_symbols(CXCursor kernel, Launch& launch) {
  for (const auto& [key, source] : constant_sources_) {
    if (clang_Cursor_isNull(reference_to(kernel, key))) continue;
    if (source.symbol != source.buffer) launch.bindings.push_back(fmt::format("auto {} = {};", source.symbol, source.buffer));
  }
}

// A __device__ function reading a symbol the host fills: its body has no kernel binding to see.
void Translator::constant_symbols_in_functions() {
  for (const auto& [key, source] : constant_sources_)
    for (auto& [function_key, f] : functions_) {
      if (f.kernel) continue;
      if (const CXCursor use = reference_to(f.cursor, key); !clang_Cursor_isNull(use))
        problem(f.record.problems, use, "__constant__ '" + source.symbol + "' in __device__ function '" + spelling(f.cursor) + "'",
                "the host fills it from '" + source.buffer + "', which the port binds in the kernels that read the symbol: read "
                "it in the kernel, or pass it to the function as a pointer");
    }
}

}  // namespace ksearch::translate::detail
