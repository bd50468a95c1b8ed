#include "test_server.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace ksearch::llm::testing {

using nlohmann::json;

std::string RecordedRequest::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

json RecordedRequest::json() const { return json::parse(body); }

CannedResponse CannedResponse::json(int status, const nlohmann::json& body) {
  CannedResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

CannedResponse& CannedResponse::with_header(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

CannedResponse& CannedResponse::with_delay(double seconds) {
  delay_s = seconds;
  return *this;
}

struct ScriptedServer::Impl {
  Options options;
  httplib::Server server;
  std::thread listener;
  std::thread watchdog;

  mutable std::mutex mu;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::deque<CannedResponse> queue;
  Handler handler;
  std::vector<RecordedRequest> seen;
  int in_flight = 0;
  int max_in_flight = 0;

  void serve(const httplib::Request& req, httplib::Response& res) {
    RecordedRequest rec;
    rec.method = req.method;
    rec.path = req.path;
    rec.target = req.target;
    rec.body = req.body;
    rec.received = std::chrono::steady_clock::now();
    for (const auto& [name, value] : req.headers) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      rec.headers[lower] = value;
    }
    CannedResponse answer;
    {
      std::unique_lock lk(mu);
      seen.push_back(rec);
      max_in_flight = std::max(max_in_flight, ++in_flight);
      if (seen.size() > options.max_requests) {
        answer = CannedResponse::json(503, {{"error", {{"message", "test server request limit reached"}}}});
      } else if (!queue.empty()) {
        answer = std::move(queue.front());
        queue.pop_front();
      } else if (handler) {
        Handler h = handler;
        lk.unlock();
        answer = h(rec);
        lk.lock();
      } else {
        answer = CannedResponse::json(500, {{"error", {{"message", "test server has no scripted response"}}}});
      }
      if (answer.delay_s > 0)
        stop_cv.wait_for(lk, std::chrono::duration<double>(answer.delay_s), [&] { return stopping; });
      --in_flight;
    }
    res.status = answer.status;
    for (const auto& [name, value] : answer.headers) res.set_header(name, value);
    res.set_content(answer.body, answer.content_type.c_str());
  }
};

ScriptedServer::ScriptedServer() : ScriptedServer(Options{}) {}

ScriptedServer::ScriptedServer(Options options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  int threads = options.threads;
  impl_->server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  auto handle = [this](const httplib::Request& req, httplib::Response& res) { impl_->serve(req, res); };
  impl_->server.Post(".*", handle);
  impl_->server.Get(".*", handle);
  port_ = impl_->server.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("test server: cannot bind 127.0.0.1");
  impl_->listener = std::thread([this] { impl_->server.listen_after_bind(); });
  while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->watchdog = std::thread([this] {
    std::unique_lock lk(impl_->mu);
    if (!impl_->stop_cv.wait_for(lk, std::chrono::duration<double>(impl_->options.max_lifetime_s),
                                 [this] { return impl_->stopping; })) {
      impl_->stopping = true;
      impl_->stop_cv.notify_all();
      lk.unlock();
      impl_->server.stop();
    }
  });
}

ScriptedServer::~ScriptedServer() { stop(); }

void ScriptedServer::stop() {
  {
    std::lock_guard lk(impl_->mu);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  impl_->server.stop();
  if (impl_->listener.joinable()) impl_->listener.join();
  if (impl_->watchdog.joinable()) impl_->watchdog.join();
}

void ScriptedServer::enqueue(CannedResponse response) {
  std::lock_guard lk(impl_->mu);
  impl_->queue.push_back(std::move(response));
}

void ScriptedServer::enqueue_all(std::vector<CannedResponse> responses) {
  std::lock_guard lk(impl_->mu);
  for (auto& r : responses) impl_->queue.push_back(std::move(r));
}

void ScriptedServer::set_handler(Handler handler) {
  std::lock_guard lk(impl_->mu);
  impl_->handler = std::move(handler);
}

std::string ScriptedServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<RecordedRequest> ScriptedServer::requests() const {
  std::lock_guard lk(impl_->mu);
  return impl_->seen;
}

size_t ScriptedServer::request_count() const {
  std::lock_guard lk(impl_->mu);
  return impl_->seen.size();
}

size_t ScriptedServer::pending() const {
  std::lock_guard lk(impl_->mu);
  return impl_->queue.size();
}

int ScriptedServer::max_in_flight() const {
  std::lock_guard lk(impl_->mu);
  return impl_->max_in_flight;
}

namespace canned {

CannedResponse openai_chat(const std::string& text, const Usage& u, const std::string& finish_reason,
                           const std::string& model) {
  return CannedResponse::json(
      200, {{"id", "chatcmpl-test"},
            {"object", "chat.completion"},
            {"created", 1764000000},
            {"model", model},
            {"choices",
             json::array({{{"index", 0},
                           {"message", {{"role", "assistant"}, {"content", text}, {"refusal", nullptr}}},
                           {"logprobs", nullptr},
                           {"finish_reason", finish_reason}}})},
            {"usage",
             {{"prompt_tokens", u.input_tokens},
              {"completion_tokens", u.output_tokens},
              {"total_tokens", u.input_tokens + u.output_tokens},
              {"prompt_tokens_details", {{"cached_tokens", u.cached_input_tokens}, {"audio_tokens", 0}}},
              {"completion_tokens_details",
               {{"reasoning_tokens", u.reasoning_tokens},
                {"audio_tokens", 0},
                {"accepted_prediction_tokens", 0},
                {"rejected_prediction_tokens", 0}}}}}});
}

CannedResponse openai_responses(const std::string& text, const Usage& u, bool truncated, const std::string& model) {
  json output = json::array();
  output.push_back({{"type", "reasoning"}, {"id", "rs_test"}, {"summary", json::array()}});
  output.push_back({{"type", "message"},
                    {"id", "msg_test"},
                    {"status", truncated ? "incomplete" : "completed"},
                    {"role", "assistant"},
                    {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}});
  return CannedResponse::json(
      200, {{"id", "resp_test"},
            {"object", "response"},
            {"created_at", 1764000000},
            {"status", truncated ? "incomplete" : "completed"},
            {"incomplete_details", truncated ? json{{"reason", "max_output_tokens"}} : json(nullptr)},
            {"error", nullptr},
            {"model", model},
            {"output", output},
            {"usage",
             {{"input_tokens", u.input_tokens},
              {"input_tokens_details", {{"cached_tokens", u.cached_input_tokens}}},
              {"output_tokens", u.output_tokens},
              {"output_tokens_details", {{"reasoning_tokens", u.reasoning_tokens}}},
              {"total_tokens", u.input_tokens + u.output_tokens}}}});
}

CannedResponse anthropic(const std::string& text, const Usage& u, const std::string& stop_reason,
                         const std::string& model) {
  return CannedResponse::json(
      200, {{"id", "msg_test"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", model},
            {"content", json::array({{{"type", "thinking"}, {"thinking", "hidden reasoning"}, {"signature", "sig"}},
                                     {{"type", "text"}, {"text", text}}})},
            {"stop_reason", stop_reason},
            {"stop_sequence", nullptr},
            {"usage",
             {{"input_tokens", u.input_tokens - u.cached_input_tokens - u.cache_write_tokens},
              {"cache_creation_input_tokens", u.cache_write_tokens},
              {"cache_read_input_tokens", u.cached_input_tokens},
              {"output_tokens", u.output_tokens}}}});
}

CannedResponse gemini(const std::string& text, const Usage& u, const std::string& finish_reason,
                      const std::string& model) {
  json usage = {{"promptTokenCount", u.input_tokens},
                {"candidatesTokenCount", u.output_tokens - u.reasoning_tokens},
                {"totalTokenCount", u.input_tokens + u.output_tokens}};
  if (u.cached_input_tokens) usage["cachedContentTokenCount"] = u.cached_input_tokens;
  if (u.reasoning_tokens) usage["thoughtsTokenCount"] = u.reasoning_tokens;
  return CannedResponse::json(
      200, {{"candidates",
             json::array({{{"content",
                            {{"role", "model"},
                             {"parts", json::array({{{"text", "thinking about it"}, {"thought", true}},
                                                    {{"text", text}}})}}},
                           {"finishReason", finish_reason},
                           {"index", 0}}})},
            {"usageMetadata", usage},
            {"modelVersion", model},
            {"responseId", "resp-test"}});
}

CannedResponse openai_error(int status, const std::string& message, const std::string& type,
                            const std::string& code) {
  return CannedResponse::json(
      status, {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code.empty() ? json(nullptr) : json(code)}}}});
}

CannedResponse anthropic_error(int status, const std::string& type, const std::string& message) {
  return CannedResponse::json(status, {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}});
}

CannedResponse gemini_error(int status, const std::string& message, const std::string& status_name) {
  return CannedResponse::json(status, {{"error", {{"code", status}, {"message", message}, {"status", status_name}}}});
}

}  // namespace canned

}  // namespace ksearch::llm::testing
