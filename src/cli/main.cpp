#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/file_error.hpp"

namespace ksearch::cli {

namespace {
std::multimap<int, CommandSetup>& commands() {
  static std::multimap<int, CommandSetup> map;
  return map;
}
}  // namespace

bool register_command(int order, CommandSetup setup) {
  commands().emplace(order, std::move(setup));
  return true;
}

}  // namespace ksearch::cli

int main(int argc, char** argv) {
  // Logs go to stderr: stdout carries results (`--json` output must parse whatever is logged).
  spdlog::set_default_logger(spdlog::stderr_color_mt("ksearch"));
  spdlog::set_pattern("%^[%l]%$ %v");
  spdlog::set_level(spdlog::level::warn);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug for more
  CLI::App app{"ksearch: searches for fast, verified compute kernels (cpu, cuda, metal)"};
  app.set_version_flag("--version", "ksearch " KSEARCH_VERSION);
  app.require_subcommand(1);
  int exit_code = ksearch::cli::kExitOk;
  for (auto& [order, setup] : ksearch::cli::commands()) setup(app, exit_code);
  // CLI11 reads an unknown first word as a stray argument and asks for a subcommand; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      fmt::print(stderr, "ksearch: error: unknown command '{}' (commands: {}; ksearch --help)\n", argv[1],
                 fmt::join(names, ", "));
      return ksearch::cli::kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : ksearch::cli::kExitUsage;
  } catch (const ksearch::FileAccessError& e) {
    fmt::print(stderr, "ksearch: error: {}\n", e.what());
    return ksearch::cli::kExitFileAccess;
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder that cannot be created or written (read-only, permissions, full disk) is the
    // user's setup, not a bug.
    if (!ksearch::is_access_errno(e.code().value())) {
      fmt::print(stderr, "ksearch: internal error: {}\n", e.what());
      return ksearch::cli::kExitInternal;
    }
    std::string_view what = e.what();  // "filesystem error: cannot create directories: Permission denied [/x]"
    if (what.starts_with("filesystem error: ")) what.remove_prefix(std::string_view("filesystem error: ").size());
    fmt::print(stderr, "ksearch: error: {}\n", what);
    return ksearch::cli::kExitFileAccess;
  } catch (const ksearch::SystemError& e) {
    fmt::print(stderr, "ksearch: internal error: {}\n", e.what());
    return ksearch::cli::kExitInternal;
  } catch (const ksearch::Error& e) {
    fmt::print(stderr, "ksearch: error: {}\n", e.what());
    return ksearch::cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ksearch: internal error: {}\n", e.what());
    return ksearch::cli::kExitInternal;
  }
  return exit_code;
}
