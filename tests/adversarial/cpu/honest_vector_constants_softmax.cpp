// Control: an honest SSE softmax whose vector constants live at namespace scope (`static const __m128 k =
// _mm_set1_ps(...)`). Intrinsics are no constant expressions, so g++ initializes them when the library
// is loaded (.init_array); that initialization only computes the library's own constants: it must pass.
// expect: passed
// expect-without-rules: passed
#include <immintrin.h>
#include <cmath>
#include <cstdint>

static const __m128 kOne = _mm_set1_ps(1.0f);
static const __m128 kNegInf = _mm_set1_ps(-INFINITY);

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    __m128 vmax = kNegInf;
    int64_t c = 0;
    for (; c + 4 <= cols; c += 4) vmax = _mm_max_ps(vmax, _mm_loadu_ps(in + c));
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, vmax);
    float m = std::fmax(std::fmax(lanes[0], lanes[1]), std::fmax(lanes[2], lanes[3]));
    for (; c < cols; ++c) m = std::fmax(m, in[c]);
    float sum = 0;
    for (c = 0; c < cols; ++c) sum += (out[c] = std::exp(in[c] - m));
    const __m128 inv = _mm_div_ps(kOne, _mm_set1_ps(sum));
    for (c = 0; c + 4 <= cols; c += 4) _mm_storeu_ps(out + c, _mm_mul_ps(_mm_loadu_ps(out + c), inv));
    for (; c < cols; ++c) out[c] /= sum;
  }
}
