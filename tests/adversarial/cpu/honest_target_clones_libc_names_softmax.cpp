// Control: an honest softmax with target_clones-multiversioned helpers (the compiler's resolvers run when
// the library is loaded; they only read the CPU's features) and locals named like libc functions (read,
// write, signal, open, times), which are no calls of them. It must pass.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>

__attribute__((target_clones("avx512f", "avx2", "default")))
static float row_max(const float* __restrict__ read, int64_t n) {
  float m = -INFINITY;
  for (int64_t i = 0; i < n; ++i) m = read[i] > m ? read[i] : m;
  return m;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
static void scale(float* __restrict__ write, int64_t n, float times) {
  for (int64_t i = 0; i < n; ++i) write[i] *= times;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* read = x + r * cols;
    float* write = y + r * cols;
    const float signal = row_max(read, cols);
    float open = 0;
    for (int64_t c = 0; c < cols; ++c) open += (write[c] = std::exp(read[c] - signal));
    const float times = 1.0f / open;
    scale(write, cols, times);
  }
}
