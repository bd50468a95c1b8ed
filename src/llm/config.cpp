#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "llm/llm.hpp"

namespace ksearch::llm {

std::string default_base_url(Provider p) {
  switch (p) {
    case Provider::OpenAIChat:
    case Provider::OpenAIResponses: return "https://api.openai.com/v1";
    case Provider::Anthropic: return "https://api.anthropic.com/v1";
    case Provider::Gemini: return "https://generativelanguage.googleapis.com/v1beta";
  }
  return {};
}

ProviderConfig parse_provider_spec(std::string_view spec) {
  auto colon = spec.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == spec.size())
    throw LlmError(ErrorCategory::Config,
                   "model spec '" + std::string(spec) + "' must be provider:model (e.g. openai:gpt-5)");
  std::string provider(spec.substr(0, colon));
  ProviderConfig c;
  c.provider_name = provider;
  c.model = std::string(spec.substr(colon + 1));
  if (provider == "openai") {
    c.provider = Provider::OpenAIChat;
    c.api_key_env = "OPENAI_API_KEY";
  } else if (provider == "openai-compatible") {
    // vLLM, llama.cpp, Ollama, OpenRouter...: the widely supported field name,
    // and a key only if the variable is set.
    c.provider = Provider::OpenAIChat;
    c.api_key_env = "OPENAI_API_KEY";
    c.api_key_optional = true;
    c.max_tokens_field = "max_tokens";
  } else if (provider == "openai-responses") {
    c.provider = Provider::OpenAIResponses;
    c.api_key_env = "OPENAI_API_KEY";
  } else if (provider == "anthropic") {
    c.provider = Provider::Anthropic;
    c.api_key_env = "ANTHROPIC_API_KEY";
  } else if (provider == "gemini") {
    c.provider = Provider::Gemini;
    c.api_key_env = "GEMINI_API_KEY";
  } else {
    throw LlmError(ErrorCategory::Config, "unknown provider '" + provider +
                                              "' (openai, openai-compatible, openai-responses, anthropic, gemini)");
  }
  return c;
}

namespace {

template <class T>
std::optional<T> get(const toml::table& t, std::string_view key, std::string_view section) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (auto v = n->value<T>()) return *v;
  throw LlmError(ErrorCategory::Config, "[" + std::string(section) + "] " + std::string(key) + " has the wrong type");
}

ProviderConfig from_table(const toml::table& root, std::string_view section) {
  const toml::table* t = section.empty() ? &root : root.at_path(section).as_table();
  if (!t) throw LlmError(ErrorCategory::Config, "no [" + std::string(section) + "] table in LLM config");
  auto spec = get<std::string>(*t, "model", section);
  if (!spec) throw LlmError(ErrorCategory::Config, "[" + std::string(section) + "] needs model = \"provider:model\"");
  ProviderConfig c = parse_provider_spec(*spec);
  if (auto v = get<std::string>(*t, "base_url", section)) c.base_url = *v;
  if (auto v = get<std::string>(*t, "api_key_env", section)) c.api_key_env = *v;
  if (auto v = get<double>(*t, "temperature", section)) c.temperature = *v;
  if (auto v = get<int64_t>(*t, "max_output_tokens", section)) c.max_output_tokens = static_cast<int>(*v);
  if (auto v = get<std::string>(*t, "reasoning_effort", section)) c.reasoning_effort = *v;
  if (auto v = get<double>(*t, "connect_timeout_s", section)) c.connect_timeout_s = *v;
  if (auto v = get<double>(*t, "timeout_s", section)) c.timeout_s = *v;
  if (auto v = get<int64_t>(*t, "max_retries", section)) c.max_retries = static_cast<int>(*v);
  if (auto v = get<int64_t>(*t, "max_malformed_retries", section)) c.max_malformed_retries = static_cast<int>(*v);
  if (auto v = get<double>(*t, "retry_base_delay_s", section)) c.retry_base_delay_s = *v;
  if (auto v = get<double>(*t, "retry_max_delay_s", section)) c.retry_max_delay_s = *v;
  if (auto v = get<double>(*t, "retry_after_cap_s", section)) c.retry_after_cap_s = *v;
  if (auto v = get<std::string>(*t, "max_tokens_field", section)) c.max_tokens_field = *v;
  if (auto v = get<std::string>(*t, "anthropic_version", section)) c.anthropic_version = *v;
  if (t->contains("api_key"))
    throw LlmError(ErrorCategory::Config, "[" + std::string(section) +
                                              "] api_key is not accepted: put the key in an environment variable "
                                              "and name it with api_key_env");
  return c;
}

}  // namespace

ProviderConfig provider_config_from_toml_string(std::string_view toml_text, std::string_view section) {
  try {
    return from_table(toml::parse(toml_text), section);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "LLM config: " << e.description() << " at " << e.source().begin;
    throw LlmError(ErrorCategory::Config, os.str());
  }
}

ProviderConfig load_provider_config(const std::string& toml_path, std::string_view section) {
  std::ifstream in(toml_path);
  if (!in) throw LlmError(ErrorCategory::Config, "cannot read LLM config " + toml_path);
  std::stringstream ss;
  ss << in.rdbuf();
  return provider_config_from_toml_string(ss.str(), section);
}

}  // namespace ksearch::llm
