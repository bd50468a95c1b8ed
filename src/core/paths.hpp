#pragma once
#include <filesystem>
#include <string>

namespace ksearch {

// $KSEARCH_CACHE_DIR, else $XDG_CACHE_HOME/ksearch, else ~/.cache/ksearch. Created on demand.
std::filesystem::path cache_dir();
// A subfolder of the cache, created on demand.
std::filesystem::path cache_subdir(const std::string& name);
// Directory holding the built-in tasks: $KSEARCH_TASKS_DIR, else <source>/tasks.
std::filesystem::path builtin_tasks_dir();
// Directory holding ksearch's own headers for generated code (include/).
std::filesystem::path include_dir();
// Directory holding the helper executables (runners): the directory of the running ksearch binary.
std::filesystem::path tools_dir();

std::string read_file(const std::filesystem::path& path);  // throws Error naming the path
// Writes atomically (temporary file + rename), so that a crash never leaves a half-written file.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

}  // namespace ksearch

namespace ksearch {
// Hardware profiles (prose templates and rule files): <source>/profiles.
std::filesystem::path profiles_dir();
// Kernel template families of the built-in proposer: $KSEARCH_TEMPLATES_DIR, else <source>/templates.
std::filesystem::path templates_dir();
// The source tree this build was configured from; data folders (tasks, prompts, config) live there.
std::filesystem::path source_dir();
}  // namespace ksearch
