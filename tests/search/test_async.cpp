// The asynchronous loop, with an executor whose answers the test schedules (the point is ordering,
// not evaluation): results are observed and new rounds proposed while a slow evaluation is still
// out, and the world model spreads concurrent rounds over its hypotheses.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "executors/executor.hpp"
#include "helpers.hpp"
#include "search/search.hpp"

using namespace ksearch;
using namespace ksearch::search;
using namespace ksearch::proposers;
using nlohmann::json;

namespace {

// Answers every evaluation with a passing report at once, except that it holds back sources
// containing "SLOW" until `release_after` other evaluations were collected, and answers nothing
// before `start_after` submissions. A loop that would wait for a held evaluation still ends: each
// hold gives way after 5 s.
class ScheduledExecutor : public executors::Executor {
 public:
  explicit ScheduledExecutor(const json& config)
      : capacity_(config.value("capacity", 2)), release_after_(config.value("release_after", 0)), start_after_(config.value("start_after", 0)) {}

  std::string name() const override { return "scheduled"; }
  int capacity() const override { return capacity_; }
  int outstanding() const override { return int(ready_.size() + held_.size()); }
  std::string submit(const executors::Submission& s) override {
    if (++submitted_ == 1) since_ = std::chrono::steady_clock::now();
    (s.source.find("SLOW") != std::string::npos ? held_ : ready_).push_back(s);
    return "";
  }
  bool attach(const executors::Submission&, const std::string&) override { return false; }
  std::vector<executors::Completion> collect(std::chrono::milliseconds timeout) override {
    std::vector<executors::Completion> done;
    const bool gave_way = std::chrono::steady_clock::now() - since_ > std::chrono::seconds(5);
    if (submitted_ >= start_after_ || gave_way) {
      for (const auto& s : ready_) done.push_back(passed(s));
      ready_.clear();
      delivered_ += int(done.size());
      if (done.empty() && !held_.empty() && (delivered_ >= release_after_ || gave_way)) {
        done.push_back(passed(held_.front()));
        held_.pop_front();
      }
    }
    if (done.empty()) std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(10)));
    return done;
  }
  void cancel_all() override {
    ready_.clear();
    held_.clear();
  }

 private:
  static executors::Completion passed(const executors::Submission& s) {
    executors::Completion c;
    c.candidate = s.candidate;
    c.report.status = Status::passed;
    c.report.speedup_vs_seed = 1.0 + 0.01 * double(s.candidate);
    c.report.message = "scheduled";
    return c;
  }

  int capacity_, release_after_, start_after_;
  int submitted_ = 0, delivered_ = 0;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
  std::deque<executors::Submission> ready_, held_;
};

KSEARCH_REGISTER_EXECUTOR("scheduled", scheduled, [](const executors::ExecutorEnv&, const json& config) -> std::unique_ptr<executors::Executor> {
  return std::make_unique<ScheduledExecutor>(config);
});

// Plans round after round and logs what it plans and observes.
class LoggingStrategy : public Strategy {
 public:
  std::vector<std::string> log;
  std::string name() const override { return "logging"; }
  bool init(Context&) override { return true; }
  Plan next(Context&) override {
    ++planned_;
    log.push_back("plan " + std::to_string(planned_));
    CodeRequest request;
    request.node_id = "p" + std::to_string(planned_);
    request.action = {{"title", "round " + std::to_string(planned_)}};
    return Plan::code(request, planned_);
  }
  void observe(Context&, const Observation& obs) override { log.push_back("observe " + std::to_string(obs.round)); }
  json snapshot() const override { return {{"planned", planned_}}; }
  void restore(const json& s) override { planned_ = s.at("planned").get<int>(); }

 private:
  int planned_ = 0;
};

// Writes one tiny kernel per request; the first one is slow to evaluate ("SLOW").
class TinyProposer : public Proposer {
 public:
  std::string name() const override { return "tiny"; }
  std::optional<Answer<CodeReply>> write_code(const CodeRequest& r) override {
    const int n = std::stoi(r.node_id.substr(1));
    CodeReply reply;
    reply.candidates.push_back({test::tiny_source(1 + n % 4, 1024 << (n % 3)) + (n == 1 ? "// SLOW\n" : ""), "", json::object()});
    return Answer<CodeReply>{reply, {}};
  }
};

struct Async : test::RunFixture {
  void SetUp() override { open(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  static size_t at(const std::vector<std::string>& log, const std::string& entry) {
    const auto it = std::find(log.begin(), log.end(), entry);
    EXPECT_NE(it, log.end()) << entry;
    return size_t(it - log.begin());
  }
};

}  // namespace

TEST_F(Async, ResultsAreObservedAndNewRoundsProposedWhileASlowEvaluationIsOut) {
  LoggingStrategy strategy;
  TinyProposer proposer;
  SearchOptions o;
  o.rounds = 6;
  o.finalists = 0;
  // Two in flight; round 1's evaluation comes back only after three others were collected.
  Search search(*store, task, *backend, proposer, strategy, o, nullptr, {"scheduled", {{"capacity", 2}, {"release_after", 3}}});
  ASSERT_EQ(search.run(), Search::Outcome::finished);

  const auto& log = strategy.log;
  const size_t slow_observed = at(log, "observe 1");
  for (const std::string entry : {"observe 2", "observe 3", "observe 4", "plan 3", "plan 4", "plan 5"})
    EXPECT_LT(at(log, entry), slow_observed) << entry << " came after round 1 returned";
  EXPECT_EQ(std::count_if(log.begin(), log.end(), [](const auto& e) { return e.rfind("observe", 0) == 0; }), 6);
  const auto s = summarize(*store);
  EXPECT_EQ(s.rounds, 6);
  EXPECT_EQ(s.evaluations, 6);
  for (const auto& c : store->candidates()) EXPECT_EQ(c.round, c.id) << "one candidate per round, numbered by the round written";
  EXPECT_EQ(LoopState::from_json(*store->load_state()).in_flight.size(), 0u);
}

// Three rounds in flight at once: the world model's selection counts pending evaluations against
// their nodes, so they do not all go to the top hypothesis (without the penalty, they would).
TEST_F(Async, TheWorldModelSpreadsConcurrentRoundsOverHypotheses) {
  auto first_rounds = [&](double pending_penalty) {
    class Planner3 : public Proposer, public Planner {
     public:
      std::string name() const override { return "planner3"; }
      Planner* planner() override { return this; }
      std::optional<Answer<InitializeReply>> initialize(const InitializeRequest&) override {
        json nodes = json::array({{{"node_id", "n0"}, {"decision", "baseline"}, {"choice", "seed"}}});
        int k = 0;
        for (const auto& [id, score] : std::vector<std::pair<std::string, double>>{{"good", 0.9}, {"bad", 0.8}, {"flat", 0.1}})
          nodes.push_back({{"node_id", id}, {"parent_id", "n0"}, {"decision", "d"}, {"choice", id},
                           {"action", {{"title", "try " + id}, {"difficulty_1_to_5", 2}, {"score_0_to_1", score}}}, {"payload", {{"k", ++k}}}});
        return Answer<InitializeReply>{{json{{"kernel_summary", "tiny"}, {"decision_tree", {{"root_id", "n0"}, {"nodes", nodes}}}}}, {}};
      }
      std::optional<Answer<ProposeReply>> propose(const ProposeRequest&) override { return Answer<ProposeReply>{{}, {}}; }
      std::optional<Answer<RefineReply>> refine(const RefineRequest&) override { return Answer<RefineReply>{{}, {}}; }
      std::optional<Answer<CodeReply>> write_code(const CodeRequest& r) override {
        CodeReply reply;
        reply.candidates.push_back({test::tiny_source(1 + int(++written % 4), 1024 << (written % 3)), "", json::object()});
        return Answer<CodeReply>{reply, {}};
      }
      int written = 0;
    } proposer;
    open(fmt::format("spread-{}", pending_penalty));
    auto strategy = make_strategy({"world_model", {{"exploration", 0}, {"pending_penalty", pending_penalty}}}, {});
    SearchOptions o;
    o.rounds = 3;
    o.finalists = 0;
    Search search(*store, task, *backend, proposer, *strategy, o, nullptr, {"scheduled", {{"capacity", 3}, {"start_after", 3}}});
    EXPECT_EQ(search.run(), Search::Outcome::finished);
    std::vector<std::string> nodes;
    for (const auto& c : store->candidates()) nodes.push_back(c.node_id);
    return nodes;
  };
  // good 0.9 - 0.5 pending < bad 0.8; then good 0.4 > bad 0.3 > flat 0.1.
  EXPECT_EQ(first_rounds(0.5), (std::vector<std::string>{"good", "bad", "good"}));
  EXPECT_EQ(first_rounds(0.0), (std::vector<std::string>{"good", "good", "good"}));
}
