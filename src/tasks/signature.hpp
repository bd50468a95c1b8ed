#pragma once
// tasks/signature: a task's entry point as candidates define it and as the evaluator calls it.
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch::tasks {

// How the evaluator passes one call's arguments to a compiled candidate, whatever its signature:
// tensors as pointers, axes and integer/bool params as int64, float params as double. ksearch
// generates a shim `ksearch_entry(ptrs, ints, floats, stream)` that unpacks them in this order.
struct CallArg {
  enum class Kind { tensor, integer, floating } kind;
  std::string name;
  int slot = 0;  // index into ptrs / ints / floats
  const TensorSpec* tensor = nullptr;
  bool is_output = false;
  std::string c_type;  // the parameter's type in the candidate's signature
};

struct CallLayout {
  std::vector<CallArg> args;
  int tensors = 0, ints = 0, floats = 0;
};

// How a backend's candidates spell their entry point beyond the task's arguments; each backend
// supplies its own (Backend::call_convention), the default being plain C.
struct CallConvention {
  std::string f16_type = "uint16_t";   // element type of f16 tensors and params
  std::string bf16_type = "uint16_t";  // of bf16 ones
  std::string extra_parameter;         // appended to every entry point, e.g. "cudaStream_t stream"
  std::string extra_argument;          // what the shim passes for it, from its `void* stream`
  std::string shim_headers;            // #include lines the shim needs for these types
  std::string c_type(DType dtype) const;
};

// The arguments of `backend`'s entry point for `task`, in the task's order.
CallLayout call_layout(const Task& task, const std::string& backend, const CallConvention& convention = {});

// `extern "C" void f(const float* x, float* y, int64_t rows, ...)` for C-like backends (cpu, cuda).
std::string entry_prototype(const Task& task, const std::string& backend, const CallConvention& convention = {});
// One line per tensor (dtype, declared shape, input or output; f16/bf16 passed as raw bits say so), axis and
// param (dtype, default) of the entry point, each after `prefix`: what the prototype's C types leave out.
std::string argument_table(const Task& task, const std::string& backend, const CallConvention& convention, const std::string& prefix);
// The argument table as a comment block for an entry's brief, under its heading.
std::string argument_comment(const Task& task, const std::string& backend, const CallConvention& convention = {});
// The translation unit a candidate is built as: the shim's headers, the candidate (#included as `candidate_file`),
// then the shim that unpacks the evaluator's arguments into the task's entry signature, so that a signature mismatch
// is a compile error; the candidate's macros are undefined before the shim, which they cannot rewrite.
std::string entry_file(const Task& task, const std::string& backend, const std::string& candidate_file,
                       const CallConvention& convention = {});

// Values for the int and float slots of a workload.
void scalar_arguments(const Task& task, const CallLayout& layout, const Workload& workload,
                      std::vector<int64_t>& ints, std::vector<double>& floats);

}  // namespace ksearch::tasks
