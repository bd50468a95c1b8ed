#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::test {

inline std::filesystem::path tiny_task_file() { return std::filesystem::path(KSEARCH_TEST_DIR) / "tiny_exp" / "task.toml"; }

inline std::filesystem::path fresh_run_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("ksearch-search-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// The tiny task's seed with its knobs set.
inline std::string tiny_source(int passes, int chunk = 4096) {
  return "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
         "extern \"C\" void exp_rows(const float* x, float* y, int64_t rows, int64_t cols) {\n"
         "  const int64_t n = rows * cols;\n"
         "  for (int p = 0; p < " + std::to_string(passes) + "; ++p)\n"
         "    for (int64_t b = 0; b < n; b += " + std::to_string(chunk) + ")\n"
         "      for (int64_t i = b; i < std::min<int64_t>(b + " + std::to_string(chunk) + ", n); ++i) y[i] = std::exp(x[i]);\n"
         "}\n";
}

// A test with a fresh run store (open) for the tiny task on the cpu backend, removed at the end.
struct RunFixture : ::testing::Test {
  tasks::Task task = tasks::load_task(tiny_task_file());
  std::unique_ptr<backends::Backend> backend = backends::make_backend("cpu");
  std::filesystem::path dir;
  std::optional<store::RunStore> store;
  void open(const std::string& name) {
    close();
    dir = fresh_run_dir(name);
    store::RunInfo info;
    info.task_name = task.name;
    info.task_file = task.file.string();
    info.backend = "cpu";
    store.emplace(store::RunStore::create(dir, info));
  }
  void close() {
    store.reset();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
  void TearDown() override { close(); }
};

}  // namespace ksearch::test
