#include <fmt/format.h>
#include <pthread.h>

#include <csignal>
#include <thread>

#include "cli/command.hpp"
#include "report/report.hpp"
#include "report/serve.hpp"

namespace ksearch::cli {
namespace {

struct ReportArgs {
  std::string dir, host = "127.0.0.1";
  int port = 8600;
  bool serve = false;
};

// Serves until Ctrl-C (SIGINT) or SIGTERM: the signals are taken by a thread that waits for them,
// so that the server stops cleanly instead of dying mid-answer.
void serve(const ReportArgs& args) {
  report::ReportServer server(args.dir);
  const int port = server.bind(args.host, args.port);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before any thread starts: they all inherit it
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    server.stop();
  });
  fmt::print("serving the report of {} at http://{}:{}/ (live while the run goes on; Ctrl-C stops)\n", args.dir, args.host, port);
  std::fflush(stdout);
  server.serve();
  pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter when the server ended by itself
  waiter.join();
  fmt::print("stopped\n");
}

void setup(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write DIR/report.html: a self-contained page about a run (progress, best kernel, world model); or serve it live");
  cmd->add_option("dir", args->dir, "Run folder")->required();
  auto* serve_flag =
      cmd->add_flag("--serve", args->serve, "Serve the page over HTTP instead, regenerated on each request and reloading itself as the run goes on");
  cmd->add_option("--port", args->port, "With --serve: the port (0: any free one)")
      ->capture_default_str()->check(CLI::Range(0, 65535))->needs(serve_flag);
  cmd->add_option("--host", args->host, "With --serve: the address to listen on (0.0.0.0: every interface)")
      ->capture_default_str()->needs(serve_flag);
  cmd->callback([args, &exit_code] {
    if (args->serve)
      serve(*args);
    else
      fmt::print("{}\n", report::write_report(args->dir).string());  // Error (not a run directory) exits 2 in main
    exit_code = kExitOk;
  });
}

}  // namespace
KSEARCH_CLI_COMMAND(33, setup);
}  // namespace ksearch::cli
