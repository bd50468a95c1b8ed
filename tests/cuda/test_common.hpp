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

}  // namespace cuda_test
