// Counting through the integer dot products: a lane packs four positive flags into the bytes of a word and sums them
// with the unsigned __dp4a against 0x01010101, the vector __dp4a of char4 flags, and __dp2a_lo/__dp2a_hi (the word's
// low and high two bytes against 16-bit ones), each a count of its own that the lane checks against the others.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_dot(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const int lane = threadIdx.x;
  unsigned total = 0;
  int agree = 0;
  for (int base = 4 * lane; base < cols; base += 4 * 32) {
    unsigned flags = 0;
    char4 signed_flags = make_char4(0, 0, 0, 0);
    for (int k = 0; k < 4; ++k) {
      const bool positive = base + k < cols && x[(int64_t)blockIdx.x * cols + base + k] > 0.0f;
      flags |= (positive ? 1u : 0u) << (8 * k);
      if (k == 0) signed_flags.x = positive ? -1 : 0;
      if (k == 1) signed_flags.y = positive ? -1 : 0;
      if (k == 2) signed_flags.z = positive ? -1 : 0;
      if (k == 3) signed_flags.w = positive ? -1 : 0;
    }
    const unsigned by_dp4a = __dp4a(flags, 0x01010101u, 0u);
    const int by_char4 = __dp4a(signed_flags, make_char4(-1, -1, -1, -1), 0);
    const unsigned by_dp2a = __dp2a_lo(0x00010001u, flags, 0u) + __dp2a_hi(0x00010001u, flags, 0u);
    const int by_vectors = __dp2a_lo(make_short2(1, 1), signed_flags, 0) + __dp2a_hi(make_short2(1, 1), signed_flags, 0);
    agree += (by_char4 == (int)by_dp4a && by_dp2a == by_dp4a && -by_vectors == (int)by_dp4a) ? 0 : 1;
    total += by_dp4a;
  }
  for (int o = 16; o > 0; o /= 2) {
    total += __shfl_xor_sync(0xffffffffu, total, o);
    agree += __shfl_xor_sync(0xffffffffu, agree, o);
  }
  if (lane == 0) y[blockIdx.x] = (int)total + 1000000 * agree;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_dot<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
