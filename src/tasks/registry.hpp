#pragma once
// tasks/registry: finding tasks, built-in (core/paths builtin_tasks_dir) or named by path.
#include <filesystem>
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch::tasks {

// Built-in tasks live in <tasks dir>/<name>/task.toml. A task can also be named by the path of
// its task file (or its folder), which is how users add tasks without rebuilding ksearch.
std::vector<Task> list_builtin_tasks();
Task resolve_task(const std::string& name_or_path);  // throws Error with the known task names

}  // namespace ksearch::tasks
