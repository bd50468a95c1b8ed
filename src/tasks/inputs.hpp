#pragma once
#include <cstdint>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch {

// One tensor's values in host memory, in the task's dtype.
struct HostTensor {
  const TensorSpec* spec = nullptr;
  bool present = true;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  size_t elements() const { return spec ? bytes.size() / dtype_size(spec->dtype) : 0; }
};

// Inputs of a workload drawn from the task's distributions; the same seed gives the same values.
std::vector<HostTensor> generate_inputs(const Task& task, const Workload& workload, uint64_t seed);
// Changes whenever generate_inputs draws other values for a seed: cached references are keyed by it.
inline constexpr int kInputGeneratorVersion = 2;
// Output tensors of a workload, allocated and filled with the poison value (NaN / sentinel).
std::vector<HostTensor> allocate_outputs(const Task& task, const Workload& workload);
void poison(void* data, size_t elements, DType dtype);

}  // namespace ksearch
