#pragma once
// Clients for language-model provider APIs (OpenAI Chat Completions and
// compatible servers, OpenAI Responses, Anthropic Messages, Gemini).
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/budget.hpp"
#include "llm/errors.hpp"
#include "llm/pricing.hpp"
#include "llm/usage.hpp"

namespace ksearch::llm {

struct Message {
  std::string role;  // "user" or "assistant"
  std::string content;
};

struct CompletionRequest {
  std::string system;
  std::vector<Message> messages;
  // Per-request overrides of the provider config.
  std::optional<double> temperature;
  std::optional<int> max_output_tokens;
  std::optional<std::string> reasoning_effort;
  std::string purpose;  // free-form tag for the call log ("propose", "generate", ...)
};

struct CompletionResponse {
  std::string text;
  Usage usage;
  double cost_usd = 0;
  bool cost_known = true;     // false: no price for this model, cost_usd is 0
  std::string finish_reason;  // provider's own value ("stop", "length", "end_turn", "MAX_TOKENS", ...)
  bool truncated = false;     // output hit the token limit; text is incomplete
  std::string refusal;        // the model declined: its stated reason, or the provider's finish reason
  std::string model;          // model name reported by the provider (or configured)
  int attempts = 1;
  double latency_s = 0;       // wall time of complete(), retries and waits included
};

enum class Provider { OpenAIChat, OpenAIResponses, Anthropic, Gemini };

struct ProviderConfig {
  Provider provider = Provider::OpenAIChat;
  std::string provider_name = "openai";  // as written in the spec; used for prices
  std::string model;
  std::string base_url;     // empty: provider default
  std::string api_key_env;  // NAME of the variable holding the key; empty: send no key
  bool api_key_optional = false;  // openai-compatible: local servers need no key
  std::optional<double> temperature;
  std::optional<int> max_output_tokens;  // Anthropic requires one: 8192 when unset
  std::optional<std::string> reasoning_effort;
  double connect_timeout_s = 10;
  double timeout_s = 600;  // total per attempt; reasoning models can be slow
  int max_retries = 4;            // extra attempts after the first
  int max_malformed_retries = 2;  // of those, at most this many for malformed bodies
  double retry_base_delay_s = 1.0;
  double retry_max_delay_s = 60.0;
  double retry_after_cap_s = 120.0;  // longest Retry-After we honour
  // Chat Completions token-limit field: "max_completion_tokens" (openai) or
  // "max_tokens" (openai-compatible servers).
  std::string max_tokens_field = "max_completion_tokens";
  std::string anthropic_version = "2023-06-01";
};

// "provider:model", e.g. "openai:gpt-5", "anthropic:claude-sonnet-4-5",
// "gemini:gemini-2.5-pro", "openai-compatible:qwen2.5-coder:32b". The model
// may itself contain ':'. Fills provider defaults (key variable, token field).
ProviderConfig parse_provider_spec(std::string_view spec);

// Reads a TOML table (section may be dotted, e.g. "llm.planner") with keys:
// model (the spec, required), base_url, api_key_env, temperature,
// max_output_tokens, reasoning_effort, connect_timeout_s, timeout_s,
// max_retries, max_malformed_retries, retry_base_delay_s, retry_max_delay_s,
// retry_after_cap_s, max_tokens_field, anthropic_version.
ProviderConfig load_provider_config(const std::string& toml_path, std::string_view section);
ProviderConfig provider_config_from_toml_string(std::string_view toml_text, std::string_view section);

std::string default_base_url(Provider p);

// One record per complete() call, success or failure; for the run store.
struct CallRecord {
  std::string client;  // describe() of the client
  std::string provider;
  std::string model;
  std::string purpose;
  CompletionRequest request;
  std::string response_text;
  std::string finish_reason;
  bool truncated = false;
  Usage usage;
  double cost_usd = 0;
  bool cost_known = true;
  double latency_s = 0;
  int attempts = 0;
  std::vector<std::string> attempt_errors;  // one line per failed attempt
  bool ok = false;
  std::optional<ErrorCategory> error_category;
  std::string error;
  std::chrono::system_clock::time_point started_at;
};
using CallHook = std::function<void(const CallRecord&)>;

class Client {
 public:
  virtual ~Client() = default;
  // Thread-safe: calls may run concurrently. A rate-limit answer (429) to one of them holds back
  // every call of the client until its Retry-After (else the backoff) has passed.
  // Throws LlmError (BudgetExceeded for a refused call).
  virtual CompletionResponse complete(const CompletionRequest& request) = 0;
  virtual std::string describe() const = 0;  // "anthropic:claude-sonnet-4-5 @ https://..."
};

// prices may be null (costs are then unknown and 0); budget and hook optional.
std::unique_ptr<Client> make_client(const ProviderConfig& config, std::shared_ptr<const PriceTable> prices,
                                    std::shared_ptr<BudgetTracker> budget = nullptr, CallHook hook = {});

}  // namespace ksearch::llm
