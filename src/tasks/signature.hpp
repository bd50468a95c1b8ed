#pragma once
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch {

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

CallLayout call_layout(const Task& task, const std::string& backend);

// `extern "C" void f(const float* x, float* y, int64_t rows, ...)` for C-like backends (cpu, cuda).
std::string entry_prototype(const Task& task, const std::string& backend);
// Source of the shim that is compiled with the candidate.
std::string entry_shim(const Task& task, const std::string& backend);

// Values for the int and float slots of a workload.
void scalar_arguments(const Task& task, const CallLayout& layout, const Workload& workload,
                      std::vector<int64_t>& ints, std::vector<double>& floats);

}  // namespace ksearch
