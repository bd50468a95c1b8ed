#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/paths.hpp"

namespace cuda_test {

inline std::vector<std::filesystem::path> adversarial_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(KSEARCH_CUDA_ADVERSARIAL_DIR))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The status named on a source's first line: "// expect: STATUS ...".
inline std::string expected_status(const std::string& source) {
  const auto pos = source.find("expect: ");
  if (pos == std::string::npos) return "";
  const auto start = pos + 8;
  auto end = source.find_first_of(" :\n", start);
  return source.substr(start, end - start);
}

// The status a source names for the run-time defenses alone: "// expect-without-rules: STATUS"; empty if none.
inline std::string expected_status_without_rules(const std::string& source) {
  const std::string key = "expect-without-rules: ";
  const auto pos = source.find(key);
  if (pos == std::string::npos) return "";
  const auto start = pos + key.size();
  return source.substr(start, source.find_first_of(" :\n", start) - start);
}

}  // namespace cuda_test
