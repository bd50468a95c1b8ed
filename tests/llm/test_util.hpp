#pragma once
// Shared helpers of the llm tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "llm/llm.hpp"
#include "test_server.hpp"

namespace ksearch::llm::testing {

inline constexpr const char* kKeyEnv = "KSEARCH_TEST_LLM_KEY";
inline constexpr const char* kKey = "sk-test-SECRET-4242-abcdef";

// Config for `spec` aimed at the server, with a test key variable and short
// retry delays so that retry scenarios stay fast.
inline ProviderConfig config_for(const ScriptedServer& server, const std::string& spec) {
  ProviderConfig c = parse_provider_spec(spec);
  std::string prefix = c.provider == Provider::Gemini ? "/v1beta" : "/v1";
  c.base_url = server.base_url() + prefix;
  c.api_key_env = kKeyEnv;
  c.retry_base_delay_s = 0.01;
  c.retry_max_delay_s = 0.05;
  c.timeout_s = 10;
  c.connect_timeout_s = 2;
  setenv(kKeyEnv, kKey, 1);
  return c;
}

inline CompletionRequest simple_request(const std::string& prompt = "Write a kernel.") {
  CompletionRequest r;
  r.system = "You are a kernel engineer.";
  r.messages = {{"user", prompt}};
  r.purpose = "test";
  return r;
}

// The error the call fails with; a test failure if it succeeds.
inline LlmError failed_call(Client& client, const CompletionRequest& request = simple_request()) {
  try {
    client.complete(request);
  } catch (const LlmError& e) {
    return e;
  }
  ADD_FAILURE() << "expected LlmError";
  return LlmError(ErrorCategory::Config, "the call succeeded");
}

inline Usage usage(int64_t in, int64_t out, int64_t cached = 0, int64_t reasoning = 0, int64_t cache_write = 0) {
  Usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cached_input_tokens = cached;
  u.reasoning_tokens = reasoning;
  u.cache_write_tokens = cache_write;
  return u;
}

// A successful answer / truncated answer / error in the wire format of `p`.
inline CannedResponse ok_for(Provider p, const std::string& text, const Usage& u = {}) {
  switch (p) {
    case Provider::OpenAIChat: return canned::openai_chat(text, u);
    case Provider::OpenAIResponses: return canned::openai_responses(text, u);
    case Provider::Anthropic: return canned::anthropic(text, u);
    case Provider::Gemini: return canned::gemini(text, u);
  }
  return {};
}

inline CannedResponse truncated_for(Provider p, const std::string& text) {
  switch (p) {
    case Provider::OpenAIChat: return canned::openai_chat(text, {}, "length");
    case Provider::OpenAIResponses: return canned::openai_responses(text, {}, true);
    case Provider::Anthropic: return canned::anthropic(text, {}, "max_tokens");
    case Provider::Gemini: return canned::gemini(text, {}, "MAX_TOKENS");
  }
  return {};
}

inline CannedResponse error_for(Provider p, int status, const std::string& message) {
  switch (p) {
    case Provider::OpenAIChat:
    case Provider::OpenAIResponses: return canned::openai_error(status, message);
    case Provider::Anthropic:
      return canned::anthropic_error(status,
                                     status == 401   ? "authentication_error"
                                     : status == 404 ? "not_found_error"
                                     : status == 429 ? "rate_limit_error"
                                     : status >= 500 ? "api_error"
                                                     : "invalid_request_error",
                                     message);
    case Provider::Gemini:
      return canned::gemini_error(status, message,
                                  status == 401   ? "UNAUTHENTICATED"
                                  : status == 404 ? "NOT_FOUND"
                                  : status == 429 ? "RESOURCE_EXHAUSTED"
                                  : status >= 500 ? "INTERNAL"
                                                  : "INVALID_ARGUMENT");
  }
  return {};
}

}  // namespace ksearch::llm::testing
