#pragma once
// How a fresh mix of two input tensors is made (see mix_tensor in tasks/inputs.hpp), as inline
// functions that host code and CUDA device code share, so that a mix made on a GPU is bit for bit the
// mix ksearch computes on the host to check it.
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define KSEARCH_HOST_DEVICE __host__ __device__
#else
#define KSEARCH_HOST_DEVICE
#endif

namespace ksearch::tasks {

// splitmix64 of the pair: independent streams from one seed (tensors of a draw, chunks, mix bits).
KSEARCH_HOST_DEVICE inline uint64_t tensor_seed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Element i of a mix of n elements is a[(i + shift_a) % n] when bit i % 64 of its block's word is set,
// else b[(i + shift_b) % n].
struct MixPlan {
  uint64_t seed = 0;
  size_t n = 0, shift_a = 0, shift_b = 0;
  KSEARCH_HOST_DEVICE uint64_t block_bits(size_t block) const { return tensor_seed(seed, 3 + block); }
  KSEARCH_HOST_DEVICE size_t from_a(size_t i) const { return i + shift_a < n ? i + shift_a : i + shift_a - n; }
  KSEARCH_HOST_DEVICE size_t from_b(size_t i) const { return i + shift_b < n ? i + shift_b : i + shift_b - n; }
};

KSEARCH_HOST_DEVICE inline MixPlan mix_plan(uint64_t seed, size_t n) {
  return {seed, n, size_t(tensor_seed(seed, 1) % n), size_t(tensor_seed(seed, 2) % n)};
}

}  // namespace ksearch::tasks
