// Internal pieces shared by source.cpp, rewrite.cpp and compile.cpp.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "metalsim/metalsim.hpp"
#include "metalsim/tokens.hpp"

namespace ksearch::metalsim {

struct RewriteResult {
  std::string text;                     // same line count as the input
  std::vector<CompileMessage> errors;   // e.g. use of double
  bool uses_sync = false;               // barrier, SIMD-group function or atomic seen
  std::set<std::string> vector_aliases;  // typedef/using names of vector types declared in the text
  // Functions overloaded by address space only, declared in the text or seen from elsewhere: each one's overloads'
  // tag types (space_overloads.cpp).
  std::map<std::string, std::vector<std::string>> space_overloads;
};
// Metal -> host C++ token rewriting (see metal_shim.h). `file` is "body" or
// "header"; threadgroup variables get ids starting at id_base. `outer`: the rewrite of the text this one sees (the
// body sees the header's vector type aliases and functions overloaded by address space).
RewriteResult rewrite_metal(const std::string& text, const std::string& file, int id_base,
                            const RewriteResult* outer = nullptr);

// Functions at namespace scope overloaded by address space only, which the host build, without spaces, would see as
// one function defined twice: each overload gets a leading tag parameter naming its parameters' spaces, and calls
// pick the overload by where their pointer and reference arguments point (metal_shim.h, __ms_space_call).
struct SpaceOverloads {
  std::map<std::size_t, std::string> tag_at;             // a tagged declaration's '(' token -> its tag type
  std::map<std::string, std::vector<std::string>> tags;  // a name overloaded by space -> its overloads' tag types
  std::set<std::size_t> declarations;                    // the name tokens of every function declared (no calls)
};
SpaceOverloads find_space_overloads(const std::vector<Token>& t);

// The text with each comparison whose extent its tokens tell wrapped in ::metal::__ms_bool, which gives Metal's bool
// vector for a comparison of vectors (comparisons.cpp); same lines.
std::string wrap_comparisons(const std::string& text);

// The text with each operand of a conditional operator given Metal's arithmetic conversions between half or bfloat
// and float (`c ? h : 1.0f` is a float) through the comma operators of ::metal::__ms_arm_first and __ms_arm_second
// (conditionals.cpp); same lines.
std::string convert_conditional_operands(const std::string& text);

struct HostSource {
  std::string text;
  std::vector<CompileMessage> errors;
  int num_buffers = 0;
  bool uses_sync = false;
};
HostSource build_host_source(const KernelSpec& spec);

enum class AddressSpace { thread, device, constant, threadgroup };
// The space an address-space keyword names (`device`, `constant`, `threadgroup`, `thread`), or none for another word.
std::optional<AddressSpace> space_keyword(const std::string& word);
// Whether MLX passes an input in the constant address space (fewer than 8 elements) rather than device.
bool in_constant_space(const TensorSpec& t);
// A kernel parameter as MLX declares it: a pointer (buffers, shapes, strides) or an object (a 0-d input, ndim, the
// thread attributes), and its space.
struct KernelParameter {
  std::string name;
  bool pointer = false;
  AddressSpace space = AddressSpace::thread;
};
// Errors where the header or body converts a pointer or reference between address spaces (a declaration, an
// assignment, a cast, a header function's parameter; address_spaces.cpp), which Metal refuses and the host build,
// seeing no spaces, would accept.
std::vector<CompileMessage> check_address_spaces(const std::string& header, const std::string& body,
                                                 const std::vector<KernelParameter>& parameters);

// Errors for variables of static storage (program scope, static data members, static locals) declared outside the
// constant address space, which Metal refuses and the host build keeps as read-only data (static_storage.cpp).
std::vector<CompileMessage> static_storage_outside_constant(const std::string& text, const std::string& file);

// The error for a writable program-scope or function-static variable in the compiled kernel library (Metal allows
// only constant ones; mutable_state.cpp), at the line declaring it where it can be found.
std::optional<CompileMessage> mutable_state(const std::filesystem::path& so, const KernelSpec& spec);

// Errors for the recursive calls of the body's and header's functions, read from the kernel's LLVM IR (emitted
// without optimization, with line tables; recursion.cpp).
std::vector<CompileMessage> find_recursion(const std::string& llvm_ir);
// Stack arrays sized at run time in the kernel's unoptimized IR, at their lines.
std::vector<CompileMessage> find_variable_length_arrays(const std::string& llvm_ir);
std::vector<CompileMessage> find_function_pointer_calls(const std::string& llvm_ir);
inline constexpr const char* kVariableLengthArrayMessage =
    "variable length arrays are not supported in Metal (an array's size must be a constant: a template parameter or a "
    "constexpr value)";

}  // namespace ksearch::metalsim
