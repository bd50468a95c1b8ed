// 1, 6: caches outputs per input buffer in C++17 inline variables at namespace scope (no `static` for the
// rules to see) and replays them on later calls with the same buffers. The vector's destructor is
// registered at load time (__cxa_atexit from the library's initializer), which the object rules refuse;
// without them the state reset before every call empties the cache: it computes, and is timed, for real.
// expect: rejected
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
inline const float* cached_for = nullptr;
inline std::vector<float> cached;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (x == cached_for && cached.size() == size_t(rows * cols)) {
    std::memcpy(y, cached.data(), cached.size() * sizeof(float));
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  cached.assign(y, y + rows * cols);
  cached_for = x;
}
