#pragma once
// tasks/inputs: a workload's input tensors, drawn from each input's distribution with a seed.
#include <array>
#include <cstdint>
#include <vector>

#include "tasks/mix.hpp"
#include "tasks/task.hpp"

namespace ksearch::tasks {

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
// A fresh input set made from two drawn sets of the same workload: each element of the mix is taken from
// one of them, chosen at random, from a position its own does not tell (a random rotation per tensor, then a
// permutation keyed per tile of 4096 positions: tasks/mix.hpp). The task's inputs are drawn element by element
// independently, so a mix has exactly their distribution, at the cost of a gather within a tile instead of a draw.
// The same seed gives the same mix; mix_inputs seeds tensor i with tensor_seed(seed, i) (tasks/mix.hpp).
void mix_tensor(const HostTensor& a, const HostTensor& b, uint64_t seed, unsigned char* out);
std::vector<HostTensor> mix_inputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b, uint64_t seed);
// Changes whenever generate_inputs draws, or mix_tensor mixes, other values for a seed: cached
// references are keyed by it.
inline constexpr int kInputGeneratorVersion = 3;  // 3: mixes permute within tiles
// The bytes of one poisoned element (a quiet NaN of a float dtype, 0xA5 bytes of the others), in its first
// dtype_size(dtype) bytes, and `elements` elements set to them.
std::array<unsigned char, 16> poison_pattern(DType dtype);
void poison(void* data, size_t elements, DType dtype);

}  // namespace ksearch::tasks
