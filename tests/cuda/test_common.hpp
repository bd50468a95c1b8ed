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

// The .cu files of a corpus folder, sorted: $`env` where set (a packed test binary run from another
// checkout, as on the GPU machine), else `built_in` (this source tree's folder).
inline std::vector<std::filesystem::path> cu_files(const char* env, const char* built_in) {
  const char* dir = std::getenv(env);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir && *dir ? dir : built_in))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// tests/cuda/adversarial: attacks, each naming the status it must get.
inline std::vector<std::filesystem::path> adversarial_files() {
  return cu_files("KSEARCH_CUDA_ADVERSARIAL_DIR", KSEARCH_CUDA_ADVERSARIAL_DIR);
}

// tests/cuda/honest: honest kernels in the styles of real code, each naming its task ("// task: NAME").
inline std::vector<std::filesystem::path> honest_files() { return cu_files("KSEARCH_CUDA_HONEST_DIR", KSEARCH_CUDA_HONEST_DIR); }

// The whole text of a header line "// KEY: TEXT" of a source; empty if none. "expect-message": what an adversarial
// case's report must say (with and without rules).
inline std::string header_text(const std::string& source, const std::string& key) {
  const std::string marker = "// " + key + ": ";
  const auto pos = source.find(marker);
  if (pos == std::string::npos) return "";
  const auto start = pos + marker.size();
  return source.substr(start, source.find('\n', start) - start);
}

// The value of a header line "// KEY: STATUS ..." of an adversarial source; empty if none. Keys:
// "expect" (the status with every defense), "expect-without-rules" (the run-time defenses alone),
// "expect-memcheck" (under the backend's memory checker, as a run's best is checked); "task" (an honest
// kernel's task); "refused-today" (the rule that still refuses an honest kernel).
inline std::string header_status(const std::string& source, const std::string& key) {
  const std::string text = header_text(source, key);
  return text.substr(0, text.find_first_of(" :"));
}

}  // namespace cuda_test
