#pragma once
#include <cstdint>
#include <vector>

#include "tasks/inputs.hpp"
#include "tasks/task.hpp"

namespace ksearch {

// Reference outputs (one double vector per output; empty when absent), computed by the task's
// reference compiled at run time and cached per (task content, workload, seed).
std::vector<std::vector<double>> reference_outputs(const Task& task, const Workload& workload, uint64_t seed,
                                                   const std::vector<HostTensor>& inputs);

// Compiles the reference (cached) and throws Error with the compiler output if it fails.
void ensure_reference_built(const Task& task);

}  // namespace ksearch
