#include "core/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace ksearch {

fs::path cache_dir() {
  fs::path dir;
  if (const char* env = std::getenv("KSEARCH_CACHE_DIR"); env && *env) {
    dir = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = fs::path(xdg) / "ksearch";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = fs::path(home) / ".cache" / "ksearch";
  } else {
    dir = fs::temp_directory_path() / "ksearch-cache";
  }
  fs::create_directories(dir);
  return dir;
}

fs::path cache_subdir(const std::string& name) {
  fs::path dir = cache_dir() / name;
  fs::create_directories(dir);
  return dir;
}

fs::path builtin_tasks_dir() {
  if (const char* env = std::getenv("KSEARCH_TASKS_DIR"); env && *env) return env;
  return source_dir() / "tasks";
}

fs::path include_dir() { return source_dir() / "include"; }

fs::path tools_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "ksearch-runner-cpu")) return self.parent_path();
  return fs::path(KSEARCH_BINARY_DIR);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid()) + "." +
                       std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp.string());
    out.write(contents.data(), std::streamsize(contents.size()));
    if (!out) throw Error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

}  // namespace ksearch

namespace ksearch {
std::filesystem::path profiles_dir() { return source_dir() / "profiles"; }
std::filesystem::path templates_dir() {
  if (const char* env = std::getenv("KSEARCH_TEMPLATES_DIR"); env && *env) return env;
  return source_dir() / "templates";
}
std::filesystem::path source_dir() { return KSEARCH_SOURCE_DIR; }
}  // namespace ksearch
