#pragma once
// tasks/reference: a task's reference outputs, from its C++ reference compiled at run time and
// cached per task content, workload and seed.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tasks/inputs.hpp"
#include "tasks/task.hpp"

namespace ksearch::tasks {

// The task's reference failed on a workload: it threw, crashed, ended its process or ran past the task's reference
// timeout. The task is broken, not a candidate compared with it (`ksearch` exits 2).
class ReferenceError : public Error {
 public:
  using Error::Error;
};

// One double vector per output of the task (empty when absent).
using ReferenceOutputs = std::vector<std::vector<double>>;

// Reference outputs computed by the task's (CPU) reference compiled at run time and cached per
// (task content, workload, seed). The reference runs in a child process of its own (throws ReferenceError).
ReferenceOutputs reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                   const std::vector<HostTensor>& inputs);

// The same for inputs no cache can serve again (a mix drawn for one evaluation): computed every time, never stored.
ReferenceOutputs fresh_reference_outputs(const Task& task, const Workload& workload, const std::vector<HostTensor>& inputs);

// The reference cache itself: the CPU reference's outputs of (task content, workload, its generation spec, seed);
// `compute` runs only when they are not cached yet. (Device references are not cached: the GPU recomputes them
// faster than the disk returns them.)
ReferenceOutputs cached_reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                          const std::function<ReferenceOutputs()>& compute);

// Compiles the reference (cached) and throws Error with the compiler output if it fails.
void ensure_reference_built(const Task& task);

}  // namespace ksearch::tasks
