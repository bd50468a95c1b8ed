#pragma once
// Minimal blocking HTTPS POST over libcurl (internal to ksearch_llm).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksearch::llm::detail {

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  double connect_timeout_s = 10;
  double timeout_s = 60;
  // A model's answer is at most a few hundred KB; a larger body is a broken server, not an answer.
  size_t max_response_bytes = 16u << 20;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names, last value wins
  std::string body;
};

// Thrown for failures below HTTP (no status line received or body cut off).
struct TransportFailure {
  bool timeout = false;
  bool too_large = false;  // the body passed max_response_bytes and was not read further
  std::string message;  // curl's description, no header values
};

// Returns the response for any HTTP status; throws TransportFailure otherwise.
HttpResponse http_post(const HttpRequest& request);

// Retry-After value in seconds ("120" or an HTTP date); nullopt if unparsable.
std::optional<double> parse_retry_after(const std::string& value);

}  // namespace ksearch::llm::detail
