#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <variant>

#include "llm/http.hpp"
#include "llm/llm.hpp"
#include "llm/providers.hpp"

namespace ksearch::llm {

namespace {

using detail::HttpResponse;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Replaces every occurrence of the key (providers echo keys in 401 messages).
std::string redact(std::string text, const std::string& key) {
  if (key.empty()) return text;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos))
    text.replace(pos, key.size(), "[redacted]");
  return text;
}

double full_jitter(double base, double cap, int retry_index) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  double ceiling = std::min(cap, base * std::ldexp(1.0, std::min(retry_index, 30)));
  return std::uniform_real_distribution<double>(0.0, std::max(0.0, ceiling))(rng);
}

// One failed attempt, already classified.
struct AttemptFailure {
  ErrorCategory category;
  std::string message;
  int http_status = 0;
  std::optional<double> retry_after_s;
};

AttemptFailure failure(ErrorCategory c, std::string message, int http_status = 0) {
  return {c, std::move(message), http_status, std::nullopt};
}

AttemptFailure classify_status(const HttpResponse& resp) {
  AttemptFailure f;
  f.http_status = static_cast<int>(resp.status);
  std::string msg = detail::error_message_from_body(resp.body);
  std::string code = detail::error_code_from_body(resp.body);
  long s = resp.status;
  if (detail::is_account_error(resp.body) || s == 402) f.category = ErrorCategory::Auth;  // no retry helps
  else if (s == 429) f.category = ErrorCategory::RateLimited;
  else if (s == 408) f.category = ErrorCategory::Timeout;
  else if (s >= 500) f.category = ErrorCategory::Server;
  else if (s == 401 || s == 403) f.category = ErrorCategory::Auth;
  else if (s == 404 || code == "model_not_found") f.category = ErrorCategory::NotFound;
  else f.category = ErrorCategory::BadRequest;
  f.message = fmt::format("HTTP {}: {}", s, msg);
  if (auto it = resp.headers.find("retry-after-ms"); it != resp.headers.end()) {
    if (auto ms = detail::parse_retry_after(it->second)) f.retry_after_s = *ms / 1000.0;
  } else if (auto it2 = resp.headers.find("retry-after"); it2 != resp.headers.end()) {
    f.retry_after_s = detail::parse_retry_after(it2->second);
  }
  if (!f.retry_after_s) f.retry_after_s = detail::retry_delay_from_body(resp.body);
  return f;
}

class HttpClient final : public Client {
 public:
  HttpClient(ProviderConfig cfg, std::shared_ptr<const PriceTable> prices, std::shared_ptr<BudgetTracker> budget,
             CallHook hook)
      : cfg_(std::move(cfg)), prices_(std::move(prices)), budget_(std::move(budget)), hook_(std::move(hook)) {
    if (cfg_.model.empty()) throw LlmError(ErrorCategory::Config, "empty model name");
    // Anything else would be retried as a transport failure (or reach another protocol) on every call.
    if (!cfg_.base_url.empty() && !cfg_.base_url.starts_with("http://") && !cfg_.base_url.starts_with("https://"))
      throw LlmError(ErrorCategory::Config, fmt::format("base URL '{}' must start with http:// or https://", cfg_.base_url));
    describe_ = fmt::format("{}:{} @ {}", cfg_.provider_name, cfg_.model,
                            cfg_.base_url.empty() ? default_base_url(cfg_.provider) : cfg_.base_url);
  }

  std::string describe() const override { return describe_; }

  CompletionResponse complete(const CompletionRequest& request) override {
    CallRecord rec;
    rec.client = describe_;
    rec.provider = cfg_.provider_name;
    rec.model = cfg_.model;
    rec.purpose = request.purpose;
    rec.request = request;
    rec.started_at = std::chrono::system_clock::now();
    const auto t0 = Clock::now();
    std::string key;  // read per call, dropped on return: never kept in the client
    try {
      key = read_key();
      if (budget_) budget_->reserve_call();
      CompletionResponse resp = run_attempts(request, key, rec);
      resp.latency_s = seconds_since(t0);
      rec.ok = true;
      rec.response_text = resp.text;
      rec.finish_reason = resp.finish_reason;
      rec.truncated = resp.truncated;
      rec.usage = resp.usage;
      rec.cost_usd = resp.cost_usd;
      rec.cost_known = resp.cost_known;
      rec.latency_s = resp.latency_s;
      rec.attempts = resp.attempts;
      emit(rec);
      return resp;
    } catch (const LlmError& e) {
      rec.latency_s = seconds_since(t0);
      rec.error_category = e.category();
      rec.error = e.what();
      emit(rec);
      throw;
    }
  }

 private:
  std::string read_key() const {
    if (cfg_.api_key_env.empty()) return {};
    const char* v = std::getenv(cfg_.api_key_env.c_str());
    if (v && *v) return v;
    if (cfg_.api_key_optional) return {};
    throw LlmError(ErrorCategory::Auth, fmt::format("{}: environment variable {} (API key) is not set", describe_,
                                                    cfg_.api_key_env));
  }

  CompletionResponse run_attempts(const CompletionRequest& request, const std::string& key, CallRecord& rec) {
    detail::WireRequest wire = detail::build_request(cfg_, request, key.empty() ? nullptr : &key);
    // Prompts can quote compiler logs with invalid UTF-8; replace, don't throw.
    std::string body = wire.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    detail::HttpRequest http{wire.url, std::move(wire.headers), std::move(body), cfg_.connect_timeout_s,
                             cfg_.timeout_s};
    int malformed_retries = 0;
    for (int attempt = 1;; ++attempt) {
      rec.attempts = attempt;
      wait_out_rate_limit();
      auto result = attempt_once(http, key, attempt);
      if (auto* ok = std::get_if<CompletionResponse>(&result)) return std::move(*ok);
      AttemptFailure f = std::get<AttemptFailure>(std::move(result));
      f.message = redact(f.message, key);
      rec.attempt_errors.push_back(fmt::format("attempt {}: {}: {}", attempt, to_string(f.category), f.message));
      bool retry = is_retryable(f.category) && attempt <= cfg_.max_retries;
      if (f.category == ErrorCategory::Malformed) retry = retry && malformed_retries++ < cfg_.max_malformed_retries;
      if (!retry) {
        std::string msg = fmt::format("{}: {}", describe_, f.message);
        if (attempt > 1) msg += fmt::format(" (after {} attempts)", attempt);
        throw LlmError(f.category, msg, f.http_status);
      }
      double delay = f.retry_after_s ? std::min(*f.retry_after_s, cfg_.retry_after_cap_s)
                                     : full_jitter(cfg_.retry_base_delay_s, cfg_.retry_max_delay_s, attempt - 1);
      spdlog::warn("llm {}: attempt {} failed ({}: {}); retrying in {:.2f}s", describe_, attempt,
                   to_string(f.category), f.message, delay);
      if (f.category == ErrorCategory::RateLimited)
        hold_back_calls(delay);  // this call included: it waits at the top of the loop
      else
        std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    }
  }

  // A rate-limit answer to one call holds back every call of this client (they share the provider's
  // limits) until the wait it asked for has passed, so that concurrent calls do not stampede it.
  void hold_back_calls(double seconds) {
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::lock_guard lk(rate_limit_mu_);
    rate_limited_until_ = std::max(rate_limited_until_, until);
  }

  void wait_out_rate_limit() {
    for (;;) {
      Clock::time_point until;
      {
        std::lock_guard lk(rate_limit_mu_);
        until = rate_limited_until_;
      }
      if (until <= Clock::now()) return;
      std::this_thread::sleep_until(until);  // another 429 meanwhile may have moved it on
    }
  }

  std::variant<CompletionResponse, AttemptFailure> attempt_once(const detail::HttpRequest& http,
                                                                const std::string& key, int attempt) {
    HttpResponse resp;
    try {
      resp = detail::http_post(http);
    } catch (const detail::TransportFailure& t) {
      // A huge body is as useless as a malformed one: retried as often, no more.
      return failure(t.too_large ? ErrorCategory::Malformed : t.timeout ? ErrorCategory::Timeout : ErrorCategory::Transport,
                     t.message);
    }
    if (resp.status < 200 || resp.status >= 300) return classify_status(resp);
    const int status = static_cast<int>(resp.status);
    auto body = nlohmann::json::parse(resp.body, nullptr, false);
    // Local servers can split a multi-byte character between tokens; keep the answer, not the bytes.
    if (body.is_discarded()) body = nlohmann::json::parse(detail::replace_invalid_utf8(resp.body), nullptr, false);
    if (body.is_discarded())
      return failure(ErrorCategory::Malformed, fmt::format("response is not JSON ({} bytes)", resp.body.size()),
                     status);
    if (auto error_status = error_in_success_body(body)) {
      HttpResponse as_error = resp;
      as_error.status = *error_status;
      AttemptFailure f = classify_status(as_error);
      f.message = fmt::format("HTTP {} with an error body: {}", status, detail::error_message_from_body(resp.body));
      return f;
    }
    detail::ParsedResponse parsed;
    try {
      parsed = detail::parse_response(cfg_, body);
    } catch (const detail::MalformedResponse& m) {
      return failure(ErrorCategory::Malformed, m.message, status);
    } catch (const LlmError& e) {
      return failure(e.category(), redact(e.what(), key), status);
    }
    CompletionResponse out;
    out.text = std::move(parsed.text);
    out.usage = parsed.usage;
    out.finish_reason = std::move(parsed.finish_reason);
    out.truncated = parsed.truncated;
    out.refusal = std::move(parsed.refusal);
    out.model = parsed.model.empty() ? cfg_.model : parsed.model;
    out.attempts = attempt;
    if (prices_) {
      auto c = prices_->cost(cfg_.provider_name, cfg_.model, out.usage);
      out.cost_usd = c.usd;
      out.cost_known = c.known;
    } else {
      out.cost_known = false;
    }
    if (!out.cost_known) warn_unknown_price();
    if (budget_) budget_->record(out.usage, out.cost_usd);
    return out;
  }

  // Proxies such as OpenRouter can answer an error with HTTP 200 and {"error": {"message", "code"}}: the
  // status it stands for (its code when that is one, else 502), so that it is classified and its message
  // shown, not reported as a body without 'choices'. Responses bodies carry "error" by design.
  std::optional<long> error_in_success_body(const nlohmann::json& body) const {
    if (cfg_.provider == Provider::OpenAIResponses || !body.is_object()) return std::nullopt;
    auto error = body.find("error");
    if (error == body.end() || error->is_null()) return std::nullopt;
    auto code = error->is_object() ? error->find("code") : error->end();
    if (code != error->end() && code->is_number_integer() && *code >= 400 && *code < 600) return code->get<long>();
    return 502;
  }

  void warn_unknown_price() {
    std::lock_guard lk(warned_mu_);
    if (warned_) return;
    warned_ = true;
    spdlog::warn("llm {}: no price for this model; its cost counts as $0", describe_);
  }

  const ProviderConfig cfg_;
  const std::shared_ptr<const PriceTable> prices_;
  const std::shared_ptr<BudgetTracker> budget_;
  const CallHook hook_;
  std::string describe_;
  std::mutex warned_mu_;
  bool warned_ = false;
  std::mutex rate_limit_mu_;
  Clock::time_point rate_limited_until_{};

  void emit(const CallRecord& rec) const {
    if (!hook_) return;
    try {
      hook_(rec);
    } catch (const std::exception& e) {
      spdlog::error("llm call hook threw: {}", e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Client> make_client(const ProviderConfig& config, std::shared_ptr<const PriceTable> prices,
                                    std::shared_ptr<BudgetTracker> budget, CallHook hook) {
  return std::make_unique<HttpClient>(config, std::move(prices), std::move(budget), std::move(hook));
}

}  // namespace ksearch::llm
