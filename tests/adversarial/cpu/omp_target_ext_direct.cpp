// 4, 5: OpenMP target offload reached by calling libgomp's GOMP_target_ext directly (an import the "GOMP_*" allowance
// lets through; the rule `openmp-target-offload` reads only `#pragma omp target`, which the compiler would turn into this
// call). There is no device: libgomp runs the region's host fallback, which the rule's message says starts threads
// the sandbox refuses. The rules should refuse it as they refuse the pragma.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstddef>
#include <cstdint>

extern "C" void GOMP_target_ext(int device, void (*fn)(void*), size_t mapnum, void** hostaddrs, size_t* sizes,
                                unsigned short* kinds, unsigned int flags, void** depend, void** args);

namespace {
struct Job {
  const float* x;
  float* y;
  int64_t rows, cols;
};
void region(void* data) {
  const Job* j = *static_cast<Job**>(static_cast<void**>(data)[0]);  // hostaddrs[0] = &ptr
  for (int64_t r = 0; r < j->rows; ++r) {
    const float* xr = j->x + r * j->cols;
    float* yr = j->y + r * j->cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < j->cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < j->cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < j->cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  Job job{x, y, rows, cols};
  Job* ptr = &job;
  void* hostaddrs[1] = {&ptr};
  size_t sizes[1] = {sizeof ptr};
  unsigned short kinds[1] = {0};
  // device -1: the default device (the host fallback here); mapnum 0 keeps every map out of the way
  GOMP_target_ext(-1, region, 0, hostaddrs, sizes, kinds, 0, nullptr, nullptr);
  (void)sizes;
  (void)kinds;
}
