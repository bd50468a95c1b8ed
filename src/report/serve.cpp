#include "report/serve.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "report/report.hpp"
#include "search/search.hpp"
#include "store/run_store.hpp"
#include "core/json_text.hpp"

namespace fs = std::filesystem;

namespace ksearch::report {

struct ReportServer::Http {
  httplib::Server server;
};

namespace {

// A run that cannot be read right now (e.g. it is being created) is a 503 the page retries, not an exit.
template <class Render>
void answer(httplib::Response& response, const char* content_type, Render render) {
  try {
    response.set_content(render(), content_type);
    response.set_header("Cache-Control", "no-store");
  } catch (const Error& e) {
    response.status = 503;
    response.set_content(std::string("ksearch: cannot read the run: ") + e.what() + "\n", "text/plain; charset=utf-8");
  }
}

}  // namespace

ReportServer::ReportServer(fs::path dir) : dir_(std::move(dir)), http_(std::make_unique<Http>()) {
  load_run(dir_);  // fails now, with the report's message, when dir_ is not a run
  http_->server.Get("/", [this](const httplib::Request&, httplib::Response& response) {
    answer(response, "text/html; charset=utf-8", [&] { return render_html(load_run(dir_), /*live_reload=*/true); });
  });
  http_->server.Get("/stamp", [this](const httplib::Request&, httplib::Response& response) {
    answer(response, "application/json", [&] {
      const auto store = store::RunStore::open(dir_);
      const double updated_at = store.updated_at();
      return json_text(nlohmann::json{{"stamp", update_stamp(updated_at)}, {"phase", search::summarize(store).phase}});
    });
  });
}

ReportServer::~ReportServer() = default;

int ReportServer::bind(const std::string& host, int port) {
  const int bound = port == 0 ? http_->server.bind_to_any_port(host) : (http_->server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw Error(fmt::format("cannot listen on {}:{} (is the port taken? --port 0 picks a free one)", host, port));
  return bound;
}

void ReportServer::serve() {
  http_->server.listen_after_bind();
  serving_ended_ = true;
}

void ReportServer::stop() {
  // httplib's stop() only acts once listening has begun: repeat it until serve() has returned.
  while (!serving_ended_) {
    http_->server.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace ksearch::report
