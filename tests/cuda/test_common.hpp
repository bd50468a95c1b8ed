#pragma once
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/paths.hpp"

namespace cuda_test {

// $KSEARCH_CUDA_ADVERSARIAL_DIR (a packed test binary run from another checkout, as on the GPU
// machine), else this source tree's tests/cuda/adversarial.
inline std::vector<std::filesystem::path> adversarial_files() {
  const char* env = std::getenv("KSEARCH_CUDA_ADVERSARIAL_DIR");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(env && *env ? env : KSEARCH_CUDA_ADVERSARIAL_DIR))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The value of a header line "// KEY: STATUS ..." of an adversarial source; empty if none. Keys:
// "expect" (the status with every defense), "expect-without-rules" (the run-time defenses alone),
// "expect-memcheck" (under the backend's memory checker, as a run's best is checked).
inline std::string header_status(const std::string& source, const std::string& key) {
  const std::string marker = "// " + key + ": ";
  const auto pos = source.find(marker);
  if (pos == std::string::npos) return "";
  const auto start = pos + marker.size();
  return source.substr(start, source.find_first_of(" :\n", start) - start);
}

}  // namespace cuda_test
