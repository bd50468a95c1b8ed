#pragma once
// backends/cpu/host_info: the host CPU as the cpu backend's profile describes it (model, cores,
// vector extension, caches), read from the operating system once per process.
#include <cstddef>
#include <string>

namespace ksearch::cpu {

struct HostInfo {
  std::string model;
  int cores = 1;
  std::string simd;  // widest vector extension, e.g. "AVX-512"
  size_t l1d_bytes = 0, l2_bytes = 0, llc_bytes = 0;
  std::string fingerprint() const;  // identifies the machine for cached measurements
};

HostInfo host_info();

}  // namespace ksearch::cpu
