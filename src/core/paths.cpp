#include "core/paths.hpp"

#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "core/file_error.hpp"

namespace fs = std::filesystem;

namespace ksearch {

namespace {
// Baked in by src/core/CMakeLists.txt (this file only, so every other object is independent of
// where the tree lives): the trees of a build-tree binary, and the install layout relative to bin/.
constexpr const char* kSourceDir = KSEARCH_SOURCE_DIR;
constexpr const char* kBinaryDir = KSEARCH_BINARY_DIR;
constexpr const char* kBinToData = KSEARCH_BIN_TO_DATA;        // e.g. ../share/ksearch
constexpr const char* kBinToRunners = KSEARCH_BIN_TO_RUNNERS;  // e.g. ../libexec/ksearch

Located find_data_dir() {
  if (const char* env = std::getenv("KSEARCH_DATA_DIR"); env && *env) {
    if (!fs::is_directory(env)) throw Error(std::string("KSEARCH_DATA_DIR=") + env + " is not a folder");
    return {env, "$KSEARCH_DATA_DIR"};
  }
  const fs::path installed = (executable_path().parent_path() / kBinToData).lexically_normal();
  if (fs::is_directory(installed / "tasks")) return {installed, std::string("installed (<exe>/") + kBinToData + ")"};
  if (fs::is_directory(fs::path(kSourceDir) / "tasks")) return {kSourceDir, "source tree of this build"};
  throw Error("cannot find ksearch's data folder (tasks/, profiles/, prompts/): looked in " + installed.string() +
              " and " + kSourceDir + "; install ksearch (cmake --install) or set KSEARCH_DATA_DIR");
}

Located find_runner_dir() {
  const fs::path exe_dir = executable_path().parent_path();
  const fs::path installed = (exe_dir / kBinToRunners).lexically_normal();
  if (fs::is_directory(installed)) return {installed, std::string("installed (<exe>/") + kBinToRunners + ")"};
  if (fs::exists(exe_dir / "ksearch-runner-cpu")) return {exe_dir, "next to the executable"};
  return {kBinaryDir, "build tree of this build"};
}
}  // namespace

fs::path executable_path() {
#if defined(__APPLE__)
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string buffer(size, '\0');
  if (_NSGetExecutablePath(buffer.data(), &size) != 0) throw Error("cannot find the running executable");
  return fs::canonical(buffer.c_str());
#else
  return fs::canonical("/proc/self/exe");
#endif
}

const Located& data_dir() {
  static const Located dir = find_data_dir();
  return dir;
}

fs::path data_path(std::string_view relative) { return data_dir().path / relative; }

const Located& runner_dir() {
  static const Located dir = find_runner_dir();
  return dir;
}

fs::path builtin_tasks_dir() {
  if (const char* env = std::getenv("KSEARCH_TASKS_DIR"); env && *env) return env;
  return data_path("tasks");
}

fs::path include_dir() { return data_path("include"); }

fs::path profiles_dir() { return data_path("profiles"); }


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
  // Absolute: builds run in folders of their own, where a relative KSEARCH_CACHE_DIR=build/cache would name another.
  return fs::absolute(dir);
}

fs::path cache_subdir(const std::string& name) {
  fs::path dir = cache_dir() / name;
  fs::create_directories(dir);
  return dir;
}

std::string read_file(const fs::path& path) {
  // A directory opens as an empty stream: it would read as an empty file.
  if (std::error_code ec; fs::is_directory(path, ec)) throw Error(path.string() + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (is_access_errno(errno)) throw FileAccessError("read", path, errno);
    throw Error("cannot read " + path.string());
  }
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
    if (!out) throw_file_error("write", path, errno);
    out.write(contents.data(), std::streamsize(contents.size()));
    out.flush();
    if (!out) {
      const int error = errno;
      std::error_code ignored;
      fs::remove(tmp, ignored);  // e.g. a full disk: leave no partial file behind
      throw_file_error("write", path, error);
    }
  }
  fs::rename(tmp, path);
}

}  // namespace ksearch

