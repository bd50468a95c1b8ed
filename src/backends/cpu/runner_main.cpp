// ksearch-runner-cpu: loads one compiled cpu candidate and runs it for the evaluator.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/child.hpp"

namespace {

using Entry = void (*)(void* const*, const int64_t*, const double*, void*);

class CpuDevice : public ksearch::runner::RunnerDevice {
 public:
  void load(const nlohmann::json& artifact) override {
    const std::string library = artifact.at("library").get<std::string>();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load candidate: ") + dlerror());
    entry_ = reinterpret_cast<Entry>(dlsym(handle, "ksearch_entry"));
    if (!entry_) throw std::runtime_error("the candidate library has no ksearch_entry");
  }

  void call(const ksearch::runner::CallArgs& args) override {
    entry_(args.ptrs.data(), args.ints.data(), args.floats.data(), nullptr);
  }

  nlohmann::json extra(const nlohmann::json& command) override {
    if (command.value("cmd", "") == "ceilings") return measure_ceilings();
    return RunnerDevice::extra(command);
  }

 private:
  // Best of several passes of a parallel copy and triad over arrays far larger than the caches
  // (bytes read + written), and of an FMA loop with independent accumulators on every core.
  static nlohmann::json measure_ceilings() {
    const size_t n = size_t(64) << 20;  // 256 MiB per fp32 array
    std::vector<float> a(n), b(n), c(n);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) { a[i] = 1.0f; b[i] = 2.0f; c[i] = 0.5f; }
    double best_copy = 0, best_triad = 0;
    for (int pass = 0; pass < 6; ++pass) {
      double t0 = ksearch::runner::now_ms();
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < n; ++i) c[i] = a[i];
      double t1 = ksearch::runner::now_ms();
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
      double t2 = ksearch::runner::now_ms();
      best_copy = std::max(best_copy, 2.0 * 4 * double(n) / ((t1 - t0) / 1000));
      best_triad = std::max(best_triad, 3.0 * 4 * double(n) / ((t2 - t1) / 1000));
    }
    typedef float vec __attribute__((vector_size(64)));
    constexpr int kAccumulators = 12;
    const long iterations = 20'000'000;
    double best_flops = 0;
    for (int pass = 0; pass < 3; ++pass) {
      double t0 = ksearch::runner::now_ms();
      float sink = 0;
      int threads = 1;
#pragma omp parallel reduction(+ : sink)
      {
#pragma omp single
        threads = omp_get_num_threads();
        vec acc[kAccumulators];
        for (int k = 0; k < kAccumulators; ++k) acc[k] = vec{} + float(k) * 1e-3f;
        const vec x = vec{} + 0.999999f, y = vec{} + 1e-7f;
        for (long i = 0; i < iterations; ++i)
          for (int k = 0; k < kAccumulators; ++k) acc[k] = acc[k] * x + y;
        for (int k = 0; k < kAccumulators; ++k)
          for (int l = 0; l < 16; ++l) sink += acc[k][l];
      }
      double seconds = (ksearch::runner::now_ms() - t0) / 1000;
      if (sink == 12345.0f) seconds *= 2;  // keeps the loop's result alive
      best_flops = std::max(best_flops, double(threads) * iterations * kAccumulators * 16 * 2 / seconds);
    }
    return {{"bandwidth_bytes_per_s", std::max(best_copy, best_triad)},
            {"flops_per_s", best_flops},
            {"method", "best of 6 OpenMP copy/triad passes over 256 MiB arrays (bytes read + written); best of 3 "
                       "OpenMP FMA loops, 12 independent 16-lane accumulators per thread"}};
  }

  Entry entry_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  CpuDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
