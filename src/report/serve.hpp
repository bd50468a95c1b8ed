#pragma once
// `ksearch report DIR --serve`: the report page over HTTP (cpp-httplib), rendered from the run
// store on every request, so that it follows a run as it goes on. GET / is the page, which polls
// GET /stamp ({"stamp": ..., "phase": ...}) and reloads itself when the stamp changes.
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

namespace ksearch::report {

class ReportServer {
 public:
  // Throws Error when `dir` is not a run directory.
  explicit ReportServer(std::filesystem::path dir);
  ~ReportServer();
  ReportServer(const ReportServer&) = delete;
  ReportServer& operator=(const ReportServer&) = delete;

  // Listens on host:port (port 0: a free port) and returns the port; throws Error when it cannot.
  int bind(const std::string& host, int port);
  // Answers requests until stop() is called (from another thread).
  void serve();
  // Ends serve() and waits for it to return: call it once serve() runs or is about to (harmless after).
  void stop();

 private:
  struct Http;
  std::filesystem::path dir_;
  std::unique_ptr<Http> http_;
  std::atomic<bool> serving_ended_{false};
};

}  // namespace ksearch::report
