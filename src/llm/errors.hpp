#pragma once
// Error types of the LLM client layer. Messages never contain API keys.
#include <stdexcept>
#include <string>
#include <string_view>

namespace ksearch::llm {

enum class ErrorCategory {
  Config,       // bad spec / config file / missing key variable
  Auth,         // 401, 403
  NotFound,     // 404, unknown model
  BadRequest,   // 400, 413, 422 and other non-retryable 4xx
  RateLimited,  // 429 (after retries were exhausted)
  Server,       // 5xx (after retries were exhausted)
  Timeout,      // connect or total timeout (after retries)
  Transport,    // connection refused, reset, partial body (after retries)
  Malformed,    // non-JSON or missing fields (after bounded retries)
  Budget,       // the budget tracker refused the call
};

std::string_view to_string(ErrorCategory c);

// Whether another attempt may succeed for an error of this category.
bool is_retryable(ErrorCategory c);

class LlmError : public std::runtime_error {
 public:
  LlmError(ErrorCategory category, std::string message, int http_status = 0)
      : std::runtime_error(std::move(message)), category_(category), http_status_(http_status) {}
  ErrorCategory category() const { return category_; }
  int http_status() const { return http_status_; }

 private:
  ErrorCategory category_;
  int http_status_;
};

class BudgetExceeded : public LlmError {
 public:
  explicit BudgetExceeded(std::string message) : LlmError(ErrorCategory::Budget, std::move(message)) {}
};

}  // namespace ksearch::llm
