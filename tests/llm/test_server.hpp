#pragma once
// A scripted HTTP server on 127.0.0.1 (ephemeral port) for LLM client tests.
// Answers come from a FIFO of canned responses, else from a handler callback.
// It serves a bounded number of requests and shuts itself down after a
// lifetime limit, so a broken test cannot leave it running.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "llm/usage.hpp"

namespace ksearch::llm::testing {

struct RecordedRequest {
  std::string method;
  std::string path;    // without the query string
  std::string target;  // as sent: path and query
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::chrono::steady_clock::time_point received;

  std::string header(const std::string& lower_case_name) const;
  bool has_header(const std::string& lower_case_name) const { return headers.count(lower_case_name) > 0; }
  nlohmann::json json() const;  // throws if the body is not JSON
};

struct CannedResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  double delay_s = 0;  // wait before answering (cut short when the server stops)

  static CannedResponse json(int status, const nlohmann::json& body);
  CannedResponse& with_header(std::string name, std::string value);
  CannedResponse& with_delay(double seconds);
};

class ScriptedServer {
 public:
  using Handler = std::function<CannedResponse(const RecordedRequest&)>;
  struct Options {
    size_t max_requests = 500;     // later requests get 503
    double max_lifetime_s = 120;   // then the server stops by itself
    int threads = 16;              // concurrent connections served
  };

  ScriptedServer();
  explicit ScriptedServer(Options options);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  void enqueue(CannedResponse response);
  void enqueue_all(std::vector<CannedResponse> responses);
  // Used when the queue is empty; without one such requests get 500.
  void set_handler(Handler handler);

  std::string base_url() const;  // "http://127.0.0.1:<port>"
  int port() const { return port_; }
  std::vector<RecordedRequest> requests() const;
  size_t request_count() const;
  size_t pending() const;  // canned responses not yet served
  int max_in_flight() const;  // most requests being handled at the same time
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// Successful bodies and error bodies in each provider's real format. Usage is
// given in the normalised form (input includes cached and cache-write tokens,
// output includes reasoning) and converted to each provider's fields.
namespace canned {
CannedResponse openai_chat(const std::string& text, const Usage& usage = {}, const std::string& finish_reason = "stop",
                           const std::string& model = "gpt-test");
CannedResponse openai_responses(const std::string& text, const Usage& usage = {}, bool truncated = false,
                                const std::string& model = "gpt-test");
CannedResponse anthropic(const std::string& text, const Usage& usage = {}, const std::string& stop_reason = "end_turn",
                         const std::string& model = "claude-test");
CannedResponse gemini(const std::string& text, const Usage& usage = {}, const std::string& finish_reason = "STOP",
                      const std::string& model = "gemini-test");

// {"error": {"message", "type", "code"}} (OpenAI shape, also used by vLLM).
CannedResponse openai_error(int status, const std::string& message, const std::string& type = "invalid_request_error",
                            const std::string& code = "");
// {"type": "error", "error": {"type", "message"}}
CannedResponse anthropic_error(int status, const std::string& type, const std::string& message);
// {"error": {"code", "message", "status"}}
CannedResponse gemini_error(int status, const std::string& message, const std::string& status_name);
}  // namespace canned

}  // namespace ksearch::llm::testing
