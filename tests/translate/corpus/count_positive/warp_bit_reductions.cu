// A warp per row: each lane folds its positives into a 32-bit word by lane (bit c % 32 of the chunk), the warp ORs,
// ANDs and XORs the words with __reduce_or_sync/__reduce_and_sync/__reduce_xor_sync, and the compiler's
// __builtin_popcount counts them; __uni_sync skips the per-lane count where every lane agrees, and an impossible
// count __trap()s.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_bits(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const int lane = threadIdx.x;
  int total = 0;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + lane;
    const bool positive = c < cols && __ldcv(&x[(int64_t)blockIdx.x * cols + c]) > 0.0f;
    const unsigned word = positive ? 1u << lane : 0u;
    const unsigned any = __reduce_or_sync(0xffffffffu, word);
    const unsigned parity = __reduce_xor_sync(0xffffffffu, word);  // the lanes' bits are disjoint: the same word
    if (any != parity || (__reduce_and_sync(0xffffffffu, word) != 0u && any != 0xffffffffu)) __trap();
    total += __uni_sync(0xffffffffu, positive) ? (positive ? 32 - __builtin_clz(1u) + 31 : 0) : __builtin_popcount(any);
  }
  if (lane == 0) y[blockIdx.x] = total - (__builtin_ctz(0x80000000u) - 31);
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_bits<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
