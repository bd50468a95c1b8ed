// 5: g++ copies a section attribute's name into the assembly as it is, so the name carries assembler
// directives: here `,"awx"` makes a writable, executable section. At call time the candidate decodes
// instructions the object rules never saw (rdtsc, a clock) into it and runs them. A newline in the name
// is inline assembly outright. The text rules refuse the section attribute (the inline-assembly rule);
// nothing at run time stops reading the clock, so without them it passes.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <cstring>

__attribute__((section(".wx,\"awx\",@progbits #"), aligned(4096))) unsigned char scratch[4096] = {0xc3};

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  unsigned char code[] = {0x0f ^ 0x5a, 0x31 ^ 0x5a, 0xc3 ^ 0x5a};  // rdtsc; ret, encoded
  for (auto& b : code) b ^= 0x5a;
  std::memcpy(scratch, code, sizeof code);
  reinterpret_cast<void (*)()>(static_cast<void*>(scratch))();
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
