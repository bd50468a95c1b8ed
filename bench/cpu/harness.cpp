// Standalone timing of one rendered candidate, for comparing knobs on a machine without ksearch's
// dependencies: g++ -std=c++20 -O3 -march=native -fopenmp -I src -DCANDIDATE='"file.cpp"' -DTASK_<name> harness.cpp
// then ./a.out AXES... (the task's axes in the order below); prints the median and the minimum ms of 15
// cold-cache calls. With -DTHREAD_CPU_TIME it times the calling thread's CPU time instead of wall time:
// on a machine loaded by other processes that is what a single-threaded candidate (THREADS 0) itself
// spent, without the time slices it waited; compare it with single-core peaks measured the same way.
// bench/cpu/single_core.py runs it for several kernels against the ceilings probe in interleaved repetitions.
// HARNESS_WARM=1 in the environment skips the flush (warm caches: how much of a call the cold data costs).
// Correctness is ksearch eval's job; this only times.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "core/cache_eviction.hpp"
#include CANDIDATE

namespace {
std::vector<float> filled(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}
double now_ms() {
#if defined(THREAD_CPU_TIME)
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
#else
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

// "median min" of the calls' ms; before each call, the tensors' cache lines are evicted as ksearch's evaluator
// does it (everything else stays cached), unless HARNESS_WARM=1.
template <class F>
void print_ms(F&& call, std::initializer_list<const std::vector<float>*> tensors) {
  const bool warm = std::getenv("HARNESS_WARM") && std::string(std::getenv("HARNESS_WARM")) == "1";
  std::vector<double> ms;
  call();
  for (int rep = 0; rep < 15; ++rep) {
    if (!warm)
      for (const auto* t : tensors) ksearch::core::evict_cache_lines(t->data(), t->size() * sizeof(float));
    const double t0 = now_ms();
    call();
    ms.push_back(now_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%.4f %.4f\n", ms[ms.size() / 2], ms.front());
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> a;
  for (int i = 1; i < argc; ++i) a.push_back(std::atoll(argv[i]));
#if defined(TASK_softmax)  // rows cols
  auto x = filled(a[0] * a[1], -8, 8, 1), y = x;
  print_ms([&] { softmax(x.data(), y.data(), a[0], a[1]); }, {&x, &y});
#elif defined(TASK_rmsnorm)  // rows cols
  auto x = filled(a[0] * a[1], -2, 2, 1), w = filled(a[1], 0.5, 1.5, 2), y = x;
  print_ms([&] { rmsnorm(x.data(), w.data(), y.data(), a[0], a[1], 1e-6f); }, {&x, &w, &y});
#elif defined(TASK_matmul)  // m n k
  auto A = filled(a[0] * a[2], -1, 1, 1), B = filled(a[2] * a[1], -1, 1, 2), C = filled(a[0] * a[1], 0, 1, 3);
  print_ms([&] { matmul(A.data(), B.data(), C.data(), a[0], a[1], a[2]); }, {&A, &B, &C});
#elif defined(TASK_attention)  // b hq hkv lq lk d causal
  auto q = filled(a[0] * a[1] * a[3] * a[5], -1, 1, 1), k = filled(a[0] * a[2] * a[4] * a[5], -1, 1, 2);
  auto v = filled(a[0] * a[2] * a[4] * a[5], -1, 1, 3), o = q;
  print_ms([&] { attention(q.data(), k.data(), v.data(), o.data(), a[0], a[1], a[2], a[3], a[4], a[5], int32_t(a[6])); },
           {&q, &k, &v, &o});
#elif defined(TASK_selective_scan)  // b d l (n = 16, g = 1, variable B/C, D, z, delta_bias, softplus)
  const int64_t b = a[0], d = a[1], l = a[2], n = 16;
  auto u = filled(b * d * l, -1, 1, 1), delta = filled(b * d * l, 0.001f, 0.1f, 2), A = filled(d * n, -16, -1, 3);
  auto B = filled(b * n * l, -1, 1, 4), C = filled(b * n * l, -1, 1, 5), D = filled(d, 0.5, 1.5, 6);
  auto z = filled(b * d * l, -1, 1, 7), bias = filled(d, -4, -1, 8), y = u;
  print_ms([&] {
    selective_scan(u.data(), delta.data(), A.data(), B.data(), C.data(), D.data(), z.data(), bias.data(), y.data(),
                   nullptr, b, d, l, n, 1, 1, 1);
  }, {&u, &delta, &A, &B, &C, &D, &z, &bias, &y});
#endif
}
