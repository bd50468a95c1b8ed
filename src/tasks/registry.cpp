#include "tasks/registry.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace ksearch::tasks {

std::vector<Task> list_builtin_tasks() {
  std::vector<Task> tasks;
  const fs::path dir = builtin_tasks_dir();
  if (!fs::is_directory(dir)) throw Error("built-in tasks folder not found: " + dir.string());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && fs::exists(entry.path() / "task.toml")) files.push_back(entry.path() / "task.toml");
  std::sort(files.begin(), files.end());
  for (const auto& f : files) tasks.push_back(load_task(f));
  return tasks;
}

Task resolve_task(const std::string& name_or_path) {
  fs::path as_path(name_or_path);
  if (fs::is_directory(as_path) && fs::exists(as_path / "task.toml")) return load_task(as_path / "task.toml");
  if (fs::is_regular_file(as_path)) return load_task(as_path);
  const fs::path builtin = builtin_tasks_dir() / name_or_path / "task.toml";
  if (name_or_path.find('/') == std::string::npos && fs::exists(builtin)) return load_task(builtin);
  std::string known;
  if (fs::is_directory(builtin_tasks_dir()))
    for (const auto& entry : fs::directory_iterator(builtin_tasks_dir()))
      if (fs::exists(entry.path() / "task.toml")) known += " " + entry.path().filename().string();
  throw Error("unknown task '" + name_or_path + "': not a built-in task (built-in:" + known +
              ") nor a task file or folder");
}

}  // namespace ksearch::tasks
