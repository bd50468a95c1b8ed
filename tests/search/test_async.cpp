// The asynchronous loop, with an executor whose answers the test schedules (the point is ordering,
// not evaluation): results are observed and new rounds proposed while a slow evaluation is still
// out, the world model spreads concurrent rounds over its hypotheses, several proposer calls write
// rounds at once, and rounds being written when a run died are written once on resume.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
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
  int most_being_written = 0;  // rounds being written that next() saw in pending()
  std::string name() const override { return "logging"; }
  bool init(Context&) override { return true; }
  Plan next(Context& ctx) override {
    const auto pending = ctx.pending();
    most_being_written = std::max(most_being_written, int(std::count_if(pending.begin(), pending.end(), [](const auto& p) { return p.being_written; })));
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

// Writes each round after a pause, from several threads at once when the loop lets it (it declares
// concurrent calls), and counts the calls in flight at the same time.
class SlowConcurrentProposer : public Proposer {
 public:
  std::string name() const override { return "slow"; }
  bool concurrent_calls() const override { return true; }
  std::optional<Answer<CodeReply>> write_code(const CodeRequest& r) override {
    const int now = ++in_flight_;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    {
      std::lock_guard lock(mu_);
      requests.push_back(r);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    --in_flight_;
    const int n = std::stoi(r.node_id.substr(1));
    CodeReply reply;
    for (int i = 0; i < std::max(r.count, 1); ++i) reply.candidates.push_back({test::tiny_source(1 + n, 1024 << i), "", json::object()});
    return Answer<CodeReply>{reply, {}};
  }
  std::atomic<int> most{0};
  std::vector<CodeRequest> requests;  // in the order the calls began

 private:
  std::atomic<int> in_flight_{0};
  std::mutex mu_;
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

// --parallel 3 on three places: with 3 calls allowed, three rounds (three plans, one candidate
// each) are written at once and the strategy sees them pending; with 1, one round takes all three
// places and the next is asked for only once places are free again.
TEST_F(Async, SeveralProposerCallsWriteRoundsAtOnce) {
  auto search_with = [&](int concurrency) {
    open(fmt::format("calls-{}", concurrency));
    LoggingStrategy strategy;
    SlowConcurrentProposer proposer;
    SearchOptions o;
    o.rounds = 6;
    o.parallel = 3;
    o.proposer_concurrency = concurrency;
    o.finalists = 0;
    Search search(*store, task, *backend, proposer, strategy, o, nullptr, {"scheduled", {{"capacity", 3}, {"start_after", 3}}});
    EXPECT_EQ(search.proposer_concurrency(), concurrency);
    EXPECT_EQ(search.run(), Search::Outcome::finished);
    const auto s = summarize(*store);
    EXPECT_EQ(s.rounds, 6);
    EXPECT_EQ(LoopState::from_json(*store->load_state()).writing.size(), 0u);
    std::set<int> rounds;
    for (const auto& c : store->candidates()) rounds.insert(c.round);
    EXPECT_EQ(rounds, (std::set<int>{1, 2, 3, 4, 5, 6})) << "every round planned was written once";
    return std::tuple{proposer.most.load(), proposer.requests.front().count, strategy.most_being_written};
  };
  const auto [most, first_count, seen_pending] = search_with(3);
  EXPECT_GE(most, 2) << "calls overlapped";
  EXPECT_EQ(first_count, 1) << "the three places shared among three calls";
  EXPECT_GE(seen_pending, 1) << "next() saw the rounds being written";
  const auto [most_one, first_count_one, seen_pending_one] = search_with(1);
  EXPECT_EQ(most_one, 1);
  EXPECT_EQ(first_count_one, 3);
  EXPECT_EQ(seen_pending_one, 0);
}

// The default fills the executor's places: one call per --parallel places for a proposer that
// allows concurrent calls, one for the others.
TEST_F(Async, DefaultProposerConcurrencyFillsThePlaces) {
  LoggingStrategy strategy;
  SlowConcurrentProposer concurrent;
  TinyProposer one_at_a_time;
  auto slots = [&](Proposer& proposer, int parallel, int capacity) {
    SearchOptions o;
    o.parallel = parallel;
    return Search(*store, task, *backend, proposer, strategy, o, nullptr, {"scheduled", {{"capacity", capacity}}}).proposer_concurrency();
  };
  EXPECT_EQ(slots(concurrent, 1, 4), 4);
  EXPECT_EQ(slots(concurrent, 2, 4), 2);
  EXPECT_EQ(slots(concurrent, 3, 4), 2);
  EXPECT_EQ(slots(concurrent, 4, 4), 1);
  EXPECT_EQ(slots(one_at_a_time, 1, 4), 1);
}

// A run that died with two rounds being written (the state says so): on resume each is asked for
// again once and stored once, then the search goes on.
TEST_F(Async, RoundsBeingWrittenAtAKillAreWrittenOnceOnResume) {
  LoopState killed;
  killed.phase = Phase::code;
  killed.round = 1;
  killed.planned = 3;
  killed.strategy = "logging";
  killed.strategy_state = {{"planned", 3}};
  for (int id : {2, 3}) {
    CodeRequest r;
    r.node_id = "p" + std::to_string(id);
    r.action = {{"title", "round " + std::to_string(id)}};
    r.count = 1;
    killed.writing.push_back({id, id, r});
  }
  store->save_state(killed.to_json());
  LoggingStrategy strategy;
  SlowConcurrentProposer proposer;
  SearchOptions o;
  o.rounds = 4;
  o.parallel = 1;
  o.proposer_concurrency = 2;
  o.finalists = 0;
  Search search(*store, task, *backend, proposer, strategy, o, nullptr, {"scheduled", {{"capacity", 2}}});
  ASSERT_EQ(search.run(), Search::Outcome::finished);
  std::multiset<std::string> asked, stored;
  for (const auto& r : proposer.requests) asked.insert(r.node_id);
  for (const auto& c : store->candidates()) stored.insert(c.node_id);
  EXPECT_EQ(asked, (std::multiset<std::string>{"p2", "p3", "p4"}));
  EXPECT_EQ(stored, asked) << "each round stored once";
  std::multiset<std::string> first_two{proposer.requests[0].node_id, proposer.requests[1].node_id};
  EXPECT_EQ(first_two, (std::multiset<std::string>{"p2", "p3"})) << "the rounds being written are asked for first";
  EXPECT_EQ(summarize(*store).rounds, 4);
}
