// `ksearch eval-job DIR` (hidden): what a batch job runs on a compute node (executors/job_file):
// evaluates DIR/job.json and writes DIR/result.json. A candidate that fails is a result like any
// other (exit 0); a job that cannot run at all exits non-zero without a result, and the driver
// records the evaluation as failed with this command's output.
#include <filesystem>

#include "cli/command.hpp"
#include "executors/job_file.hpp"

namespace ksearch::cli {
namespace {

void setup(CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("eval-job", "Evaluate one job folder of a batch executor (run by the job on its node)");
  cmd->group("");  // hidden: not for people
  cmd->add_option("dir", *dir, "The job folder (job.json in, result.json out)")->required();
  cmd->callback([dir, &exit_code] {
    executors::run_job(*dir);
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(90, setup);
}  // namespace ksearch::cli
