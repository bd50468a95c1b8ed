// Wire formats: requests checked field by field, responses in each
// provider's real shape, and scenarios run against all four providers.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace ksearch::llm;
using namespace ksearch::llm::testing;
using nlohmann::json;

namespace {

CompletionRequest conversation() {
  CompletionRequest r;
  r.system = "SYS PROMPT";
  r.messages = {{"user", "first question"}, {"assistant", "first answer"}, {"user", "second question"}};
  r.temperature = 0.3;
  r.max_output_tokens = 1000;
  r.reasoning_effort = "high";
  return r;
}

}  // namespace

TEST(OpenAIChat, RequestAndResponseWireFormat) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("hello kernel", usage(1200, 300, 1000, 120), "stop", "gpt-5-2025-08-07"));
  auto prices = std::make_shared<PriceTable>();
  prices->set("openai", "gpt-5", {1.25, 10.0, 0.125, 1.25});
  auto client = make_client(config_for(server, "openai:gpt-5"), prices);

  CompletionResponse resp = client->complete(conversation());

  ASSERT_EQ(server.request_count(), 1u);
  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/v1/chat/completions");
  EXPECT_EQ(req.header("authorization"), std::string("Bearer ") + kKey);
  EXPECT_EQ(req.header("content-type"), "application/json");
  json body = req.json();
  EXPECT_EQ(body["model"], "gpt-5");
  ASSERT_EQ(body["messages"].size(), 4u);
  EXPECT_EQ(body["messages"][0], json({{"role", "system"}, {"content", "SYS PROMPT"}}));
  EXPECT_EQ(body["messages"][1], json({{"role", "user"}, {"content", "first question"}}));
  EXPECT_EQ(body["messages"][2], json({{"role", "assistant"}, {"content", "first answer"}}));
  EXPECT_EQ(body["messages"][3], json({{"role", "user"}, {"content", "second question"}}));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  EXPECT_EQ(body["max_completion_tokens"], 1000);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["reasoning_effort"], "high");

  EXPECT_EQ(resp.text, "hello kernel");
  EXPECT_EQ(resp.finish_reason, "stop");
  EXPECT_FALSE(resp.truncated);
  EXPECT_EQ(resp.model, "gpt-5-2025-08-07");
  EXPECT_EQ(resp.usage.input_tokens, 1200);
  EXPECT_EQ(resp.usage.output_tokens, 300);
  EXPECT_EQ(resp.usage.cached_input_tokens, 1000);
  EXPECT_EQ(resp.usage.reasoning_tokens, 120);
  EXPECT_EQ(resp.attempts, 1);
  // 200 uncached * 1.25 + 1000 cached * 0.125 + 300 out * 10, per million.
  EXPECT_NEAR(resp.cost_usd, (200 * 1.25 + 1000 * 0.125 + 300 * 10.0) / 1e6, 1e-12);
  EXPECT_TRUE(resp.cost_known);
}

TEST(OpenAIChat, OmitsUnsetOptionalFields) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("ok"));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  CompletionRequest r;
  r.messages = {{"user", "hi"}};
  client->complete(r);
  json body = server.requests()[0].json();
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_FALSE(body.contains("reasoning_effort"));
  ASSERT_EQ(body["messages"].size(), 1u);  // no empty system message
  EXPECT_EQ(body["messages"][0]["role"], "user");
}

TEST(OpenAIChat, InvalidUtf8InPromptIsReplacedNotFatal) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("ok"));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  CompletionRequest r = simple_request(std::string("nvcc said: \xff\xfe bad bytes"));
  EXPECT_EQ(client->complete(r).text, "ok");
  std::string sent = server.requests()[0].json()["messages"][1]["content"];
  EXPECT_NE(sent.find("bad bytes"), std::string::npos);
}

TEST(OpenAICompatible, UsesMaxTokensAndNeedsNoKey) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("local answer", usage(10, 5)));
  ProviderConfig cfg = config_for(server, "openai-compatible:qwen2.5-coder:32b");
  cfg.api_key_env = "KSEARCH_TEST_UNSET_KEY_VARIABLE";
  unsetenv(cfg.api_key_env.c_str());
  cfg.max_output_tokens = 512;
  auto client = make_client(cfg, nullptr);
  CompletionResponse resp = client->complete(simple_request());
  RecordedRequest req = server.requests()[0];
  EXPECT_FALSE(req.has_header("authorization"));
  json body = req.json();
  EXPECT_EQ(body["model"], "qwen2.5-coder:32b");
  EXPECT_EQ(body["max_tokens"], 512);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_EQ(resp.text, "local answer");
  EXPECT_FALSE(resp.cost_known);  // no price table: flagged, cost 0
  EXPECT_EQ(resp.cost_usd, 0);
}

TEST(OpenAIResponses, RequestAndResponseWireFormat) {
  ScriptedServer server;
  server.enqueue(canned::openai_responses("reasoned answer", usage(900, 700, 800, 600), false, "o3-2025-04-16"));
  auto client = make_client(config_for(server, "openai-responses:o3"), nullptr);
  CompletionResponse resp = client->complete(conversation());

  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.path, "/v1/responses");
  EXPECT_EQ(req.header("authorization"), std::string("Bearer ") + kKey);
  json body = req.json();
  EXPECT_EQ(body["model"], "o3");
  EXPECT_EQ(body["instructions"], "SYS PROMPT");
  ASSERT_EQ(body["input"].size(), 3u);
  EXPECT_EQ(body["input"][0], json({{"role", "user"}, {"content", "first question"}}));
  EXPECT_EQ(body["input"][1], json({{"role", "assistant"}, {"content", "first answer"}}));
  EXPECT_EQ(body["max_output_tokens"], 1000);
  EXPECT_EQ(body["reasoning"], json({{"effort", "high"}}));
  EXPECT_EQ(body["store"], false);
  EXPECT_FALSE(body.contains("messages"));

  EXPECT_EQ(resp.text, "reasoned answer");  // the reasoning item is skipped
  EXPECT_EQ(resp.finish_reason, "completed");
  EXPECT_FALSE(resp.truncated);
  EXPECT_EQ(resp.model, "o3-2025-04-16");
  EXPECT_EQ(resp.usage.input_tokens, 900);
  EXPECT_EQ(resp.usage.cached_input_tokens, 800);
  EXPECT_EQ(resp.usage.output_tokens, 700);
  EXPECT_EQ(resp.usage.reasoning_tokens, 600);
}

TEST(OpenAIResponses, FailedStatusIsRetriedAsServerError) {
  ScriptedServer server;
  server.enqueue(CannedResponse::json(
      200, {{"status", "failed"}, {"error", {{"code", "server_error"}, {"message", "boom"}}}, {"output", json::array()}}));
  server.enqueue(canned::openai_responses("second time lucky"));
  auto client = make_client(config_for(server, "openai-responses:o3"), nullptr);
  CompletionResponse resp = client->complete(simple_request());
  EXPECT_EQ(resp.text, "second time lucky");
  EXPECT_EQ(resp.attempts, 2);
}

TEST(Anthropic, RequestAndResponseWireFormat) {
  ScriptedServer server;
  // 2000 input in total: 300 uncached, 1500 cache reads, 200 cache writes.
  server.enqueue(canned::anthropic("claude says", usage(2000, 400, 1500, 0, 200), "end_turn", "claude-sonnet-4-5-20250929"));
  auto prices = std::make_shared<PriceTable>();
  prices->set("anthropic", "claude-sonnet-4-5", {3.0, 15.0, 0.30, 3.75});
  auto client = make_client(config_for(server, "anthropic:claude-sonnet-4-5-20250929"), prices);
  CompletionResponse resp = client->complete(conversation());

  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.path, "/v1/messages");
  EXPECT_EQ(req.header("x-api-key"), kKey);
  EXPECT_EQ(req.header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(req.has_header("authorization"));
  json body = req.json();
  EXPECT_EQ(body["model"], "claude-sonnet-4-5-20250929");
  EXPECT_EQ(body["system"], "SYS PROMPT");
  ASSERT_EQ(body["messages"].size(), 3u);
  for (const auto& m : body["messages"]) EXPECT_NE(m["role"], "system");
  EXPECT_EQ(body["messages"][2], json({{"role", "user"}, {"content", "second question"}}));
  EXPECT_EQ(body["max_tokens"], 1000);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  EXPECT_EQ(body["output_config"], json({{"effort", "high"}}));

  EXPECT_EQ(resp.text, "claude says");  // thinking block skipped
  EXPECT_EQ(resp.finish_reason, "end_turn");
  EXPECT_EQ(resp.usage.input_tokens, 2000);
  EXPECT_EQ(resp.usage.cached_input_tokens, 1500);
  EXPECT_EQ(resp.usage.cache_write_tokens, 200);
  EXPECT_EQ(resp.usage.output_tokens, 400);
  EXPECT_TRUE(resp.cost_known);  // dated snapshot priced by its base entry
  EXPECT_NEAR(resp.cost_usd, (300 * 3.0 + 1500 * 0.30 + 200 * 3.75 + 400 * 15.0) / 1e6, 1e-12);
}

TEST(Anthropic, DefaultMaxTokensIsSent) {
  ScriptedServer server;
  server.enqueue(canned::anthropic("x"));
  auto client = make_client(config_for(server, "anthropic:claude-haiku-4-5"), nullptr);
  CompletionRequest r;
  r.messages = {{"user", "hi"}};
  client->complete(r);
  json body = server.requests()[0].json();
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_FALSE(body.contains("system"));
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("output_config"));
}

TEST(Gemini, RequestAndResponseWireFormat) {
  ScriptedServer server;
  server.enqueue(canned::gemini("gemini says", usage(5000, 900, 4000, 700), "STOP", "gemini-2.5-pro"));
  auto client = make_client(config_for(server, "gemini:gemini-2.5-pro"), nullptr);
  CompletionResponse resp = client->complete(conversation());

  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.path, "/v1beta/models/gemini-2.5-pro:generateContent");
  EXPECT_EQ(req.target.find('?'), std::string::npos) << "key must not travel in the URL";
  EXPECT_EQ(req.header("x-goog-api-key"), kKey);
  EXPECT_FALSE(req.has_header("authorization"));
  json body = req.json();
  EXPECT_FALSE(body.contains("model"));
  EXPECT_EQ(body["systemInstruction"], json({{"parts", {{{"text", "SYS PROMPT"}}}}}));
  ASSERT_EQ(body["contents"].size(), 3u);
  EXPECT_EQ(body["contents"][0], json({{"role", "user"}, {"parts", {{{"text", "first question"}}}}}));
  EXPECT_EQ(body["contents"][1], json({{"role", "model"}, {"parts", {{{"text", "first answer"}}}}}));
  const json& gen = body["generationConfig"];
  EXPECT_DOUBLE_EQ(gen["temperature"].get<double>(), 0.3);
  EXPECT_EQ(gen["maxOutputTokens"], 1000);
  EXPECT_EQ(gen["thinkingConfig"], json({{"thinkingBudget", 24576}}));

  EXPECT_EQ(resp.text, "gemini says");  // thought parts skipped
  EXPECT_EQ(resp.finish_reason, "STOP");
  EXPECT_EQ(resp.model, "gemini-2.5-pro");
  EXPECT_EQ(resp.usage.input_tokens, 5000);
  EXPECT_EQ(resp.usage.cached_input_tokens, 4000);
  EXPECT_EQ(resp.usage.output_tokens, 900);  // candidates + thoughts
  EXPECT_EQ(resp.usage.reasoning_tokens, 700);
}

TEST(Gemini, Gemini3UsesThinkingLevel) {
  ScriptedServer server;
  server.enqueue(canned::gemini("ok"));
  ProviderConfig cfg = config_for(server, "gemini:gemini-3-pro-preview");
  cfg.reasoning_effort = "low";
  auto client = make_client(cfg, nullptr);
  CompletionRequest r;
  r.messages = {{"user", "hi"}};
  client->complete(r);
  json body = server.requests()[0].json();
  EXPECT_EQ(body["generationConfig"]["thinkingConfig"], json({{"thinkingLevel", "low"}}));
  EXPECT_FALSE(body.contains("systemInstruction"));
}

TEST(Gemini, BlockedPromptIsAnEmptyAnswerNotARetry) {
  ScriptedServer server;
  server.enqueue(CannedResponse::json(200, {{"promptFeedback", {{"blockReason", "SAFETY"}}},
                                            {"usageMetadata", {{"promptTokenCount", 12}}}}));
  auto client = make_client(config_for(server, "gemini:gemini-2.5-flash"), nullptr);
  CompletionResponse resp = client->complete(simple_request());
  EXPECT_EQ(resp.text, "");
  EXPECT_EQ(resp.finish_reason, "BLOCKED:SAFETY");
  EXPECT_EQ(server.request_count(), 1u);
}

// --- The same scenarios for every provider --------------------------------

class AllProviders : public ::testing::TestWithParam<std::string> {
 protected:
  Provider provider() const { return parse_provider_spec(GetParam()).provider; }
};

TEST_P(AllProviders, Success) {
  ScriptedServer server;
  server.enqueue(ok_for(provider(), "fine", usage(10, 20)));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "fine");
  EXPECT_EQ(r.usage.input_tokens, 10);
  EXPECT_EQ(r.usage.output_tokens, 20);
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.attempts, 1);
}

TEST_P(AllProviders, TruncatedOutputIsReported) {
  ScriptedServer server;
  server.enqueue(truncated_for(provider(), "__global__ void k(){ int x ="));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.text, "__global__ void k(){ int x =");
  EXPECT_EQ(r.attempts, 1);  // truncation is the caller's decision, not a retry
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(AllProviders, ServerErrorThenSuccess) {
  ScriptedServer server;
  server.enqueue(error_for(provider(), 500, "internal"));
  server.enqueue(ok_for(provider(), "recovered"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "recovered");
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_P(AllProviders, MalformedThenSuccess) {
  ScriptedServer server;
  CannedResponse garbage;
  garbage.body = "{\"choices\": [";  // cut-off JSON
  server.enqueue(garbage);
  server.enqueue(CannedResponse::json(200, {{"unexpected", true}}));  // JSON without the fields
  server.enqueue(ok_for(provider(), "finally"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "finally");
  EXPECT_EQ(r.attempts, 3);
}

TEST_P(AllProviders, UnauthorizedIsAuthErrorWithoutRetry) {
  ScriptedServer server;
  server.enqueue(error_for(provider(), 401, "invalid x-api-key"));
  server.enqueue(ok_for(provider(), "must not be reached"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Auth);
    EXPECT_EQ(e.http_status(), 401);
    EXPECT_NE(std::string(e.what()).find("invalid x-api-key"), std::string::npos);
  }
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(AllProviders, UnknownModelIsNotFound) {
  ScriptedServer server;
  server.enqueue(error_for(provider(), 404, "model: no-such-model"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::NotFound);
    EXPECT_NE(std::string(e.what()).find("no-such-model"), std::string::npos);
  }
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(AllProviders, BadRequestCarriesProviderMessage) {
  ScriptedServer server;
  server.enqueue(error_for(provider(), 400, "temperature: must be at most 2"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::BadRequest);
    EXPECT_NE(std::string(e.what()).find("temperature: must be at most 2"), std::string::npos);
  }
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_P(AllProviders, RateLimitThenSuccess) {
  ScriptedServer server;
  server.enqueue(error_for(provider(), 429, "slow down").with_header("Retry-After", "0"));
  server.enqueue(ok_for(provider(), "after the limit"));
  auto client = make_client(config_for(server, GetParam()), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "after the limit");
  EXPECT_EQ(r.attempts, 2);
}

// --- What providers say when the key or the account cannot be used ---------
// Each body as the provider sends it; none is worth a retry, whatever its status.

struct AccountError {
  std::string spec;
  int status;
  json body;
  std::string message;
  friend void PrintTo(const AccountError& a, std::ostream* os) { *os << a.spec << " HTTP " << a.status; }
};

class AccountErrors : public ::testing::TestWithParam<AccountError> {};

TEST_P(AccountErrors, AreAuthErrorsWithTheProvidersMessageAndNoRetry) {
  const AccountError& a = GetParam();
  ScriptedServer server;
  server.enqueue(CannedResponse::json(a.status, a.body));
  server.enqueue(ok_for(parse_provider_spec(a.spec).provider, "must not be reached"));
  auto client = make_client(config_for(server, a.spec), nullptr);
  const LlmError e = failed_call(*client);
  EXPECT_EQ(e.category(), ErrorCategory::Auth) << e.what();
  EXPECT_EQ(e.http_status(), a.status);
  EXPECT_NE(std::string(e.what()).find(a.message), std::string::npos) << e.what();
  EXPECT_EQ(server.request_count(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AccountErrors,
    ::testing::Values(
        AccountError{"gemini:gemini-2.5-pro", 400,
                     {{"error",
                       {{"code", 400},
                        {"message", "API key not valid. Please pass a valid API key."},
                        {"status", "INVALID_ARGUMENT"},
                        {"details", json::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"}, {"reason", "API_KEY_INVALID"}}})}}}},
                     "API key not valid"},
        AccountError{"openai:gpt-5", 429,
                     {{"error",
                       {{"message", "You exceeded your current quota, please check your plan and billing details."},
                        {"type", "insufficient_quota"},
                        {"param", nullptr},
                        {"code", "insufficient_quota"}}}},
                     "exceeded your current quota"},
        AccountError{"anthropic:claude-sonnet-4-5", 400,
                     {{"type", "error"},
                      {"error",
                       {{"type", "invalid_request_error"},
                        {"message", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}}},
                     "credit balance is too low"},
        AccountError{"anthropic:claude-sonnet-4-5", 402,
                     {{"type", "error"}, {"error", {{"type", "billing_error"}, {"message", "There is an issue with your billing."}}}},
                     "issue with your billing"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// A refusal reaches the caller as such, not as an empty answer that merely lacks code.
TEST(Refusals, EveryProviderReportsTheModelDeclining) {
  struct Case {
    std::string spec;
    json body;
    std::string refusal;
  };
  const std::vector<Case> cases = {
      {"openai:gpt-5",
       {{"choices", json::array({{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", nullptr}, {"refusal", "I can't help with that."}}},
                                  {"finish_reason", "stop"}}})}},
       "I can't help with that."},
      {"openai-responses:o3",
       {{"status", "completed"},
        {"output", json::array({{{"type", "message"},
                                 {"content", json::array({{{"type", "refusal"}, {"refusal", "I can't help with that."}}})}}})}},
       "I can't help with that."},
      {"openai:gpt-5",
       {{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", ""}}}, {"finish_reason", "content_filter"}}})}},
       "finish_reason content_filter"},
      {"openai-responses:o3",
       {{"status", "incomplete"}, {"incomplete_details", {{"reason", "content_filter"}}}, {"output", json::array()}},
       "incomplete: content_filter"},
      {"anthropic:claude-sonnet-4-5", {{"content", json::array()}, {"stop_reason", "refusal"}}, "stop_reason refusal"},
      {"gemini:gemini-2.5-pro", {{"candidates", json::array({{{"finishReason", "SAFETY"}}})}}, "finishReason SAFETY"},
      {"gemini:gemini-2.5-pro", {{"promptFeedback", {{"blockReason", "OTHER"}}}}, "prompt blocked: OTHER"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec + " " + c.body.dump());
    ScriptedServer server;
    server.enqueue(CannedResponse::json(200, c.body));
    auto client = make_client(config_for(server, c.spec), nullptr);
    const CompletionResponse r = client->complete(simple_request());
    EXPECT_EQ(r.refusal, c.refusal);
    EXPECT_EQ(server.request_count(), 1u);
  }
}

// Some compatible servers send the message content as a list of parts.
TEST(OpenAICompatible, ContentAsAListOfPartsIsRead) {
  ScriptedServer server;
  server.enqueue(CannedResponse::json(
      200, {{"choices", json::array({{{"message", {{"role", "assistant"},
                                                    {"content", json::array({{{"type", "text"}, {"text", "first "}},
                                                                             {{"type", "text"}, {"text", "second"}}})}}},
                                      {"finish_reason", "stop"}}})}}));
  auto client = make_client(config_for(server, "openai-compatible:qwen"), nullptr);
  EXPECT_EQ(client->complete(simple_request()).text, "first second");
}

// OpenRouter reports some errors with HTTP 200: the error's own code classifies it and its message is shown.
TEST(OpenAICompatible, AnErrorBodyWithStatus200IsClassifiedByItsCode) {
  ScriptedServer server;
  server.enqueue(CannedResponse::json(200, {{"error", {{"code", 401}, {"message", "No auth credentials found"}}}}));
  server.enqueue(canned::openai_chat("must not be reached", {}));
  auto client = make_client(config_for(server, "openai-compatible:m"), nullptr);
  const LlmError e = failed_call(*client);
  EXPECT_EQ(e.category(), ErrorCategory::Auth);
  EXPECT_NE(std::string(e.what()).find("HTTP 200 with an error body: No auth credentials found"), std::string::npos) << e.what();
  EXPECT_EQ(server.request_count(), 1u);

  ScriptedServer flaky;
  flaky.enqueue(CannedResponse::json(200, {{"error", {{"message", "upstream provider error"}}}}));
  flaky.enqueue(canned::openai_chat("recovered", {}));
  auto retried = make_client(config_for(flaky, "openai-compatible:m"), nullptr);
  const CompletionResponse r = retried->complete(simple_request());
  EXPECT_EQ(r.text, "recovered");
  EXPECT_EQ(r.attempts, 2);  // without a code: a server error, retried
}

TEST(Refusals, AnOrdinaryAnswerHasNone) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("fine", {}));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  EXPECT_EQ(client->complete(simple_request()).refusal, "");
}

INSTANTIATE_TEST_SUITE_P(Wire, AllProviders,
                         ::testing::Values("openai:gpt-5", "openai-responses:o3", "anthropic:claude-sonnet-4-5",
                                           "gemini:gemini-2.5-pro"),
                         [](const auto& info) {
                           std::string s = info.param.substr(0, info.param.find(':'));
                           std::erase(s, '-');
                           return s;
                         });
