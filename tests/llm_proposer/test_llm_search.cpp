// Searches on the cpu backend driven by the LLM proposer, its answers replayed by the scripted
// provider server: a verified speedup from recorded transcripts, calls stored with tokens and
// cost, concurrent candidates, several calls in flight at once, provider failures, budget
// exhaustion, and re-asks with the errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "backends/backend.hpp"
#include "helpers.hpp"
#include "proposers/llm/prompts.hpp"
#include "proposers/world_model.hpp"
#include "search/search.hpp"
#include "tasks/task.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

using namespace ksearch;
using namespace ksearch::llm::testing;
using nlohmann::json;

namespace {

struct LlmSearch : ::testing::Test {
  Task task = load_task(test::tiny_softmax());
  std::unique_ptr<Backend> backend = make_backend("cpu");
  ScriptedServer server;
  std::filesystem::path dir;
  std::optional<store::RunStore> store;

  search::Search::Outcome run(const std::string& name, const proposers::llm::LlmSettings& settings, search::SearchOptions options) {
    proposers::llm::register_llm_proposers();
    dir = test::fresh_dir(name);
    store::RunInfo info;
    info.task_name = task.name;
    info.task_file = task.file.string();
    info.backend = "cpu";
    store.emplace(store::RunStore::create(dir, info));
    auto proposer = proposers::make_proposer({"llm", settings.to_json()}, {&task, backend.get()});
    auto strategy = search::make_strategy({}, {&task, backend.get()});
    search::Search search(*store, task, *backend, *proposer, *strategy, options);
    return search.run();
  }
  void TearDown() override {
    store.reset();
    std::filesystem::remove_all(dir);
  }
  std::vector<store::ProposerCall> model_calls() const {
    std::vector<store::ProposerCall> out;
    for (auto& c : store->calls())
      if (!c.model.empty()) out.push_back(c);
    return out;
  }
};

search::SearchOptions rounds(int n, int parallel = 1) {
  search::SearchOptions o;
  o.rounds = n;
  o.parallel = parallel;
  o.finalists = 0;  // the finalists' re-timing is tested in tests/search
  return o;
}

}  // namespace

TEST_F(LlmSearch, TranscriptsReachAVerifiedSpeedupWithCallsStored) {
  server.enqueue(test::transcript("anthropic", "initialize"));
  // Two candidates in flight at once: both answers wait a little so that they overlap.
  server.enqueue(test::transcript("anthropic", "write_code").with_delay(0.4));
  server.enqueue(test::transcript("anthropic", "write_code_b").with_delay(0.4));
  server.enqueue(test::transcript("anthropic", "refine"));
  auto settings = test::settings_for(server, "anthropic:claude-test");
  ASSERT_EQ(run("e2e", settings, rounds(1, 2)), search::Search::Outcome::finished);

  const auto s = search::summarize(*store);
  EXPECT_EQ(s.phase, "done");
  ASSERT_TRUE(s.has_best);
  EXPECT_GT(s.best_speedup, 1.2);  // write_code_b: one polynomial exp per element instead of two libm calls, about 3x
  EXPECT_EQ(s.held_out_passed, std::optional<bool>(true));
  EXPECT_EQ(store->evaluation_count(), 2);
  EXPECT_EQ(server.max_in_flight(), 2);

  const auto calls = model_calls();
  ASSERT_EQ(calls.size(), 4u);
  std::vector<std::string> roles;
  for (const auto& c : calls) {
    roles.push_back(c.role);
    EXPECT_EQ(c.model, "anthropic:claude-test");
    EXPECT_EQ(c.proposer, "llm:anthropic:claude-test");
    EXPECT_TRUE(c.error.empty()) << c.error;
    EXPECT_GT(c.input_tokens, 1000);
    EXPECT_GT(c.output_tokens, 100);
    EXPECT_GT(c.cost_usd, 0);
    EXPECT_NE(c.prompt.find("### system"), std::string::npos);
    EXPECT_FALSE(c.response.empty());
  }
  EXPECT_EQ(roles, (std::vector<std::string>{"initialize", "write_code", "write_code", "refine"}));
  // 2140 input and 1210 output tokens at $3 / $15 per million.
  EXPECT_NEAR(calls[0].cost_usd, (2140 * 3.0 + 1210 * 15.0) / 1e6, 1e-9);
  const std::string rules = proposers::llm::BackendInfo::of(*backend).rules;
  EXPECT_NE(calls[1].prompt.find(rules.substr(0, rules.find('\n'))), std::string::npos);
  EXPECT_NE(calls[1].prompt.find("Store exp(x - max) in y"), std::string::npos);
  // The refinement landed in the tree: the reflection and the follow-up under the solved node.
  const auto m = world_model::WorldModel::from_json(*store->latest_world_model());
  EXPECT_NE(m.find("n1")->notes.find("reflection: The candidate implemented exactly the action"), std::string::npos);
  ASSERT_EQ(m.children("n1").size(), 1u);
  EXPECT_EQ(m.children("n1")[0]->action->title, "Vectorize exp with a polynomial approximation");
  // The wire format was Anthropic's: system prompt at the top level, the key in x-api-key.
  const auto first = server.requests().front();
  EXPECT_EQ(first.path, "/v1/messages");
  EXPECT_NE(first.json()["system"].get<std::string>().find("fast, correct compute kernels"), std::string::npos);
}

TEST_F(LlmSearch, ServerErrorsThenSuccessLoseNoEvaluation) {
  server.enqueue(test::transcript("openai", "initialize"));
  server.enqueue(test::transcript("openai", "write_code"));
  // Round 2: the client's two attempts fail, the search asks again, and the retry gets through.
  for (int i = 0; i < 3; ++i) server.enqueue(error_for(llm::Provider::OpenAIChat, 500, "overloaded"));
  server.enqueue(test::transcript("openai", "write_code_b"));
  server.enqueue(test::transcript("openai", "refine"));
  ASSERT_EQ(run("flaky", test::settings_for(server, "openai:gpt-test"), rounds(2)), search::Search::Outcome::finished);
  const auto s = search::summarize(*store);
  ASSERT_TRUE(s.has_best);
  EXPECT_EQ(s.rounds, 2);
  EXPECT_EQ(store->evaluation_count(), 2);
  int failed = 0;
  for (const auto& c : model_calls()) failed += !c.error.empty();
  EXPECT_EQ(failed, 1);  // one failed call (two HTTP attempts), then success
  EXPECT_EQ(model_calls().size(), 5u);
}

TEST_F(LlmSearch, PersistentFailureKeepsTheBestAndEndsTheRun) {
  server.enqueue(test::transcript("openai", "initialize"));
  server.enqueue(test::transcript("openai", "write_code"));
  server.set_handler([](const RecordedRequest&) { return error_for(llm::Provider::OpenAIChat, 503, "down for maintenance"); });
  ASSERT_EQ(run("down", test::settings_for(server, "openai:gpt-test"), rounds(3)), search::Search::Outcome::finished);
  const auto s = search::summarize(*store);
  EXPECT_EQ(s.phase, "done");
  ASSERT_TRUE(s.has_best);
  EXPECT_EQ(s.best_candidate, 1);
  EXPECT_EQ(store->evaluation_count(), 1);
  int failed = 0;
  for (const auto& c : model_calls()) failed += c.error.find("down for maintenance") != std::string::npos;
  EXPECT_GE(failed, 6);  // every round after the first, and the refinement, asked 3 times
}

// Gemini answers an invalid key with 400 (not 401): mid-run it still ends the run at the first failed
// call, with the provider's message as the stop reason, instead of failing every round.
TEST_F(LlmSearch, AnInvalidKeyMidRunStopsAtOnceWithTheProvidersMessage) {
  server.enqueue(test::transcript("gemini", "initialize"));
  server.enqueue(test::transcript("gemini", "write_code"));
  server.set_handler([](const RecordedRequest&) {
    return CannedResponse::json(
        400, {{"error",
               {{"code", 400},
                {"message", "API key not valid. Please pass a valid API key."},
                {"status", "INVALID_ARGUMENT"},
                {"details", json::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"}, {"reason", "API_KEY_INVALID"}}})}}}});
  });
  ASSERT_EQ(run("badkey", test::settings_for(server, "gemini:gemini-test"), rounds(5)), search::Search::Outcome::finished);
  const auto s = search::summarize(*store);
  EXPECT_EQ(s.phase, "done");
  EXPECT_NE(s.stop_reason.find("API key not valid"), std::string::npos) << s.stop_reason;
  EXPECT_EQ(server.request_count(), 3u);
  ASSERT_TRUE(s.has_best);
  EXPECT_EQ(store->evaluation_count(), 1);
}

// A refusal and an answer cut off at the token limit are re-asked saying so, not only "no code found".
TEST_F(LlmSearch, ARefusalAndATruncatedAnswerAreReAskedSayingWhatHappened) {
  server.enqueue(test::transcript("openai", "initialize"));
  server.enqueue(CannedResponse::json(
      200, {{"choices", json::array({{{"index", 0},
                                      {"message", {{"role", "assistant"}, {"content", nullptr}, {"refusal", "I can't help with that."}}},
                                      {"finish_reason", "stop"}}})}}));
  server.enqueue(canned::openai_chat("NOTE: partial\n```cpp\nextern \"C\" void softmax(", {}, "length"));
  server.enqueue(test::transcript("openai", "write_code"));
  server.enqueue(test::transcript("openai", "refine"));
  ASSERT_EQ(run("refusal", test::settings_for(server, "openai:gpt-test"), rounds(1)), search::Search::Outcome::finished);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  const std::string after_refusal = requests[2].json()["messages"].back()["content"];
  EXPECT_NE(after_refusal.find("declined to answer (I can't help with that.)"), std::string::npos) << after_refusal;
  const std::string after_cut = requests[3].json()["messages"].back()["content"];
  EXPECT_NE(after_cut.find("cut off at the output token limit (finish reason length)"), std::string::npos) << after_cut;
  int declined = 0;
  for (const auto& c : model_calls()) declined += c.error.find("declined to answer") != std::string::npos;
  EXPECT_EQ(declined, 1);
  EXPECT_EQ(store->evaluation_count(), 1);
}

// A provider down for good (every call failing after the client's retries) stops the run after three
// requests instead of spending its rounds on empty ones (a resume with --rounds uses them later).
TEST_F(LlmSearch, AnOutageStopsTheRunInsteadOfSpendingItsRounds) {
  server.enqueue(test::transcript("openai", "initialize"));
  server.enqueue(test::transcript("openai", "write_code"));
  server.set_handler([](const RecordedRequest&) { return error_for(llm::Provider::OpenAIChat, 503, "down for maintenance"); });
  const auto settings = test::settings_for(server, "openai:gpt-test");
  ASSERT_EQ(run("outage", settings, rounds(20)), search::Search::Outcome::finished);
  auto s = search::summarize(*store);
  EXPECT_NE(s.stop_reason.find("answered none of 9 attempts in a row (last error: "), std::string::npos) << s.stop_reason;
  EXPECT_NE(s.stop_reason.find("down for maintenance"), std::string::npos) << s.stop_reason;
  EXPECT_LE(s.rounds, 4) << "rounds are not spent on an outage";
  EXPECT_EQ(server.request_count(), 2u + 9u * 2u);  // 9 failed calls, two HTTP attempts each
  ASSERT_TRUE(s.has_best);
  EXPECT_EQ(store->evaluation_count(), 1);
}

// With --parallel 3 an attempt is three calls: the patience is counted in attempts, not calls.
TEST_F(LlmSearch, AnOutageWithParallelCandidatesGetsAsManyAttempts) {
  server.enqueue(test::transcript("openai", "initialize"));
  server.set_handler([](const RecordedRequest&) { return error_for(llm::Provider::OpenAIChat, 503, "down for maintenance"); });
  auto options = rounds(20, 3);
  options.proposer_concurrency = 1;
  ASSERT_EQ(run("outage-parallel", test::settings_for(server, "openai:gpt-test"), options), search::Search::Outcome::finished);
  const auto s = search::summarize(*store);
  EXPECT_NE(s.stop_reason.find("answered none of 9 attempts in a row"), std::string::npos) << s.stop_reason;
  int failed = 0;
  for (const auto& c : model_calls()) failed += c.error.find("down for maintenance") != std::string::npos;
  EXPECT_EQ(failed, 9 * 3);
}

TEST_F(LlmSearch, BudgetExhaustionStopsCleanlyWithTheBestKept) {
  server.enqueue(test::transcript("gemini", "initialize"));
  server.enqueue(test::transcript("gemini", "write_code"));
  server.enqueue(test::transcript("gemini", "write_code_b"));
  auto settings = test::settings_for(server, "gemini:gemini-test");
  settings.budget.max_calls = 3;
  ASSERT_EQ(run("budget", settings, rounds(10)), search::Search::Outcome::finished);
  const auto s = search::summarize(*store);
  EXPECT_EQ(s.phase, "done");
  EXPECT_NE(s.stop_reason.find("max 3 calls"), std::string::npos) << s.stop_reason;
  EXPECT_EQ(s.rounds, 2);
  ASSERT_TRUE(s.has_best);
  EXPECT_EQ(s.held_out_passed, std::optional<bool>(true));
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(model_calls().size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "best.cpp"));
  // The budget holds over sessions: a proposer rebuilt on resume counts the stored calls.
  auto resumed = proposers::make_proposer({"llm", settings.to_json()}, {&task, backend.get(), &*store});
  EXPECT_NE(resumed->stop_reason().find("max 3 calls"), std::string::npos);
  settings.budget.max_calls = 4;
  EXPECT_EQ(proposers::make_proposer({"llm", settings.to_json()}, {&task, backend.get(), &*store})->stop_reason(), "");
}

TEST_F(LlmSearch, InvalidWorldModelEditScriptAndRuleViolationsAreReAskedWithTheErrors) {
  const auto u = llm::testing::usage(1000, 300);
  for (const char* name : {"initialize_invalid", "initialize", "write_code_forbidden", "write_code", "refine_invalid", "refine"})
    server.enqueue(canned::openai_responses(test::answer(name), u));
  ASSERT_EQ(run("reask", test::settings_for(server, "openai-responses:gpt-test"), rounds(1)), search::Search::Outcome::finished);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 6u);
  // Each re-ask continues the conversation: the rejected answer, then the errors.
  auto input = [&](size_t i) { return requests[i].json()["input"]; };
  EXPECT_EQ(input(1).size(), 3u);
  EXPECT_NE(input(1)[2]["content"].dump().find("parent n9 does not exist"), std::string::npos);
  EXPECT_NE(input(3)[2]["content"].dump().find("threads-outside-openmp"), std::string::npos);
  EXPECT_NE(input(5)[2]["content"].dump().find("parent_id n7 does not exist"), std::string::npos);
  // The rule violation cost no evaluation (and no compile).
  EXPECT_EQ(store->evaluation_count(), 1);
  EXPECT_EQ(store->candidates().size(), 1u);
  const auto s = search::summarize(*store);
  ASSERT_TRUE(s.has_best);
  int rejected = 0;
  for (const auto& c : model_calls()) rejected += c.error.starts_with("answer rejected");
  EXPECT_EQ(rejected, 3);
}


// --parallel 3 with a model answering in a second: with three calls allowed, rounds for different
// hypotheses are written at the same time; with one, a round's conversations overlap (one prompt)
// but the next round is asked for only after it.
TEST_F(LlmSearch, SeveralCallsWriteRoundsAtOnce) {
  for (const int concurrency : {3, 1}) {
    SCOPED_TRACE(concurrency);
    auto model = std::make_shared<test::SlowModel>(1.0);
    server.set_handler([model](const RecordedRequest& r) { return (*model)(r); });
    auto options = rounds(3, 3);
    options.proposer_concurrency = concurrency;
    ASSERT_EQ(run(fmt::format("calls-{}", concurrency), test::settings_for(server, "openai:gpt-test"), options), search::Search::Outcome::finished);
    const auto s = search::summarize(*store);
    EXPECT_EQ(s.rounds, 3);
    EXPECT_TRUE(s.has_best);
    if (concurrency > 1)
      EXPECT_GE(model->most_prompts(), 2) << "rounds written at once";
    else
      EXPECT_EQ(model->most_prompts(), 1);
    store.reset();
    std::filesystem::remove_all(dir);
  }
}
