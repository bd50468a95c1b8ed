// Retries, backoff, Retry-After (held by every call of a client), timeouts, error categories, key hygiene, hook.
#include <gtest/gtest.h>

#include <ctime>
#include <thread>

#include "llm/http.hpp"
#include "llm/providers.hpp"
#include "test_util.hpp"

using namespace ksearch::llm;
using namespace ksearch::llm::testing;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {
double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
}  // namespace

TEST(Retry, RetryAfterSecondsIsHonoured) {
  ScriptedServer server;
  server.enqueue(canned::openai_error(429, "Rate limit reached", "requests", "rate_limit_exceeded")
                     .with_header("Retry-After", "1"));
  server.enqueue(canned::openai_chat("ok"));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.attempts, 2);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  double gap = seconds_between(reqs[0].received, reqs[1].received);
  EXPECT_GE(gap, 0.95);
  EXPECT_LT(gap, 3.0);
  EXPECT_GE(r.latency_s, 0.95);
}

// Gemini says how long to wait in the error body (RetryInfo), not in a header.
TEST(Retry, GeminiRetryDelayInTheBodyIsHonoured) {
  ScriptedServer server;
  server.enqueue(CannedResponse::json(
      429, {{"error",
             {{"code", 429},
              {"message", "You exceeded your current quota."},
              {"status", "RESOURCE_EXHAUSTED"},
              {"details", json::array({{{"@type", "type.googleapis.com/google.rpc.QuotaFailure"}},
                                       {{"@type", "type.googleapis.com/google.rpc.RetryInfo"}, {"retryDelay", "1.5s"}}})}}}}));
  server.enqueue(canned::gemini("ok", {}));
  auto cfg = config_for(server, "gemini:gemini-2.5-pro");  // jitter alone would wait at most 0.05 s
  auto client = make_client(cfg, nullptr);
  auto t0 = Clock::now();
  EXPECT_EQ(client->complete(simple_request()).text, "ok");
  EXPECT_GE(seconds_between(t0, Clock::now()), 1.4);
  EXPECT_DOUBLE_EQ(*ksearch::llm::detail::retry_delay_from_body(R"({"error":{"details":[{"retryDelay":"35s"}]}})"), 35.0);
  EXPECT_FALSE(ksearch::llm::detail::retry_delay_from_body(R"({"error":{"message":"x"}})").has_value());
}

TEST(Retry, RetryAfterIsCapped) {
  ScriptedServer server;
  server.enqueue(canned::openai_error(429, "later").with_header("Retry-After", "3600"));
  server.enqueue(canned::openai_chat("ok"));
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.retry_after_cap_s = 0.2;
  auto client = make_client(cfg, nullptr);
  auto t0 = Clock::now();
  client->complete(simple_request());
  EXPECT_LT(seconds_between(t0, Clock::now()), 2.0);
}

TEST(Retry, ParseRetryAfter) {
  using ksearch::llm::detail::parse_retry_after;
  EXPECT_DOUBLE_EQ(*parse_retry_after("7"), 7.0);
  EXPECT_DOUBLE_EQ(*parse_retry_after(" 1.5 "), 1.5);
  EXPECT_FALSE(parse_retry_after("soon").has_value());
  EXPECT_FALSE(parse_retry_after("").has_value());
  // An HTTP date 30 s ahead.
  std::time_t when = std::time(nullptr) + 30;
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&when));
  auto secs = parse_retry_after(buf);
  ASSERT_TRUE(secs.has_value());
  EXPECT_NEAR(*secs, 30.0, 2.0);
  EXPECT_DOUBLE_EQ(*parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0);  // past: retry now
}

TEST(Retry, GivesUpAfterMaxRetries) {
  ScriptedServer server;
  for (int i = 0; i < 5; ++i) server.enqueue(canned::openai_error(503, "overloaded", "server_error"));
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.max_retries = 2;
  auto client = make_client(cfg, nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Server);
    EXPECT_EQ(e.http_status(), 503);
    EXPECT_NE(std::string(e.what()).find("after 3 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(Retry, BackoffGrowsWithFullJitterBounds) {
  ScriptedServer server;
  for (int i = 0; i < 3; ++i) server.enqueue(canned::openai_error(500, "boom", "server_error"));
  server.enqueue(canned::openai_chat("ok"));
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.retry_base_delay_s = 0.1;
  cfg.retry_max_delay_s = 0.15;
  auto client = make_client(cfg, nullptr);
  client->complete(simple_request());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 4u);
  // Delays are uniform in [0, min(cap, base * 2^k)]: never above the cap.
  for (size_t i = 1; i < reqs.size(); ++i) EXPECT_LT(seconds_between(reqs[i - 1].received, reqs[i].received), 0.5);
}

TEST(Retry, TimeoutThenSuccess) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("too late").with_delay(3.0));
  server.enqueue(canned::openai_chat("in time"));
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.timeout_s = 0.5;
  auto client = make_client(cfg, nullptr);
  auto t0 = Clock::now();
  CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "in time");
  EXPECT_EQ(r.attempts, 2);
  EXPECT_LT(seconds_between(t0, Clock::now()), 2.5);
}

TEST(Retry, PersistentTimeoutIsTimeoutError) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("late").with_delay(3.0));
  server.enqueue(canned::openai_chat("late").with_delay(3.0));
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.timeout_s = 0.3;
  cfg.max_retries = 1;
  auto client = make_client(cfg, nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Timeout);
  }
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(Retry, MalformedRetriesAreBounded) {
  ScriptedServer server;
  for (int i = 0; i < 6; ++i) {
    CannedResponse html;
    html.body = "<html>502 Bad Gateway</html>";
    html.content_type = "text/html";
    server.enqueue(html);
  }
  ProviderConfig cfg = config_for(server, "openai:gpt-5");
  cfg.max_retries = 5;
  cfg.max_malformed_retries = 1;
  auto client = make_client(cfg, nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Malformed);
  }
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(Retry, ConnectionRefusedIsTransportError) {
  int port;
  {
    ScriptedServer server;
    port = server.port();
  }  // closed: nothing listens there now
  ProviderConfig cfg = parse_provider_spec("openai-compatible:local");
  cfg.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  cfg.api_key_env = "";
  cfg.max_retries = 1;
  cfg.retry_base_delay_s = 0.01;
  auto client = make_client(cfg, nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Transport);
  }
}

TEST(Keys, KeyNeverAppearsInErrorsOrRecords) {
  ScriptedServer server;
  // OpenAI echoes (part of) the key in its 401 message; we must not pass it on.
  server.enqueue(canned::openai_error(401, std::string("Incorrect API key provided: ") + kKey + ".",
                                      "invalid_request_error", "invalid_api_key"));
  std::vector<CallRecord> records;
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr, nullptr,
                            [&](const CallRecord& r) { records.push_back(r); });
  EXPECT_EQ(client->describe().find(kKey), std::string::npos);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Auth);
    EXPECT_EQ(std::string(e.what()).find(kKey), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[redacted]"), std::string::npos);
  }
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].error.find(kKey), std::string::npos);
  for (const auto& line : records[0].attempt_errors) EXPECT_EQ(line.find(kKey), std::string::npos);
}

TEST(Keys, MissingKeyVariableFailsBeforeAnyRequest) {
  ScriptedServer server;
  ProviderConfig cfg = config_for(server, "anthropic:claude-haiku-4-5");
  cfg.api_key_env = "KSEARCH_TEST_UNSET_KEY_VARIABLE";
  unsetenv(cfg.api_key_env.c_str());
  auto client = make_client(cfg, nullptr);
  try {
    client->complete(simple_request());
    FAIL() << "expected LlmError";
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Auth);
    EXPECT_NE(std::string(e.what()).find("KSEARCH_TEST_UNSET_KEY_VARIABLE"), std::string::npos);
  }
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(Keys, KeyIsReadAtCallTime) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("a"));
  server.enqueue(canned::openai_chat("b"));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  client->complete(simple_request());
  setenv(kKeyEnv, "sk-rotated", 1);
  client->complete(simple_request());
  setenv(kKeyEnv, kKey, 1);
  auto reqs = server.requests();
  EXPECT_EQ(reqs[0].header("authorization"), std::string("Bearer ") + kKey);
  EXPECT_EQ(reqs[1].header("authorization"), "Bearer sk-rotated");
}

TEST(Hook, RecordsSuccessAndFailure) {
  ScriptedServer server;
  server.enqueue(canned::openai_error(500, "flaky", "server_error"));
  server.enqueue(canned::openai_chat("answer text", usage(100, 50)));
  server.enqueue(canned::openai_error(400, "bad field"));
  std::vector<CallRecord> records;
  auto prices = std::make_shared<PriceTable>();
  prices->set("openai", "gpt-5", {1.0, 2.0, 0.5, 1.0});
  auto client = make_client(config_for(server, "openai:gpt-5"), prices, nullptr,
                            [&](const CallRecord& r) { records.push_back(r); });
  CompletionRequest req = simple_request("prompt one");
  req.purpose = "generate";
  client->complete(req);
  EXPECT_THROW(client->complete(simple_request("prompt two")), LlmError);

  ASSERT_EQ(records.size(), 2u);
  const CallRecord& ok = records[0];
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.purpose, "generate");
  EXPECT_EQ(ok.provider, "openai");
  EXPECT_EQ(ok.model, "gpt-5");
  EXPECT_EQ(ok.request.messages.at(0).content, "prompt one");
  EXPECT_EQ(ok.response_text, "answer text");
  EXPECT_EQ(ok.attempts, 2);
  ASSERT_EQ(ok.attempt_errors.size(), 1u);
  EXPECT_NE(ok.attempt_errors[0].find("flaky"), std::string::npos);
  EXPECT_EQ(ok.usage.input_tokens, 100);
  EXPECT_NEAR(ok.cost_usd, (100 * 1.0 + 50 * 2.0) / 1e6, 1e-12);
  EXPECT_GT(ok.latency_s, 0);

  const CallRecord& bad = records[1];
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error_category, ErrorCategory::BadRequest);
  EXPECT_NE(bad.error.find("bad field"), std::string::npos);
  EXPECT_EQ(bad.request.messages.at(0).content, "prompt two");
  EXPECT_EQ(bad.attempts, 1);
}

TEST(Hook, ThrowingHookDoesNotBreakTheCall) {
  ScriptedServer server;
  server.enqueue(canned::openai_chat("fine"));
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr, nullptr,
                            [](const CallRecord&) { throw std::runtime_error("store down"); });
  EXPECT_EQ(client->complete(simple_request()).text, "fine");
}

// Calls share the provider's rate limit: once one call is told to wait (429 + Retry-After), a call
// started meanwhile on the same client waits too instead of adding to the stampede.
TEST(Retry, ARateLimitOnOneCallHoldsBackTheOthers) {
  ScriptedServer server;
  server.enqueue(canned::openai_error(429, "Rate limit reached", "requests", "rate_limit_exceeded").with_header("Retry-After", "1"));
  server.set_handler([](const RecordedRequest&) { return canned::openai_chat("ok"); });
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  std::thread first([&] { EXPECT_EQ(client->complete(simple_request()).attempts, 2); });
  while (server.request_count() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the 429 has reached the first call
  const auto second_started = Clock::now();
  EXPECT_EQ(client->complete(simple_request()).attempts, 1);  // held back, not refused
  first.join();
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  // Nothing reached the server during the second after the 429: neither the retry nor the new call.
  EXPECT_GE(seconds_between(reqs[0].received, reqs[1].received), 0.95);
  EXPECT_GE(seconds_between(reqs[0].received, reqs[2].received), 0.95);
  EXPECT_GE(seconds_between(second_started, reqs[2].received), 0.7);
}

// A body over the limit is cut off, never read into memory whole, and retried like a malformed answer.
TEST(Limits, HugeBodyEveryTimeIsAMalformedError) {
  ScriptedServer server;
  CannedResponse huge;
  huge.body = std::string(20u << 20, ' ');
  for (int i = 0; i < 5; ++i) server.enqueue(huge);
  auto cfg = config_for(server, "openai:gpt-5");
  cfg.max_malformed_retries = 1;
  auto client = make_client(cfg, nullptr);
  const LlmError e = failed_call(*client);
  EXPECT_EQ(e.category(), ErrorCategory::Malformed);
  EXPECT_NE(std::string(e.what()).find("larger than 16 MiB"), std::string::npos) << e.what();
  EXPECT_EQ(server.request_count(), 2u);
}

// Bytes that are not UTF-8 inside the answer (a local server splitting a character between tokens)
// become U+FFFD: the answer is kept, not retried as malformed.
TEST(Limits, InvalidUtf8InTheAnswerIsReplaced) {
  ScriptedServer server;
  CannedResponse bad;
  bad.body = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"caf\xE9 \xE2\x82 ok\"},\"finish_reason\":\"stop\"}]}";
  server.enqueue(bad);
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  const CompletionResponse r = client->complete(simple_request());
  EXPECT_EQ(r.text, "caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD ok");
  EXPECT_EQ(r.attempts, 1);
}

TEST(Limits, ReplaceInvalidUtf8KeepsValidText) {
  using ksearch::llm::detail::replace_invalid_utf8;
  EXPECT_EQ(replace_invalid_utf8("plain \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "plain \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(replace_invalid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");   // overlong '/'
  EXPECT_EQ(replace_invalid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(replace_invalid_utf8("end\xF0\x9F"), "end\xEF\xBF\xBD\xEF\xBF\xBD");  // cut off
}
