#pragma once
// cli/search_config: `ksearch run --config FILE` reads every run flag from a TOML file (CLI11's TOML
// reader; flags given on the command line win) and `--dump-config` prints the flags as such a file.
// Format: docs/CLI.md#search-configuration-files.
#include <CLI/CLI.hpp>

namespace ksearch::cli {

// Adds --config and --dump-config to `command`. Call it before adding the command's other options:
// options are converted in the order they were added, and the file must fill them in first (so that
// a required option such as --task may come from the file).
void add_config_file_options(CLI::App& command);

}  // namespace ksearch::cli
