#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "tasks/registry.hpp"
#include "core/json_text.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::list_builtin_tasks;
using ksearch::tasks::resolve_task;

namespace ksearch::cli {
namespace {

nlohmann::json task_json(const Task& task) {
  nlohmann::json j;
  j["name"] = task.name;
  j["description"] = task.description;
  j["file"] = task.file.string();
  j["axes"] = nlohmann::json::array();
  for (const auto& [name, description] : task.axes) j["axes"].push_back({{"name", name}, {"description", description}});
  for (const auto& [key, list] : {std::pair{"inputs", &task.inputs}, std::pair{"outputs", &task.outputs}}) {
    j[key] = nlohmann::json::array();
    for (const auto& t : *list) {
      nlohmann::json tj = {{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"optional", t.optional}};
      if (std::string(key) == "inputs") {
        const bool normal = t.dist.kind == "normal";
        // An expression bound is listed as written (its value differs per workload).
        const auto bound = [](double value, const std::string& expression) {
          return expression.empty() ? nlohmann::json(value) : nlohmann::json(expression);
        };
        tj["dist"] = {{"kind", t.dist.kind},
                      {normal ? "mean" : "lo", bound(t.dist.a, t.dist.a_expr)},
                      {normal ? "std" : "hi", bound(t.dist.b, t.dist.b_expr)}};
      }
      j[key].push_back(tj);
    }
  }
  j["params"] = nlohmann::json::array();
  for (const auto& p : task.params)
    j["params"].push_back({{"name", p.name}, {"dtype", dtype_name(p.dtype)}, {"default", p.default_value}});
  j["workloads"] = nlohmann::json::array();
  for (const auto& w : task.workloads)
    j["workloads"].push_back({{"name", w.name}, {"axes", w.axes}, {"params", w.params}, {"held_out", w.held_out},
                              {"backends", w.backends}, {"absent", w.absent}, {"shapes", w.shapes}});
  j["backends"] = nlohmann::json::object();
  for (const auto& [backend, entry] : task.entries) {
    nlohmann::json b = {{"seed", entry.seed.string()}, {"function", entry.function}};
    try {
      b["signature"] = make_backend(backend)->entry_description(task);
    } catch (const std::exception& e) {
      b["signature"] = std::string("(backend not built: ") + e.what() + ")";
    }
    j["backends"][backend] = b;
  }
  return j;
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("tasks", "List the tasks: axes, workloads (held-out marked), seeds and entry signatures");
  auto json = std::make_shared<bool>(false);
  auto names = std::make_shared<std::vector<std::string>>();
  cmd->add_option("names", *names, "Only these tasks (built-in names or task folders/files); default: every built-in task");
  cmd->add_flag("--json", *json, "Print one JSON array");
  cmd->callback([json, names, &exit_code] {
    std::vector<Task> tasks;
    if (names->empty()) tasks = list_builtin_tasks();
    for (const auto& name : *names) tasks.push_back(resolve_task(name));  // an unknown name lists the known ones
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& t : tasks) all.push_back(task_json(t));
      fmt::print("{}\n", json_text(all, 2));
      exit_code = kExitOk;
      return;
    }
    for (const auto& t : tasks) {
      const auto j = task_json(t);
      fmt::print("{}  {}\n", t.name, t.description);
      std::string axes;
      for (const auto& [name, _] : t.axes) axes += (axes.empty() ? "" : ", ") + name;
      fmt::print("  axes: {}\n  workloads:\n", axes);
      for (const auto& w : t.workloads) {
        std::string bindings;
        for (const auto& [k, v] : w.axes) bindings += fmt::format("{}{}={}", bindings.empty() ? "" : " ", k, v);
        for (const auto& [k, v] : w.params) bindings += fmt::format(" {}={}", k, v);
        std::string where = w.backends.empty() ? "" : " [" + fmt::format("{}", fmt::join(w.backends, ",")) + "]";
        fmt::print("    {:<28} {}{}{}\n", w.name, bindings, w.held_out ? "  (held out)" : "", where);
      }
      for (const auto& [backend, b] : j["backends"].items()) {
        fmt::print("  {} seed: {}\n", backend, b["seed"].get<std::string>());
        fmt::print("  {} entry: {}\n", backend, b["signature"].get<std::string>());
      }
      fmt::print("\n");
    }
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(10, setup);
}  // namespace ksearch::cli
