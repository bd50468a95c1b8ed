#include "llm/errors.hpp"

namespace ksearch::llm {

std::string_view to_string(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::Config: return "config";
    case ErrorCategory::Auth: return "auth";
    case ErrorCategory::NotFound: return "not_found";
    case ErrorCategory::BadRequest: return "bad_request";
    case ErrorCategory::RateLimited: return "rate_limited";
    case ErrorCategory::Server: return "server";
    case ErrorCategory::Timeout: return "timeout";
    case ErrorCategory::Transport: return "transport";
    case ErrorCategory::Malformed: return "malformed";
    case ErrorCategory::Budget: return "budget";
  }
  return "unknown";
}

bool is_retryable(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::RateLimited:
    case ErrorCategory::Server:
    case ErrorCategory::Timeout:
    case ErrorCategory::Transport:
    case ErrorCategory::Malformed:
      return true;
    default:
      return false;
  }
}

}  // namespace ksearch::llm
