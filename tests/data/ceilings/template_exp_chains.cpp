// The exp the cpu templates' kernels run (templates/cpu/common/vector.h: v_exp2_product at degree 5, at the
// widest vector the flags allow), in independent chains x -> exp(-x) on every thread. Built with the candidates'
// flags, it prints the best rate it reaches, timed as the probe times its own (each thread in its CPU time, the
// threads' rates summed); the ceilings test checks that the probe's exp rate is not below it.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#define VECTOR_BITS 512
#include "vector.h"

int main() {
  constexpr int kChains = 12;
  const long iterations = long(4e8) / (kChains * VW);
  const auto thread_cpu_s = [] {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
  };
  double best = 0;
  float checksum = 0;
  for (int pass = 0; pass < 5; ++pass) {
    float total = 0;
    double rate = 0;
#pragma omp parallel reduction(+ : total, rate)
    {
      const double start = thread_cpu_s();
      vf x[kChains];
      for (int k = 0; k < kChains; ++k) x[k] = v_set1(float(k + 1) * 0.05f);
      const vf minus_log2e = v_set1(-1.44269504f);
      for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 16
        for (int k = 0; k < kChains; ++k) x[k] = v_exp2_product<5>(x[k], minus_log2e);
      for (int k = 0; k < kChains; ++k) total += v_hsum(x[k]);
      rate += double(iterations) * kChains * VW / (thread_cpu_s() - start);
    }
    best = std::max(best, rate);
    checksum = total;
  }
  std::printf("{\"exp_per_s\": %.6g, \"threads\": %d, \"checksum\": %g}\n", best, omp_get_max_threads(), checksum);
}
