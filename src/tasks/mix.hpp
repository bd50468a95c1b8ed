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

// A bijection of [0, 2^bits) keyed by `key`: three rounds of an xor, a multiplication by an odd number and an
// xor-shift, each a bijection of the bits' words.
KSEARCH_HOST_DEVICE inline uint32_t keyed_permutation(uint32_t x, uint64_t key, unsigned bits) {
  const uint32_t mask = (uint32_t(1) << bits) - 1;
  for (int round = 0; round < 3; ++round, key = (key >> 21) | (key << 43)) {
    x = ((x ^ uint32_t(key)) * (uint32_t(key >> 32) | 1u)) & mask;
    x ^= x >> (bits / 2 + 1);
  }
  return x;
}

// Element i of a mix of n elements is a[from_a(i)] when bit i % 64 of its block's word is set, else b[from_b(i)]. A
// source position is i rotated by an offset per source, then moved within its tile of kMixTile positions by a
// permutation keyed per tile and source (a last, shorter tile walks the cycles of a permutation of the next power of
// two). Rotations alone would let a candidate that kept both sources (its first two trials' inputs) find the two
// offsets from a few elements and then answer each element from what it computed for that source element, in a
// stream; with the tiles' permutations an element's place tells nothing of where its value came from, and finding
// that takes a lookup of the value, element by element.
constexpr size_t kMixTileBits = 12;
constexpr size_t kMixTile = size_t(1) << kMixTileBits;

struct MixPlan {
  uint64_t seed = 0;
  size_t n = 0, shift_a = 0, shift_b = 0;
  KSEARCH_HOST_DEVICE uint64_t block_bits(size_t block) const { return tensor_seed(seed, 3 + block); }
  // Independent of the block words' streams (their indices stay below 2^58 for any tensor that fits in memory).
  KSEARCH_HOST_DEVICE uint64_t tile_key(size_t tile, unsigned source) const {
    return tensor_seed(seed, (uint64_t(1) << 63) | (uint64_t(tile) << 1) | source);
  }
  KSEARCH_HOST_DEVICE size_t position(size_t i, size_t shift, unsigned source) const {
    const size_t rotated = i + shift < n ? i + shift : i + shift - n;
    const size_t tile = rotated >> kMixTileBits, start = tile << kMixTileBits;
    const size_t length = n - start < kMixTile ? n - start : kMixTile;
    unsigned bits = kMixTileBits;
    if (length < kMixTile)
      for (bits = 0; (size_t(1) << bits) < length;) ++bits;
    const uint64_t key = tile_key(tile, source);
    uint32_t within = keyed_permutation(uint32_t(rotated - start), key, bits);
    while (within >= length) within = keyed_permutation(within, key, bits);
    return start + within;
  }
  KSEARCH_HOST_DEVICE size_t from_a(size_t i) const { return position(i, shift_a, 0); }
  KSEARCH_HOST_DEVICE size_t from_b(size_t i) const { return position(i, shift_b, 1); }
};

KSEARCH_HOST_DEVICE inline MixPlan mix_plan(uint64_t seed, size_t n) {
  return {seed, n, size_t(tensor_seed(seed, 1) % n), size_t(tensor_seed(seed, 2) % n)};
}

}  // namespace ksearch::tasks
