#pragma once
// core/paths: where ksearch finds its own files and keeps its caches.
//
// Read-only data (tasks/, profiles/, prompts/, include/, config/, templates/) comes from one lookup,
// data_dir(); the runner executables from runner_dir(). Both work for a build tree and for an
// installed prefix (bin/ksearch, libexec/ksearch/, share/ksearch/), so a build works wherever it is
// copied and the source tree is not needed after `cmake --install`.
#include <filesystem>
#include <string>
#include <string_view>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// A resolved folder and how it was found (printed by `ksearch paths`).
struct Located {
  std::filesystem::path path;
  std::string origin;  // e.g. "$KSEARCH_DATA_DIR", "installed (<exe>/../share/ksearch)", "source tree"
};

// The data folder: $KSEARCH_DATA_DIR, else <exe>/../share/ksearch (an installed ksearch), else the
// source tree this build was configured from (a build-tree binary). Throws Error when none exists.
const Located& data_dir();
// A file or folder in the data folder, e.g. data_path("profiles") or data_path("config/prices.toml").
std::filesystem::path data_path(std::string_view relative);
// The folder holding the runner executables: <exe>/../libexec/ksearch (installed), else the folder
// of the running executable (a build tree).
const Located& runner_dir();
// The built-in tasks: $KSEARCH_TASKS_DIR, else data_path("tasks").
std::filesystem::path builtin_tasks_dir();
// ksearch's own headers for generated code: data_path("include").
std::filesystem::path include_dir();
// Hardware profiles (prose templates and rule files): data_path("profiles").
std::filesystem::path profiles_dir();
// The running executable (resolved through symlinks).
std::filesystem::path executable_path();

// $KSEARCH_CACHE_DIR, else $XDG_CACHE_HOME/ksearch, else ~/.cache/ksearch. Created on demand.
std::filesystem::path cache_dir();
// A subfolder of the cache, created on demand.
std::filesystem::path cache_subdir(const std::string& name);

std::string read_file(const std::filesystem::path& path);  // throws Error naming the path
// Writes atomically (temporary file + rename), so that a crash never leaves a half-written file.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

}  // namespace ksearch
