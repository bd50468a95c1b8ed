// `ksearch paths`: where this ksearch finds its data, runners and cache, and how each was found.
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "core/paths.hpp"
#include "core/json_text.hpp"

namespace ksearch::cli {
namespace {

using Row = std::array<std::string, 3>;  // name, path, origin

// A resource an environment variable can point elsewhere (the variable wins, as in its reader).
Row overridable(const std::string& name, const char* variable, const std::filesystem::path& otherwise,
                const std::string& origin) {
  const char* value = std::getenv(variable);
  if (value && *value) return {name, value, fmt::format("${}", variable)};
  return {name, otherwise.string(), origin};
}

void setup(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("paths", "Print where ksearch finds its data (tasks, profiles, prompts), runners and cache");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print one JSON object");
  cmd->callback([json, &exit_code] {
    const Located& data = data_dir();
    const Located& runners = runner_dir();
    const std::vector<Row> rows = {
        {"executable", executable_path().string(), "running binary"},
        {"data", data.path.string(), data.origin},
        overridable("tasks", "KSEARCH_TASKS_DIR", data_path("tasks"), "data"),
        {"profiles", profiles_dir().string(), "data"},
        overridable("prompts", "KSEARCH_PROMPTS_DIR", data_path("prompts"), "data"),
        {"include", include_dir().string(), "data"},
        overridable("prices", "KSEARCH_PRICES_FILE", data_path("config/prices.toml"), "data"),
        {"runners", runners.path.string(), runners.origin},
        overridable("cache", "KSEARCH_CACHE_DIR", cache_dir(), "user cache"),
    };
    if (*json) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();  // in the order of the table
      for (const auto& [name, path, origin] : rows) j[name] = {{"path", path}, {"origin", origin}};
      fmt::print("{}\n", json_text(j, 2));
    } else {
      for (const auto& [name, path, origin] : rows) fmt::print("{:<11} {}  ({})\n", name, path, origin);
    }
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(90, setup);
}  // namespace ksearch::cli
