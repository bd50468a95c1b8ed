#pragma once
// Expansion of the CUDA file's own macros before it is parsed (docs/TRANSLATE.md). libclang places
// every token of a macro's expansion at the macro's use and names no operator, so names and
// operators written in a macro's body (`CEIL_DIV(n, 256)`, `#define TID (blockIdx.x * ...)`) could
// not be rewritten or read as launch sizes. Expanding them in the text gives every token a place of
// its own; the `#define` lines stay (an `#if` may test them; a function-like macro that nothing names is left out
// of the output) and each line keeps its number.
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ksearch::translate {

// The file with the text of each header it includes with quotes by a relative name that exists beside it (a header's
// own quoted includes: beside that header) in place of the include, recursively and once each (a later include of one,
// and `#pragma once`, become empty lines; include guards work as written): a project's helpers (`#include
// "reduce_common.cuh"`) are ported as the file's own code. Any other quoted name is left to the parse (a CUDA header of cuda_include/, a toolkit
// header's absolute path, which the port reports, or clang's "file not found").
struct IncludedText {
  std::string text;
  std::vector<std::pair<std::string, unsigned>> lines;  // per line of text (from 0): the file and line (from 1) it is
};
IncludedText include_local_headers(const std::filesystem::path& file);

struct MacroExpansion {
  std::string text;              // the file with the uses expanded (same lines)
  std::set<std::string> expanded;  // the macros whose uses were expanded (their #define is not needed)
  std::set<std::string> unused;    // function-like macros that no code and no other directive names
  // A macro expanded here is defined or undefined inside a conditional (`#ifdef __CUDACC__ ... #else ... #endif`),
  // whose branch only the preprocessor knows: the file is expanded again with the lines it skips.
  bool conditional = false;
};

// Expands the uses of the file's function-like macros, and of its object-like macros whose body
// names something (`#define TID (blockIdx.x * blockDim.x + threadIdx.x)`); macros that are plain
// constants (`#define BLOCK 256`) stay as written. Directive lines, comments and literals are kept.
// `skipped`: the lines (from 1) the preprocessor skips, whose #define and #undef take no effect.
MacroExpansion expand_file_macros(const std::string& text, const std::set<unsigned>& skipped = {});

// The branches of the conditionals over __CUDA_ARCH__ (`#ifdef __CUDA_ARCH__`, `#if __CUDA_ARCH__ >= 800`,
// `#elif`, `#else`) that a device compilation for `arch` takes: the other branches and the directives
// become empty lines (the parse is host-side, where __CUDA_ARCH__ is undefined, and the Metal text
// must not carry a CUDA branch). Conditionals over other names, and one whose condition mixes them
// in, are left as written.
std::string select_arch_branches(const std::string& text, int arch);

// Each `cudaLaunchKernelEx(&config, kernel, args...)` (CUDA 12's launch with a cudaLaunchConfig_t) written as the launch
// it makes, `(kernel<<<config.gridDim, config.blockDim, config.dynamicSmemBytes, config.stream>>>(args...), cudaSuccess)`,
// which the launch translation reads as any other (the config's fields as a struct local's). Same lines; comments and
// literals are left alone. Likewise `cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream)` (and
// cudaLaunchCooperativeKernel) where `args` is a local `void* args[] = {&a, &b, ...}` (or a `std::vector<void*>` so
// initialized, its `.data()` given) set once: `(kernel<<<grid, block, shared_bytes, stream>>>(a, b, ...),
// cudaSuccess)`, the call's line breaks kept after it; any other argument array is left as written (and reported).
std::string launches_as_chevrons(const std::string& text);

// `__shared__ alignas(16) float tile[...]`, which nvcc takes, written `alignas(16) __shared__ float tile[...]`: Clang
// parses the memory-space keywords as GNU attributes, after which a C++11 attribute such as alignas cannot appear.
// nvcc's `__align__(16)` there and on a struct (`struct __align__(8) pair`) becomes `alignas  (16)`, which Metal
// keeps (a float4 view of a float array needs it). Same length and lines.
std::string alignas_first(const std::string& text);

}  // namespace ksearch::translate
