// Control: an honest softmax that keeps each thread's exponentials in a 64-byte-aligned buffer from
// aligned operator new (std::unique_ptr with a custom deleter, freed before returning), sums them with
// std::transform_reduce and reads the peak through std::ranges::max over a std::span. It must pass.
// expect: passed
// expect-without-rules: passed
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <numeric>
#include <span>

namespace {
struct AlignedDelete {
  void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedFloats = std::unique_ptr<float[], AlignedDelete>;

AlignedFloats aligned_floats(size_t n) {
  return AlignedFloats(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t{64})));
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const auto n = size_t(cols);
#pragma omp parallel
  {
    const AlignedFloats scratch = aligned_floats(n);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const std::span<const float> in(x + r * cols, n);
      const float peak = std::ranges::max(in);
      std::ranges::transform(in, scratch.get(), [peak](float v) { return std::exp(v - peak); });
      const float total = std::transform_reduce(scratch.get(), scratch.get() + n, 0.0f, std::plus<>(), std::identity());
      std::transform(scratch.get(), scratch.get() + n, y + r * cols, [inverse = 1.0f / total](float e) { return e * inverse; });
    }
  }
}
