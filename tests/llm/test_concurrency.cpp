// Several requests in flight on one client.
#include <gtest/gtest.h>

#include "llm/concurrent.hpp"
#include "test_util.hpp"

using namespace ksearch::llm;
using namespace ksearch::llm::testing;

namespace {
// Echoes the last user message back, after a delay, so results can be matched
// to their requests.
CannedResponse echo(const RecordedRequest& r) {
  auto body = r.json();
  std::string last = body["messages"].back()["content"];
  if (last.rfind("fail", 0) == 0) return canned::openai_error(400, "refused " + last);
  return canned::openai_chat("echo " + last, usage(10, 5)).with_delay(0.5);
}
}  // namespace

TEST(Concurrency, CompleteAllRunsInParallelAndKeepsOrder) {
  ScriptedServer server;
  server.set_handler(echo);
  auto budget = std::make_shared<BudgetTracker>();
  std::atomic<int> hook_calls{0};
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr, budget,
                            [&](const CallRecord&) { ++hook_calls; });
  std::vector<CompletionRequest> reqs;
  for (int i = 0; i < 8; ++i) reqs.push_back(simple_request("p" + std::to_string(i)));

  auto t0 = std::chrono::steady_clock::now();
  auto results = complete_all(*client, reqs, 8);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ASSERT_EQ(results.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error_message;
    EXPECT_EQ(results[i].response->text, "echo p" + std::to_string(i));
  }
  EXPECT_LT(elapsed, 2.5);  // serial would take 4 s
  EXPECT_GE(server.max_in_flight(), 4);
  EXPECT_EQ(hook_calls.load(), 8);
  EXPECT_EQ(budget->snapshot().calls, 8);
  EXPECT_EQ(budget->snapshot().tokens, 8 * 15);
}

TEST(Concurrency, ErrorsAreCollectedPerRequest) {
  ScriptedServer server;
  server.set_handler(echo);
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr);
  std::vector<CompletionRequest> reqs = {simple_request("a"), simple_request("fail-1"), simple_request("b"),
                                         simple_request("fail-2")};
  auto results = complete_all(*client, reqs, 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_TRUE(results[2].ok());
  for (int i : {1, 3}) {
    EXPECT_FALSE(results[i].ok());
    EXPECT_EQ(results[i].error_category, ErrorCategory::BadRequest);
    EXPECT_NE(results[i].error_message.find("refused fail-"), std::string::npos);
    EXPECT_THROW(std::rethrow_exception(results[i].error), LlmError);
  }
}

TEST(Concurrency, BudgetRefusalsShowUpAsResults) {
  ScriptedServer server;
  server.set_handler(echo);
  auto budget = std::make_shared<BudgetTracker>(BudgetLimits{std::nullopt, std::nullopt, 3});
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr, budget);
  std::vector<CompletionRequest> reqs(6, simple_request("x"));
  auto results = complete_all(*client, reqs, 6);
  int ok = 0, refused = 0;
  for (const auto& r : results) {
    if (r.ok()) ++ok;
    else if (r.error_category == ErrorCategory::Budget) ++refused;
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(refused, 3);
  EXPECT_EQ(server.request_count(), 3u);
}
