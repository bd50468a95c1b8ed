// Naive seed: one pass, converting each float16 in and each bfloat16 out by hand.
#include <cstdint>
#include <cstring>

static float half_to_float(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return float(h);
}

static uint16_t float_to_bfloat16(float f) {  // round to nearest even
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

extern "C" void mixed_dtypes(const uint16_t* x, uint16_t* y, bool* mask, int32_t* count, int64_t rows, int64_t cols, float thr,
                             bool invert, double scale) {
  int32_t set = 0;
  for (int64_t i = 0; i < rows * cols; ++i) {
    const float v = half_to_float(x[i]);
    y[i] = float_to_bfloat16(float(scale * v));
    mask[i] = (v > thr) != invert;
    set += mask[i];
  }
  count[0] = set;
}
