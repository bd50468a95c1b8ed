// Price table, cost per call, budget tracker.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_util.hpp"

using namespace ksearch::llm;
using namespace ksearch::llm::testing;

namespace {
const std::filesystem::path kBuiltinPrices = std::filesystem::path(KSEARCH_CONFIG_DIR) / "prices.toml";
}  // namespace

TEST(Prices, DefaultTableLoads) {
  PriceTable t = PriceTable::load_default(kBuiltinPrices);
  EXPECT_GT(t.size(), 0u);
  for (auto [provider, model] : std::vector<std::pair<std::string, std::string>>{
           {"openai", "gpt-5"}, {"anthropic", "claude-sonnet-4-5"}, {"gemini", "gemini-2.5-pro"}}) {
    auto p = t.find(provider, model);
    ASSERT_TRUE(p.has_value()) << provider << ":" << model;
    EXPECT_GT(p->input, 0);
    EXPECT_GT(p->output, p->input);
    EXPECT_LE(p->cached_input, p->input);
  }
}

TEST(Prices, CostFormula) {
  PriceTable t;
  t.set("anthropic", "m", {3.0, 15.0, 0.3, 3.75});
  // 1M input of which 600k cache reads and 100k cache writes; 200k output.
  Usage u = usage(1'000'000, 200'000, 600'000, 0, 100'000);
  CostEstimate c = t.cost("anthropic", "m", u);
  EXPECT_TRUE(c.known);
  EXPECT_NEAR(c.usd, 300'000 * 3.0 / 1e6 + 600'000 * 0.3 / 1e6 + 100'000 * 3.75 / 1e6 + 200'000 * 15.0 / 1e6, 1e-9);
  EXPECT_FALSE(t.cost("anthropic", "other", u).known);
  EXPECT_EQ(t.cost("anthropic", "other", u).usd, 0);
}

TEST(Prices, SnapshotSuffixesOnly) {
  PriceTable t;
  t.set("openai", "o3", {2, 8, 0.5, 2});
  t.set("openai", "gpt-4o", {2.5, 10, 1.25, 2.5});
  EXPECT_TRUE(t.find("openai", "o3-2025-04-16").has_value());
  EXPECT_TRUE(t.find("openai", "gpt-4o-2024-08-06").has_value());
  EXPECT_TRUE(t.find("openai", "o3-latest").has_value());
  EXPECT_FALSE(t.find("openai", "o3-pro").has_value());
  EXPECT_FALSE(t.find("openai", "gpt-4o-mini").has_value());
  // Provider aliases fall back to the openai table.
  EXPECT_TRUE(t.find("openai-responses", "o3").has_value());
  EXPECT_TRUE(t.find("openai-compatible", "o3").has_value());
  EXPECT_FALSE(t.find("anthropic", "o3").has_value());
}

TEST(Prices, UserOverrideMergesOverDefaults) {
  auto path = std::filesystem::temp_directory_path() / ("ksearch_prices_" + std::to_string(getpid()) + ".toml");
  {
    std::ofstream f(path);
    f << "[openai.\"gpt-5\"]\ninput = 9.0\noutput = 99.0\n\n"
         "[openai-compatible.\"my-vllm-model\"]\ninput = 0.01\noutput = 0.02\n";
  }
  PriceTable t = PriceTable::load_default(kBuiltinPrices, path);
  std::filesystem::remove(path);
  auto gpt5 = t.find("openai", "gpt-5");
  ASSERT_TRUE(gpt5);
  EXPECT_DOUBLE_EQ(gpt5->input, 9.0);
  EXPECT_DOUBLE_EQ(gpt5->output, 99.0);
  EXPECT_DOUBLE_EQ(gpt5->cached_input, 9.0);  // not given: input price
  ASSERT_TRUE(t.find("openai-compatible", "my-vllm-model"));
  // Untouched defaults survive.
  ASSERT_TRUE(t.find("anthropic", "claude-sonnet-4-5"));
  EXPECT_DOUBLE_EQ(t.find("anthropic", "claude-sonnet-4-5")->input, 3.0);
}

TEST(Prices, BadFilesAreConfigErrors) {
  PriceTable t;
  try {
    t.merge_string("[openai.\"x\"]\ninput = 1.0\n", "test");
    FAIL();
  } catch (const LlmError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Config);
  }
  EXPECT_THROW(t.merge_string("[openai.\"x\"]\ninput = \"cheap\"\noutput = 1\n"), LlmError);
  EXPECT_THROW(t.merge_string("this is = = not toml"), LlmError);
  EXPECT_THROW(t.merge_file("/nonexistent/prices.toml"), LlmError);
}

TEST(Budget, MaxCallsStopsCleanly) {
  ScriptedServer server;
  server.set_handler([](const RecordedRequest&) { return canned::openai_chat("x", usage(10, 10)); });
  auto budget = std::make_shared<BudgetTracker>(BudgetLimits{std::nullopt, std::nullopt, 2});
  std::vector<CallRecord> records;
  auto client = make_client(config_for(server, "openai:gpt-5"), nullptr, budget,
                            [&](const CallRecord& r) { records.push_back(r); });
  client->complete(simple_request());
  client->complete(simple_request());
  EXPECT_TRUE(budget->exceeded().has_value());
  EXPECT_THROW(budget->check(), BudgetExceeded);
  try {
    client->complete(simple_request());
    FAIL() << "expected BudgetExceeded";
  } catch (const BudgetExceeded& e) {
    EXPECT_EQ(e.category(), ErrorCategory::Budget);
  }
  EXPECT_EQ(server.request_count(), 2u);
  EXPECT_EQ(budget->snapshot().calls, 2);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].error_category, ErrorCategory::Budget);
}

TEST(Budget, MaxUsdFromRealCosts) {
  ScriptedServer server;
  server.set_handler([](const RecordedRequest&) { return canned::openai_chat("x", usage(100'000, 10'000)); });
  auto prices = std::make_shared<PriceTable>();
  prices->set("openai", "gpt-5", {1.25, 10.0, 0.125, 1.25});  // $0.225 per call here
  auto budget = std::make_shared<BudgetTracker>(BudgetLimits{0.5, std::nullopt, std::nullopt});
  auto client = make_client(config_for(server, "openai:gpt-5"), prices, budget);
  int made = 0;
  try {
    for (int i = 0; i < 10; ++i) {
      client->complete(simple_request());
      ++made;
    }
  } catch (const BudgetExceeded&) {
  }
  EXPECT_EQ(made, 3);  // 0.225, 0.45 (< 0.5: allowed), 0.675 -> stop
  BudgetSnapshot s = budget->snapshot();
  EXPECT_NEAR(s.usd, 3 * 0.225, 1e-9);
  EXPECT_EQ(s.tokens, 3 * 110'000);
  EXPECT_EQ(s.usage.input_tokens, 300'000);
}

TEST(Budget, MaxTokens) {
  BudgetTracker b(BudgetLimits{std::nullopt, 1000, std::nullopt});
  b.reserve_call();
  b.record(usage(600, 300), 0);
  EXPECT_NO_THROW(b.check());
  b.reserve_call();
  b.record(usage(50, 50), 0);
  EXPECT_THROW(b.check(), BudgetExceeded);
  EXPECT_THROW(b.reserve_call(), BudgetExceeded);
  EXPECT_EQ(b.snapshot().calls, 2);
}

TEST(Budget, ConcurrentReservationsNeverOvershootMaxCalls) {
  BudgetTracker b(BudgetLimits{std::nullopt, std::nullopt, 50});
  std::atomic<int> granted{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        try {
          b.reserve_call();
          b.record(usage(1, 1), 0.001);
          ++granted;
        } catch (const BudgetExceeded&) {
          ++refused;
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(granted.load(), 50);
  EXPECT_EQ(refused.load(), 160 - 50);
  BudgetSnapshot s = b.snapshot();
  EXPECT_EQ(s.calls, 50);
  EXPECT_EQ(s.tokens, 100);
  EXPECT_NEAR(s.usd, 0.05, 1e-9);
}
