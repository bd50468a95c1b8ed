#pragma once
// Wire formats of the providers (internal to ksearch_llm).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/llm.hpp"

namespace ksearch::llm::detail {

struct WireRequest {
  std::string url;
  std::vector<std::string> headers;  // includes the auth header: never log
  nlohmann::json body;
};

struct ParsedResponse {
  std::string text;
  Usage usage;
  std::string finish_reason;
  bool truncated = false;
  std::string refusal;
  std::string model;
};

// Thrown by parse_response when the body lacks required fields.
struct MalformedResponse {
  std::string message;
};

// api_key may be null (no auth header).
WireRequest build_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* api_key);
// body is a parsed 2xx body. Throws MalformedResponse, or LlmError for a
// response that reports a failure in-band (Responses API status "failed").
ParsedResponse parse_response(const ProviderConfig& cfg, const nlohmann::json& body);
// The provider's error message from an error body (all four providers use
// {"error": {"message": ...}}), else a short excerpt of the body.
std::string error_message_from_body(const std::string& body);
// The provider's error code/type/status string, if any ("model_not_found").
std::string error_code_from_body(const std::string& body);
// Whether an error body says the key or the account cannot be used (invalid key, no quota or credit
// left, no permission), whatever its HTTP status: Gemini answers an invalid key with 400, OpenAI an
// exhausted quota with 429. Retrying such a call never helps.
bool is_account_error(const std::string& body);
// The wait an error body asks for: Gemini states it as `error.details[].retryDelay` ("35s"), not as a
// Retry-After header.
std::optional<double> retry_delay_from_body(const std::string& body);
// The text with every byte sequence that is not UTF-8 replaced by U+FFFD.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace ksearch::llm::detail
