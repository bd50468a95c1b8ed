// Checks the dpx_intrinsics task's reference against the CUDA toolkit's own host implementations of the DPX
// intrinsics (crt/device_functions.hpp: the code older GPUs and the host run), on a million random triples; no GPU
// needed: corpus/dpx_intrinsics/max_min_relu.cu's hash, a __host__ __device__ function, called on the host.
//   nvcc -O2 -I include -o /tmp/dpx_check tests/translate/device/dpx_host_check.cu && /tmp/dpx_check
#include <cuda_runtime.h>
#include <cstdio>
#include <random>
#include <vector>
// The reference's ks_reference in this translation unit.
#include "../tasks/dpx_intrinsics/reference.cpp"

// The corpus kernel's own hash, a __host__ __device__ function.
#include "../corpus/dpx_intrinsics/max_min_relu.cu"

int main() {
  std::mt19937 rng(7);
  const int64_t n = 1 << 20;
  std::vector<double> a(n), b(n), c(n), words(n), preds(n);
  for (int64_t i = 0; i < n; ++i) a[i] = int32_t(rng()), b[i] = int32_t(rng()), c[i] = int32_t(rng());
  const int64_t shape[] = {n};
  const ks_tensor inputs[] = {{"a", a.data(), shape, 1}, {"b", b.data(), shape, 1}, {"c", c.data(), shape, 1}};
  const ks_tensor outputs[] = {{"words", words.data(), shape, 1}, {"preds", preds.data(), shape, 1}};
  const char* const names[] = {"n"};
  const double values[] = {double(n)};
  const ks_reference_args args = {3, inputs, 2, outputs, 1, names, values};
  ks_reference(&args);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned ua = (unsigned)(int32_t)a[i], ub = (unsigned)(int32_t)b[i];
    const unsigned uc = ((unsigned)(int32_t)c[i] & 0xffffu) | (ua & 0xffff0000u);
    int w, p;
    dpx_hash(ua, ub, uc, &w, &p);
    mismatches += w != (int)words[i] || p != (int)preds[i];
  }
  std::printf("DPX host implementations vs reference: %lld mismatches in %lld triples\n", (long long)mismatches, (long long)n);
  return mismatches != 0;
}
