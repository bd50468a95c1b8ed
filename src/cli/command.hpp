#pragma once
// cli/command: each ksearch subcommand lives in its own file and registers itself here.
#include <CLI/CLI.hpp>
#include <functional>

namespace ksearch::cli {

// Adds a subcommand to `app`; the callback it installs returns the process exit code through `exit_code`.
using CommandSetup = std::function<void(CLI::App& app, int& exit_code)>;
bool register_command(int order, CommandSetup setup);

// Exit codes shared by every subcommand (docs/CLI.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCandidateFailed = 1;  // the command ran, but the candidate/run did not pass
inline constexpr int kExitUsage = 2;            // bad input (Error): unknown task, missing file, malformed task file
inline constexpr int kExitInternal = 3;         // the machine or ksearch failed (SystemError, any other exception)
inline constexpr int kExitFileAccess = 4;       // a file or folder cannot be read or written (FileAccessError)
inline constexpr int kExitInterrupted = 130;    // a run stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + SIGINT, resumable

}  // namespace ksearch::cli

#define KSEARCH_CLI_COMMAND(ORDER, NAME) \
  static const bool ksearch_cli_##NAME = ::ksearch::cli::register_command(ORDER, NAME)
