#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/file_error.hpp"
#include "core/paths.hpp"
#include "report/report.hpp"

namespace fs = std::filesystem;

namespace ksearch::cli {
namespace {

struct ExportArgs {
  std::string dir, out, format = "source";
};

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write a run's best kernel as a standalone source file with a usage header");
  cmd->add_option("dir", args->dir, "Run folder")->required();
  cmd->add_option("--out", args->out,
                  "Kernel file to write, or an existing folder (default: DIR/export/); companion files (cuda) go beside it");
  cmd->add_option("--format", args->format,
                  "source: the backend's kernel file; metal runs also mlx (a Python module on mx.fast.metal_kernel) and "
                  "mlx-lm (that module with patch(model), a drop-in for mlx-lm's Mamba prefill)")
      ->check(CLI::IsMember({"source", "mlx", "mlx-lm"}));
  cmd->callback([args, &exit_code] {
    const report::RunData run = report::load_run(args->dir);
    report::ExportBundle bundle;
    try {
      bundle = report::export_bundle(run, args->format);
    } catch (const report::NothingToExport& e) {
      fmt::print(stderr, "ksearch: {}\n", e.what());
      exit_code = kExitCandidateFailed;
      return;
    }
    // --out names the kernel file or a folder; the other files of a bundle keep their names beside it.
    fs::path kernel = args->out.empty() ? run.dir / "export" : fs::path(args->out);
    if (args->out.empty() || fs::is_directory(kernel) || args->out.back() == '/') kernel /= bundle.files.front().name;
    const fs::path folder = kernel.has_parent_path() ? kernel.parent_path() : fs::path(".");
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) throw_file_error("create the export folder", folder, error.value());
    for (size_t i = 0; i < bundle.files.size(); ++i) {
      const fs::path path = i == 0 ? kernel : folder / bundle.files[i].name;
      write_file_atomic(path, bundle.files[i].contents);
      fmt::print("{}\n", path.string());
    }
    fmt::print(stderr, "{}\n", bundle.note);
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(34, setup);
}  // namespace ksearch::cli
