// The cpu backend's ceiling probe: this machine's fp32 FMA peak and copy/triad bandwidth, as candidates
// can reach them. ksearch compiles this file at run time with the candidates' own flags (g++ -O3
// -march=native -fopenmp: the vector width and instructions they get), runs it under the timing
// lock and reads the one JSON object it prints.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

#if defined(__AVX512F__)
constexpr int kNativeBytes = 64;
constexpr const char* kIsa = "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kNativeBytes = 32;
constexpr const char* kIsa = "AVX2+FMA";
#elif defined(__AVX__)
constexpr int kNativeBytes = 32;
constexpr const char* kIsa = "AVX";
#elif defined(__ARM_NEON)
constexpr int kNativeBytes = 16;
constexpr const char* kIsa = "NEON";
#else
constexpr int kNativeBytes = 16;
constexpr const char* kIsa = "SSE or scalar";
#endif

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

volatile float sink;  // keeps the accumulators' results alive

struct FmaRate {
  double flops_per_s = 0;
  int threads = 0;
};

// Every thread runs `Accumulators` independent FMA chains on vectors of `Bytes`: enough chains cover
// the FMA latency on every FMA port, too many spill registers. Best of five passes (other processes
// only ever slow a pass down).
template <int Bytes, int Accumulators>
FmaRate fma_rate() {
  typedef float vec __attribute__((vector_size(Bytes)));
  constexpr int lanes = Bytes / 4;
  const long iterations = long(2e9) / (Accumulators * lanes);  // 4 GFLOP per thread and pass
  FmaRate best;
  for (int pass = 0; pass < 5; ++pass) {
    int threads = 1;
    float total = 0;
    const double start = now_s();
#pragma omp parallel reduction(+ : total)
    {
#pragma omp single
      threads = omp_get_num_threads();
      vec acc[Accumulators];
      for (int k = 0; k < Accumulators; ++k) acc[k] = vec{} + float(k + 1) * 1e-3f;
      const vec x = vec{} + 0.999999f, y = vec{} + 1e-7f;
      for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 16
        for (int k = 0; k < Accumulators; ++k) acc[k] = acc[k] * x + y;
      for (int k = 0; k < Accumulators; ++k)
        for (int l = 0; l < lanes; ++l) total += acc[k][l];
    }
    const double seconds = now_s() - start;
    sink = total;
    const double rate = double(threads) * double(iterations) * Accumulators * lanes * 2 / seconds;
    if (rate > best.flops_per_s) best = {rate, threads};
  }
  return best;
}

struct Best {
  FmaRate rate;
  int bits = 0, accumulators = 0;
  std::string trials;  // "bits x accumulators: GFLOP/s" for each configuration tried
};

template <int Bytes, int Accumulators>
void try_fma(Best& best) {
  const FmaRate r = fma_rate<Bytes, Accumulators>();
  char line[64];
  std::snprintf(line, sizeof line, "%s\"%dx%d\": %.1f", best.trials.empty() ? "" : ", ", Bytes * 8, Accumulators,
                r.flops_per_s / 1e9);
  best.trials += line;
  if (r.flops_per_s > best.rate.flops_per_s) best = {r, Bytes * 8, Accumulators, best.trials};
}

// Every vector width up to the native one (on AVX-512 hosts 256-bit FMAs may run faster than 512-bit
// ones), 8 to 12 accumulators each; the best is the ceiling.
template <int Bytes>
void try_widths(Best& best) {
  try_fma<Bytes, 8>(best);
  try_fma<Bytes, 10>(best);
  try_fma<Bytes, 12>(best);
  if constexpr (Bytes < kNativeBytes) try_widths<Bytes * 2>(best);
}

// Best of six parallel copy and triad passes over arrays far larger than the caches (bytes read + written).
double bandwidth() {
  const size_t n = size_t(64) << 20;  // 256 MiB per fp32 array
  std::vector<float> a(n), b(n), c(n);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0f;
    b[i] = 2.0f;
    c[i] = 0.5f;
  }
  double best = 0;
  for (int pass = 0; pass < 6; ++pass) {
    const double t0 = now_s();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) c[i] = a[i];
    const double t1 = now_s();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
    const double t2 = now_s();
    best = std::max({best, 2.0 * 4 * double(n) / (t1 - t0), 3.0 * 4 * double(n) / (t2 - t1)});
  }
  sink = a[n / 2];
  return best;
}

}  // namespace

int main() {
  Best fma;
  try_widths<16>(fma);
  const double bytes_per_s = bandwidth();
  std::printf(
      "{\"bandwidth_bytes_per_s\": %.6g, \"flops_per_s\": %.6g, \"isa\": \"%s\", \"vector_bits\": %d, "
      "\"accumulators\": %d, \"threads\": %d, \"fma_gflops_by_bits_x_accumulators\": {%s},\n"
      " \"method\": \"best of 6 OpenMP copy/triad passes over 256 MiB arrays (bytes read + written); fp32 FMA peak: "
      "best of 5 OpenMP passes at each vector width up to the native one with 8, 10 and 12 independent "
      "accumulators per thread, best %d-bit x %d on %d threads (%s, compiled with the candidates' flags)\"}\n",
      bytes_per_s, fma.rate.flops_per_s, kIsa, fma.bits, fma.accumulators, fma.rate.threads, fma.trials.c_str(),
      fma.bits, fma.accumulators, fma.rate.threads, kIsa);
}
