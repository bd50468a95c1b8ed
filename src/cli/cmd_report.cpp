#include <fmt/format.h>

#include "cli/command.hpp"
#include "report/report.hpp"

namespace ksearch::cli {
namespace {

void setup(CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("report", "Write DIR/report.html: a self-contained page about a run (progress, best kernel, world model)");
  cmd->add_option("dir", *dir, "Run folder")->required();
  cmd->callback([dir, &exit_code] {
    fmt::print("{}\n", report::write_report(*dir).string());  // Error (not a run directory) exits 2 in main
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(33, setup);
}  // namespace ksearch::cli
