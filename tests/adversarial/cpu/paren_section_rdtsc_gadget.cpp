// 5, 7: the section attribute with its name in parentheses, section(("...")), which g++ accepts (the text rule once
// wanted the string literal right after the first parenthesis). The name carries a newline and so is assembly: a
// function whose bytes b8 0f 31 c3 90 disassemble linearly as `mov $0x90c3310f,%eax` and, entered one byte in, run
// `rdtsc; ret`, which the object rules' linear reading of the code never sees. The softmax is honest; the candidate
// reads the time-stamp counter around it (a clock to tell checked calls from others by their gaps). Refused by the
// inline-assembly rule; without the rules nothing at run time tells.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <cstdio>

__attribute__((section((".text.ks_gadget,\"ax\",@progbits\n.globl ks_gadget\n.hidden ks_gadget\nks_gadget:\n.byte 0xb8,0x0f,0x31,0xc3,0x90\nret\n.section .data.ks_anchor,\"aw\",@progbits\n#"))))
int ks_anchor = 1;
extern "C" void ks_gadget();

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  auto tsc = reinterpret_cast<unsigned (*)()>(reinterpret_cast<const char*>(&ks_gadget) + 1);
  const unsigned t0 = tsc();
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / sum;
  }
  const unsigned t1 = tsc();
  std::fprintf(stderr, "b01: this call took %u TSC cycles (ks_anchor %d)\n", t1 - t0, ks_anchor);
}
