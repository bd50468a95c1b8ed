// axpy: C++20's bit functions in device code: has_single_bit, countr_zero, countl_zero, bit_width, popcount,
// bit_floor, bit_ceil, countl_one, countr_one from libcu++ (<cuda/std/bit>; libstdc++'s std:: ones reach GCC
// built-ins that nvcc's device side folds to constants), rotl and rotr from <bit> (constexpr functions, callable with
// --expt-relaxed-constexpr), each checked against its definition so that any wrong value shows in y; and <numbers>'
// constants (`std::numbers::pi_v<float>`, `std::numbers::inv_pi`, `std::numbers::e_v<float>`), which Metal has as
// literals only.
#include <cuda_runtime.h>
#include <stdint.h>
#include <bit>
#include <cuda/std/bit>
#include <numbers>

__device__ float bit_checks(unsigned v) {
  float wrong = 0.f;
  wrong += cuda::std::has_single_bit(v) != (v != 0 && (v & (v - 1)) == 0);
  wrong += cuda::std::bit_width(v) != (v == 0 ? 0 : 32 - cuda::std::countl_zero(v));
  wrong += v != 0 && (v >> cuda::std::countr_zero(v)) % 2 != 1;
  wrong += cuda::std::popcount(0u) - 1 >= 0;  // an int: below zero
  wrong += v != 0 && (cuda::std::bit_floor(v) > v || cuda::std::bit_floor(v) <= v / 2 ||
                      !cuda::std::has_single_bit(cuda::std::bit_floor(v)));
  wrong += v != 0 && v <= (1u << 31) &&
           (cuda::std::bit_ceil(v) < v || !cuda::std::has_single_bit(cuda::std::bit_ceil(v)));
  wrong += std::rotr(std::rotl(v, 5), 5) != v || std::rotl(v, -3) != std::rotr(v, 3);
  wrong += std::rotl(0x80000001u, 1) != 3u;
  wrong += cuda::std::countl_one(~v) != cuda::std::countl_zero(v) || cuda::std::countr_one(0xffu) != 8;
  return wrong;
}

__global__ void axpy_bits(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                          float alpha) {
  const unsigned threads = blockDim.x;
  // a power-of-two block: the block of an element is its index shifted
  const int shift = cuda::std::has_single_bit(threads) ? cuda::std::countr_zero(threads) : -1;
  const int width = cuda::std::bit_width(threads) - 1;
  const float pi = std::numbers::pi_v<float>;
  const float one = pi * std::numbers::inv_pi * std::numbers::e_v<float> / 2.718281828f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const int blk = shift >= 0 ? (i >> shift) : (int)(i / threads);
    const float bonus = (blk == (i >> width) ? 0.f : 1000.f) + 1000.f * bit_checks((unsigned)i * 2654435761u);
    y[i] = alpha * x[i] * one + w[i] + bonus + (float)cuda::std::popcount(0u);
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_bits<<<16, 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
