#pragma once
// Hooks through which other files add proposer flags to `ksearch run` (e.g. --llm, --agent)
// without editing cmd_run.cpp. A hook adds its options to the subcommand and returns a function
// called after parsing that may set the run's proposer spec (name + JSON config, which is stored
// with the run so that `ksearch resume` rebuilds the same proposer).
#include <CLI/CLI.hpp>
#include <functional>

#include "proposers/proposer.hpp"

namespace ksearch::cli {

using ApplyProposerOptions = std::function<void(proposers::ProposerSpec& spec)>;
using RunOptionsHook = std::function<ApplyProposerOptions(CLI::App& run_command)>;
bool register_run_options(RunOptionsHook hook);
std::vector<RunOptionsHook>& run_options_hooks();

}  // namespace ksearch::cli

#define KSEARCH_RUN_OPTIONS(ID, HOOK) static const bool ksearch_run_options_##ID = ::ksearch::cli::register_run_options(HOOK)
