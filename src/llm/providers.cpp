#include "llm/providers.hpp"

#include "llm/http.hpp"

#include <fmt/format.h>

#include <set>

namespace ksearch::llm::detail {

using nlohmann::json;

namespace {

// Token counts may be absent or null depending on server and model.
int64_t count_at(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return 0;
    auto it = cur->find(key);
    if (it == cur->end()) return 0;
    cur = &*it;
  }
  return cur->is_number_integer() || cur->is_number_unsigned() ? cur->get<int64_t>() : 0;
}

std::string string_or(const json& obj, const char* key, std::string fallback = {}) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

template <class T>
std::optional<T> pick(const std::optional<T>& request_value, const std::optional<T>& config_value) {
  return request_value ? request_value : config_value;
}

std::string join_url(const std::string& base, const std::string& path) {
  if (!base.empty() && base.back() == '/') return base.substr(0, base.size() - 1) + path;
  return base + path;
}

std::string base_of(const ProviderConfig& cfg) {
  return cfg.base_url.empty() ? default_base_url(cfg.provider) : cfg.base_url;
}

// --- OpenAI Chat Completions -------------------------------------------------

WireRequest chat_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* key) {
  WireRequest w;
  w.url = join_url(base_of(cfg), "/chat/completions");
  w.headers = {"Content-Type: application/json"};
  if (key) w.headers.push_back("Authorization: Bearer " + *key);
  json messages = json::array();
  if (!req.system.empty()) messages.push_back({{"role", "system"}, {"content", req.system}});
  for (const auto& m : req.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  w.body = {{"model", cfg.model}, {"messages", messages}};
  if (auto t = pick(req.temperature, cfg.temperature)) w.body["temperature"] = *t;
  if (auto n = pick(req.max_output_tokens, cfg.max_output_tokens)) w.body[cfg.max_tokens_field] = *n;
  if (auto e = pick(req.reasoning_effort, cfg.reasoning_effort)) w.body["reasoning_effort"] = *e;
  return w;
}

ParsedResponse chat_parse(const json& body) {
  auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty())
    throw MalformedResponse{"no 'choices' in Chat Completions response"};
  const json& choice = (*choices)[0];
  auto msg = choice.find("message");
  if (msg == choice.end() || !msg->is_object()) throw MalformedResponse{"no 'message' in first choice"};
  ParsedResponse r;
  // content is null for refusals and tool calls (the caller sees empty text); some compatible
  // servers send it as a list of parts.
  if (auto content = msg->find("content"); content != msg->end() && content->is_array()) {
    for (const auto& part : *content)
      if (string_or(part, "type") == "text") r.text += string_or(part, "text");
  } else {
    r.text = string_or(*msg, "content");
  }
  r.refusal = string_or(*msg, "refusal");
  r.finish_reason = string_or(choice, "finish_reason");
  if (r.refusal.empty() && r.finish_reason == "content_filter") r.refusal = "finish_reason content_filter";
  r.truncated = r.finish_reason == "length";
  r.model = string_or(body, "model");
  const json& u = body.contains("usage") ? body["usage"] : json::object();
  r.usage.input_tokens = count_at(u, {"prompt_tokens"});
  r.usage.output_tokens = count_at(u, {"completion_tokens"});
  r.usage.cached_input_tokens = count_at(u, {"prompt_tokens_details", "cached_tokens"});
  r.usage.reasoning_tokens = count_at(u, {"completion_tokens_details", "reasoning_tokens"});
  return r;
}

// --- OpenAI Responses --------------------------------------------------------

WireRequest responses_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* key) {
  WireRequest w;
  w.url = join_url(base_of(cfg), "/responses");
  w.headers = {"Content-Type: application/json"};
  if (key) w.headers.push_back("Authorization: Bearer " + *key);
  json input = json::array();
  for (const auto& m : req.messages) input.push_back({{"role", m.role}, {"content", m.content}});
  // store=false: the run store keeps transcripts; nothing to keep server-side.
  w.body = {{"model", cfg.model}, {"input", input}, {"store", false}};
  if (!req.system.empty()) w.body["instructions"] = req.system;
  if (auto t = pick(req.temperature, cfg.temperature)) w.body["temperature"] = *t;
  if (auto n = pick(req.max_output_tokens, cfg.max_output_tokens)) w.body["max_output_tokens"] = *n;
  if (auto e = pick(req.reasoning_effort, cfg.reasoning_effort)) w.body["reasoning"] = {{"effort", *e}};
  return w;
}

ParsedResponse responses_parse(const json& body) {
  std::string status = string_or(body, "status");
  if (status == "failed") {
    std::string msg = body.contains("error") ? string_or(body["error"], "message", "unknown error") : "unknown error";
    throw LlmError(ErrorCategory::Server, "response failed: " + msg);
  }
  auto output = body.find("output");
  if (output == body.end() || !output->is_array()) throw MalformedResponse{"no 'output' array in Responses response"};
  ParsedResponse r;
  bool saw_message = false;
  for (const auto& item : *output) {
    if (string_or(item, "type") != "message") continue;  // reasoning summaries, tool calls
    saw_message = true;
    if (!item.contains("content") || !item["content"].is_array()) continue;
    for (const auto& part : item["content"]) {
      if (string_or(part, "type") == "output_text") r.text += string_or(part, "text");
      if (string_or(part, "type") == "refusal") r.refusal += string_or(part, "refusal");
    }
  }
  std::string reason = body.contains("incomplete_details") ? string_or(body["incomplete_details"], "reason") : "";
  r.truncated = status == "incomplete" && reason == "max_output_tokens";
  r.finish_reason = reason.empty() ? status : status + ":" + reason;
  if (r.refusal.empty() && reason == "content_filter") r.refusal = "incomplete: content_filter";
  // A completed response without a message item is broken; an incomplete one
  // may have spent its whole budget on reasoning.
  if (!saw_message && status != "incomplete") throw MalformedResponse{"no message item in Responses output"};
  r.model = string_or(body, "model");
  const json& u = body.contains("usage") ? body["usage"] : json::object();
  r.usage.input_tokens = count_at(u, {"input_tokens"});
  r.usage.output_tokens = count_at(u, {"output_tokens"});
  r.usage.cached_input_tokens = count_at(u, {"input_tokens_details", "cached_tokens"});
  r.usage.reasoning_tokens = count_at(u, {"output_tokens_details", "reasoning_tokens"});
  return r;
}

// --- Anthropic Messages ------------------------------------------------------

WireRequest anthropic_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* key) {
  WireRequest w;
  w.url = join_url(base_of(cfg), "/messages");
  w.headers = {"Content-Type: application/json", "anthropic-version: " + cfg.anthropic_version};
  if (key) w.headers.push_back("x-api-key: " + *key);
  json messages = json::array();
  for (const auto& m : req.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
  // max_tokens is mandatory in the Messages API.
  w.body = {{"model", cfg.model},
            {"max_tokens", pick(req.max_output_tokens, cfg.max_output_tokens).value_or(8192)},
            {"messages", messages}};
  if (!req.system.empty()) w.body["system"] = req.system;
  if (auto t = pick(req.temperature, cfg.temperature)) w.body["temperature"] = *t;
  if (auto e = pick(req.reasoning_effort, cfg.reasoning_effort)) w.body["output_config"] = {{"effort", *e}};
  return w;
}

ParsedResponse anthropic_parse(const json& body) {
  auto content = body.find("content");
  if (content == body.end() || !content->is_array()) throw MalformedResponse{"no 'content' array in Messages response"};
  ParsedResponse r;
  for (const auto& block : *content)
    if (string_or(block, "type") == "text") r.text += string_or(block, "text");
  r.finish_reason = string_or(body, "stop_reason");
  if (r.finish_reason.empty()) throw MalformedResponse{"no 'stop_reason' in Messages response"};
  r.truncated = r.finish_reason == "max_tokens" || r.finish_reason == "model_context_window_exceeded";
  if (r.finish_reason == "refusal") r.refusal = "stop_reason refusal";
  r.model = string_or(body, "model");
  const json& u = body.contains("usage") ? body["usage"] : json::object();
  int64_t cache_read = count_at(u, {"cache_read_input_tokens"});
  int64_t cache_write = count_at(u, {"cache_creation_input_tokens"});
  // Anthropic's input_tokens excludes both cache counts.
  r.usage.input_tokens = count_at(u, {"input_tokens"}) + cache_read + cache_write;
  r.usage.cached_input_tokens = cache_read;
  r.usage.cache_write_tokens = cache_write;
  r.usage.output_tokens = count_at(u, {"output_tokens"});
  return r;
}

// --- Gemini generateContent --------------------------------------------------

json gemini_thinking(const std::string& model, const std::string& effort) {
  // Gemini 2.x takes a token budget, later models a level.
  if (model.rfind("gemini-2", 0) == 0) {
    int budget = effort == "none" || effort == "minimal" ? 0
                 : effort == "low"                       ? 1024
                 : effort == "medium"                    ? 8192
                                                         : 24576;
    return {{"thinkingBudget", budget}};
  }
  return {{"thinkingLevel", effort}};
}

WireRequest gemini_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* key) {
  WireRequest w;
  w.url = join_url(base_of(cfg), "/models/" + cfg.model + ":generateContent");
  w.headers = {"Content-Type: application/json"};
  if (key) w.headers.push_back("x-goog-api-key: " + *key);
  json contents = json::array();
  for (const auto& m : req.messages)
    contents.push_back({{"role", m.role == "assistant" ? "model" : m.role}, {"parts", json::array({{{"text", m.content}}})}});
  w.body = {{"contents", contents}};
  if (!req.system.empty()) w.body["systemInstruction"] = {{"parts", json::array({{{"text", req.system}}})}};
  json gen = json::object();
  if (auto t = pick(req.temperature, cfg.temperature)) gen["temperature"] = *t;
  if (auto n = pick(req.max_output_tokens, cfg.max_output_tokens)) gen["maxOutputTokens"] = *n;
  if (auto e = pick(req.reasoning_effort, cfg.reasoning_effort)) gen["thinkingConfig"] = gemini_thinking(cfg.model, *e);
  if (!gen.empty()) w.body["generationConfig"] = gen;
  return w;
}

ParsedResponse gemini_parse(const json& body) {
  ParsedResponse r;
  r.model = string_or(body, "modelVersion");
  const json& u = body.contains("usageMetadata") ? body["usageMetadata"] : json::object();
  int64_t thoughts = count_at(u, {"thoughtsTokenCount"});
  r.usage.input_tokens = count_at(u, {"promptTokenCount"});
  r.usage.cached_input_tokens = count_at(u, {"cachedContentTokenCount"});
  r.usage.output_tokens = count_at(u, {"candidatesTokenCount"}) + thoughts;
  r.usage.reasoning_tokens = thoughts;

  auto cands = body.find("candidates");
  if (cands == body.end() || !cands->is_array() || cands->empty()) {
    // A blocked prompt has no candidates but says why: not worth retrying.
    if (body.contains("promptFeedback") && body["promptFeedback"].contains("blockReason")) {
      r.finish_reason = "BLOCKED:" + string_or(body["promptFeedback"], "blockReason");
      r.refusal = "prompt blocked: " + string_or(body["promptFeedback"], "blockReason");
      return r;
    }
    throw MalformedResponse{"no 'candidates' in generateContent response"};
  }
  const json& cand = (*cands)[0];
  r.finish_reason = string_or(cand, "finishReason");
  r.truncated = r.finish_reason == "MAX_TOKENS";
  static const std::set<std::string, std::less<>> declined = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"};
  if (declined.count(r.finish_reason)) r.refusal = "finishReason " + r.finish_reason;
  bool has_parts = cand.contains("content") && cand["content"].contains("parts") && cand["content"]["parts"].is_array();
  // Without parts, only a stated finish reason (e.g. MAX_TOKENS spent on
  // thinking) makes the response meaningful.
  if (!has_parts && r.finish_reason.empty()) throw MalformedResponse{"candidate has neither content nor finishReason"};
  if (has_parts)
    for (const auto& part : cand["content"]["parts"])
      if (!part.value("thought", false)) r.text += string_or(part, "text");
  return r;
}

}  // namespace

WireRequest build_request(const ProviderConfig& cfg, const CompletionRequest& req, const std::string* api_key) {
  switch (cfg.provider) {
    case Provider::OpenAIChat: return chat_request(cfg, req, api_key);
    case Provider::OpenAIResponses: return responses_request(cfg, req, api_key);
    case Provider::Anthropic: return anthropic_request(cfg, req, api_key);
    case Provider::Gemini: return gemini_request(cfg, req, api_key);
  }
  throw LlmError(ErrorCategory::Config, "unknown provider");
}

ParsedResponse parse_response(const ProviderConfig& cfg, const json& body) {
  if (!body.is_object()) throw MalformedResponse{"response body is not a JSON object"};
  try {
    switch (cfg.provider) {
      case Provider::OpenAIChat: return chat_parse(body);
      case Provider::OpenAIResponses: return responses_parse(body);
      case Provider::Anthropic: return anthropic_parse(body);
      case Provider::Gemini: return gemini_parse(body);
    }
  } catch (const json::exception& e) {
    throw MalformedResponse{std::string("unexpected response shape: ") + e.what()};
  }
  throw LlmError(ErrorCategory::Config, "unknown provider");
}

std::string error_message_from_body(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_object()) {
    if (auto it = j.find("error"); it != j.end()) {
      if (it->is_string()) return it->get<std::string>();
      if (auto m = string_or(*it, "message"); !m.empty()) return m;
    }
    if (auto m = string_or(j, "message"); !m.empty()) return m;
    if (auto m = string_or(j, "detail"); !m.empty()) return m;
  }
  std::string excerpt = body.substr(0, 300);
  for (char& c : excerpt)
    if (c == '\n' || c == '\r') c = ' ';
  return excerpt.empty() ? "(empty body)" : excerpt;
}

std::string error_code_from_body(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return {};
  const json& e = j["error"];
  for (const char* key : {"code", "type", "status"})
    if (auto v = string_or(e, key); !v.empty()) return v;
  return {};
}

bool is_account_error(const std::string& body) {
  static const std::set<std::string, std::less<>> account_codes = {
      "invalid_api_key",       "insufficient_quota", "billing_error",     "authentication_error",
      "permission_error",      "API_KEY_INVALID",    "PERMISSION_DENIED", "UNAUTHENTICATED"};
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return false;
  const json& e = j["error"];
  for (const char* key : {"code", "type", "status"})
    if (account_codes.count(string_or(e, key))) return true;
  if (auto details = e.find("details"); details != e.end() && details->is_array())
    for (const auto& d : *details)
      if (account_codes.count(string_or(d, "reason"))) return true;
  // Anthropic reports an empty prepaid balance as a plain invalid_request_error.
  return string_or(e, "message").find("credit balance is too low") != std::string::npos;
}

std::optional<double> retry_delay_from_body(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return std::nullopt;
  auto details = j["error"].find("details");
  if (details == j["error"].end() || !details->is_array()) return std::nullopt;
  for (const auto& d : *details) {
    std::string delay = string_or(d, "retryDelay");
    if (delay.size() > 1 && delay.back() == 's') return parse_retry_after(delay.substr(0, delay.size() - 1));
  }
  return std::nullopt;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len > 0 && i + len <= n;
    for (size_t k = 1; valid && k < len; ++k) valid = (p[i + k] & 0xC0) == 0x80;
    if (valid && len > 1) {
      // Overlong forms, surrogates and code points above U+10FFFF are not UTF-8 either.
      const unsigned c1 = p[i + 1];
      valid = !(c == 0xC0 || c == 0xC1) && !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0) &&
              !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90) && c <= 0xF4;
    }
    if (valid) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace ksearch::llm::detail
