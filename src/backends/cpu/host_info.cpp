#include "backends/cpu/host_info.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace ksearch::cpu {

namespace {
size_t cache_size(int index) {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  size_t value = std::stoull(text);
  if (text.back() == 'K') value *= 1024;
  if (text.back() == 'M') value *= 1024 * 1024;
  return value;
}
}  // namespace

std::string HostInfo::fingerprint() const {
  std::ostringstream out;
  out << model << "|" << cores << "|" << simd << "|" << llc_bytes;
  return out.str();
}

HostInfo host_info() {
  HostInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(cpuinfo, line)) {
    if (info.model.empty() && line.rfind("model name", 0) == 0) info.model = line.substr(line.find(':') + 2);
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line + " ";
  }
  if (info.model.empty()) info.model = "unknown CPU";
  info.cores = int(std::max(1u, std::thread::hardware_concurrency()));
  if (flags.find(" avx512f ") != std::string::npos) info.simd = "AVX-512 (16 fp32 lanes)";
  else if (flags.find(" avx2 ") != std::string::npos) info.simd = "AVX2 + FMA (8 fp32 lanes)";
  else if (flags.find(" sse4_2 ") != std::string::npos) info.simd = "SSE4.2 (4 fp32 lanes)";
  else info.simd = "NEON or scalar";
  info.l1d_bytes = cache_size(0);
  info.l2_bytes = cache_size(2);
  info.llc_bytes = cache_size(3);
  if (info.llc_bytes == 0) info.llc_bytes = info.l2_bytes ? info.l2_bytes : size_t(32) << 20;
  return info;
}

}  // namespace ksearch::cpu
