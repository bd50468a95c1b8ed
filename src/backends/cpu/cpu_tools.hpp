#pragma once
// Host-side helpers of the cpu backend: how candidates are compiled, and the ceiling probe.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ksearch::cpu {

// The code-generation flags of every candidate (g++ -std=c++20 -O3 -march=native -fopenmp); `march`
// replaces native, so that a test can stand in for another machine.
std::vector<std::string> candidate_flags(const std::string& march = "native");

// Builds ceilings_probe.cpp (beside this file in the source tree) with candidate_flags(march), runs it
// under the timing lock and returns its report: bandwidth_bytes_per_s, flops_per_s, isa,
// vector_bits, accumulators, threads and method. Throws Error when it cannot be built or run.
nlohmann::json measure_ceilings(const std::string& march = "native");

}  // namespace ksearch::cpu
