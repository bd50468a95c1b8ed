#pragma once
// Host-side helpers of the cpu backend: how candidates are compiled, and the ceiling probe.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ksearch::cpu {

// The instruction set candidates are built for: $KSEARCH_CPU_MARCH (a g++ -march value, e.g. haswell for
// AVX2 without AVX-512), else native. Ceilings are measured for it too, so kernels are searched and
// judged as on a machine of that kind.
std::string target_march();

// The code-generation flags of every candidate (g++ -std=c++20 -O3 -march=<march> -fopenmp).
std::vector<std::string> candidate_flags(const std::string& march = target_march());

// Builds ceilings_probe.cpp (beside this file, embedded in the binary) with candidate_flags(march), runs it
// under the timing lock and returns its report: bandwidth_bytes_per_s, flops_per_s, isa,
// vector_bits, accumulators, threads and method. Throws Error when it cannot be built or run.
nlohmann::json measure_ceilings(const std::string& march = target_march());

}  // namespace ksearch::cpu
