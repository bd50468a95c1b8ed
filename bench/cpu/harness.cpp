// Standalone timing of one rendered candidate, for comparing knobs on a machine without ksearch's
// dependencies: g++ -std=c++20 -O3 -march=native -fopenmp -DCANDIDATE='"file.cpp"' -DTASK_<name> harness.cpp
// then ./a.out AXES... (the task's axes in the order below); prints the median ms of 15 cold-cache calls.
// Correctness is ksearch eval's job; this only times.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include CANDIDATE

namespace {
std::vector<float> filled(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}
template <class F>
double median_ms(F&& call) {
  std::vector<char> flush(size_t(256) << 20);
  std::vector<double> ms;
  call();
  for (int rep = 0; rep < 15; ++rep) {
    for (size_t i = 0; i < flush.size(); i += 64) flush[i] = char(rep + i);
    const auto t0 = std::chrono::steady_clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> a;
  for (int i = 1; i < argc; ++i) a.push_back(std::atoll(argv[i]));
#if defined(TASK_softmax)  // rows cols
  auto x = filled(a[0] * a[1], -8, 8, 1), y = x;
  std::printf("%.4f\n", median_ms([&] { softmax(x.data(), y.data(), a[0], a[1]); }));
#elif defined(TASK_rmsnorm)  // rows cols
  auto x = filled(a[0] * a[1], -2, 2, 1), w = filled(a[1], 0.5, 1.5, 2), y = x;
  std::printf("%.4f\n", median_ms([&] { rmsnorm(x.data(), w.data(), y.data(), a[0], a[1], 1e-6f); }));
#elif defined(TASK_matmul)  // m n k
  auto A = filled(a[0] * a[2], -1, 1, 1), B = filled(a[2] * a[1], -1, 1, 2), C = filled(a[0] * a[1], 0, 1, 3);
  std::printf("%.4f\n", median_ms([&] { matmul(A.data(), B.data(), C.data(), a[0], a[1], a[2]); }));
#elif defined(TASK_attention)  // b hq hkv lq lk d causal
  auto q = filled(a[0] * a[1] * a[3] * a[5], -1, 1, 1), k = filled(a[0] * a[2] * a[4] * a[5], -1, 1, 2);
  auto v = filled(a[0] * a[2] * a[4] * a[5], -1, 1, 3), o = q;
  std::printf("%.4f\n", median_ms([&] { attention(q.data(), k.data(), v.data(), o.data(), a[0], a[1], a[2], a[3], a[4], a[5], int32_t(a[6])); }));
#elif defined(TASK_selective_scan)  // b d l (n = 16, g = 1, variable B/C, D, z, delta_bias, softplus)
  const int64_t b = a[0], d = a[1], l = a[2], n = 16;
  auto u = filled(b * d * l, -1, 1, 1), delta = filled(b * d * l, 0.001f, 0.1f, 2), A = filled(d * n, -16, -1, 3);
  auto B = filled(b * n * l, -1, 1, 4), C = filled(b * n * l, -1, 1, 5), D = filled(d, 0.5, 1.5, 6);
  auto z = filled(b * d * l, -1, 1, 7), bias = filled(d, -4, -1, 8), y = u;
  std::printf("%.4f\n", median_ms([&] {
    selective_scan(u.data(), delta.data(), A.data(), B.data(), C.data(), D.data(), z.data(), bias.data(), y.data(),
                   nullptr, b, d, l, n, 1, 1, 1);
  }));
#endif
}
