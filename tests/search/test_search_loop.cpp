// The search loop with a scripted proposer on the tiny task: cycles, stagnation, too-hard marking,
// duplicate sources, proposer failures, and a proposer that leaves requests pending (agent mode).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "backends/backend.hpp"
#include "evaluator/retime.hpp"
#include "helpers.hpp"
#include "proposers/world_model.hpp"
#include "search/search.hpp"

using ksearch::evaluator::RetimeResult;

using namespace ksearch;
using namespace ksearch::search;
using namespace ksearch::proposers;
using nlohmann::json;

namespace {

json node(const std::string& id, double score) {
  return {{"node_id", id}, {"parent_id", "n0"}, {"decision", "d"}, {"choice", id},
          {"action", {{"title", "try " + id}, {"difficulty_1_to_5", 2}, {"score_0_to_1", score}}}};
}

// Answers from per-node scripts: round k of a cycle on node N returns script[N](k).
class ScriptedProposer : public Proposer, public Planner {
 public:
  std::map<std::string, std::function<CodeReply(const CodeRequest&)>> scripts;
  std::vector<CodeRequest> code_requests;
  std::vector<RefineRequest> refine_requests;
  bool pend_code = false;   // leave write_code requests unanswered
  int throw_code = 0;       // fail this many write_code calls

  std::string name() const override { return "scripted"; }
  Planner* planner() override { return this; }
  std::optional<Answer<InitializeReply>> initialize(const InitializeRequest&) override {
    json nodes = json::array({{{"node_id", "n0"}, {"decision", "baseline"}, {"choice", "seed"}}});
    for (const json& n : {node("good", 0.9), node("bad", 0.8), node("flat", 0.1)}) nodes.push_back(n);
    json m = {{"kernel_summary", "tiny"}, {"decision_tree", {{"root_id", "n0"}, {"nodes", nodes}}}};
    return Answer<InitializeReply>{{m}, {}};
  }
  std::optional<Answer<ProposeReply>> propose(const ProposeRequest&) override { return Answer<ProposeReply>{{}, {}}; }
  std::optional<Answer<CodeReply>> write_code(const CodeRequest& r) override {
    if (throw_code > 0) {
      --throw_code;
      throw std::runtime_error("model API unavailable");
    }
    if (pend_code) return std::nullopt;
    code_requests.push_back(r);
    return Answer<CodeReply>{scripts.at(r.node_id)(r), {{"m", "prompt", "response", 10, 5, 0.001, 0.1, ""}}};
  }
  std::optional<Answer<RefineReply>> refine(const RefineRequest& r) override {
    refine_requests.push_back(r);
    RefineReply reply;
    reply.reflection = "noted";
    return Answer<RefineReply>{reply, {}};
  }
};

CodeReply one(const std::string& source, bool exhausted = false) {
  CodeReply r;
  r.candidates.push_back({source, "", json::object()});
  r.exhausted = exhausted;
  return r;
}

struct Fixture : test::RunFixture {};

}  // namespace

TEST_F(Fixture, CyclesStagnationTooHardAndDuplicates) {
  open("cycles");
  ScriptedProposer p;
  // good: a passing kernel, then only slower ones -> the cycle ends after `stagnation_window`
  // rounds without improvement; its second slower candidate repeats the first (reused, not re-run).
  p.scripts["good"] = [](const CodeRequest& r) {
    return one(r.round_in_cycle == 0 ? test::tiny_source(2) : test::tiny_source(8));
  };
  // bad: never compiles -> too hard after its cycle, never selected again.
  p.scripts["bad"] = [](const CodeRequest&) { return one("this is not C++"); };
  p.scripts["flat"] = [](const CodeRequest&) { return one(test::tiny_source(1), true); };
  SearchOptions o;
  o.rounds = 6;
  o.finalists = 2;
  o.retime_rounds = 2;
  // exploration 0: deterministic order good, bad, flat
  auto strategy = make_strategy({"world_model", {{"stagnation_window", 2}, {"exploration", 0}}}, {});
  Search search(*store, task, *backend, p, *strategy, o);
  ASSERT_EQ(search.run(), Search::Outcome::finished);

  // good: 3 rounds (1 improving + 2 stagnant), bad: 2 rounds, flat: 1 round (exhausted).
  ASSERT_EQ(p.code_requests.size(), 6u);
  EXPECT_EQ(p.code_requests[0].mode, "debug");
  EXPECT_EQ(p.code_requests[1].mode, "improve");
  EXPECT_EQ(p.code_requests[1].feedback.back().status, "passed");
  EXPECT_EQ(p.code_requests[1].parent_candidate, 1);  // the cycle's best is the known-good code
  EXPECT_EQ(p.code_requests[3].node_id, "bad");
  EXPECT_EQ(p.code_requests[4].feedback.back().status, "compile_error");
  EXPECT_FALSE(p.code_requests[4].feedback.back().log_excerpt.empty());
  EXPECT_EQ(p.code_requests[5].node_id, "flat");

  const auto cs = store->candidates();
  ASSERT_EQ(cs.size(), 6u);
  EXPECT_EQ(cs[2].reused_from, cs[1].id);  // same source: result reused
  EXPECT_EQ(cs[4].reused_from, cs[3].id);  // bad's identical broken source is not compiled again
  EXPECT_EQ(store->evaluation_count(), 4);

  const auto m = world_model::WorldModel::from_json(*store->latest_world_model());
  EXPECT_EQ(m.find("good")->solution->candidate_id, "c1");
  EXPECT_TRUE(m.find("bad")->too_hard);
  EXPECT_DOUBLE_EQ(m.find("bad")->action->score_0_to_1, 0.4);
  EXPECT_NE(m.find("good")->notes.find("reflection: noted"), std::string::npos);
  ASSERT_EQ(p.refine_requests.size(), 3u);
  EXPECT_TRUE(p.refine_requests[0].cycle.passed);
  EXPECT_FALSE(p.refine_requests[1].cycle.passed);

  const auto s = summarize(*store);
  EXPECT_EQ(s.rounds, 6);
  EXPECT_TRUE(s.best_candidate == 6 || s.best_candidate == 1);  // PASSES=1 or 2, never the slower PASSES=8
  EXPECT_GT(s.best_speedup, 1.5);
  ASSERT_TRUE(s.held_out_passed);
  EXPECT_TRUE(*s.held_out_passed);
  EXPECT_EQ(store->calls().size(), 1u + 6 + 3);  // initialize, write_code x6, refine x3
}

TEST_F(Fixture, ProposerFailuresCostARoundNotEvaluations) {
  open("failures");
  ScriptedProposer p;
  p.throw_code = 3;  // the first write_code fails 3 times (1 try + 2 retries)
  p.scripts["good"] = [](const CodeRequest&) { return one(test::tiny_source(2), true); };
  p.scripts["bad"] = p.scripts["flat"] = p.scripts["good"];
  SearchOptions o;
  o.rounds = 2;
  o.finalists = 0;
  auto strategy = make_strategy({"world_model", {{"exploration", 0}}}, {});
  Search search(*store, task, *backend, p, *strategy, o);
  ASSERT_EQ(search.run(), Search::Outcome::finished);
  int errors = 0;
  for (const auto& c : store->calls()) errors += !c.error.empty();
  EXPECT_EQ(errors, 3);
  EXPECT_EQ(summarize(*store).rounds, 2);
  EXPECT_EQ(store->candidates().size(), 1u);  // the round after the failure
}

TEST_F(Fixture, PendingRequestsWaitForAnAnswer) {
  open("agent");
  ScriptedProposer p;
  p.pend_code = true;
  SearchOptions o;
  o.rounds = 1;
  o.finalists = 0;
  const StrategySpec spec{"world_model", {{"exploration", 0}}};
  {
    auto strategy = make_strategy(spec, {});
    Search search(*store, task, *backend, p, *strategy, o);
    ASSERT_EQ(search.run(), Search::Outcome::waiting);
  }
  auto pending = store->pending();
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->role, "write_code");
  const auto request = CodeRequest::from_json(pending->request);
  EXPECT_EQ(request.node_id, "good");
  EXPECT_FALSE(request.task.seed_source.empty());
  EXPECT_TRUE(request.task.workloads.size() == 1u);  // held-out workloads are never shown
  // Asking again (e.g. `ksearch resume` before an answer) keeps the same request pending.
  {
    auto strategy = make_strategy(spec, {});
    Search search(*store, task, *backend, p, *strategy, o);
    ASSERT_EQ(search.run(), Search::Outcome::waiting);
    EXPECT_EQ(store->pending()->seq, pending->seq);
  }
  store->answer_pending(pending->seq, one(test::tiny_source(1), true).to_json());
  auto strategy = make_strategy(spec, {});
  Search search(*store, task, *backend, p, *strategy, o);
  ASSERT_EQ(search.run(), Search::Outcome::finished);
  EXPECT_TRUE(p.code_requests.empty());  // the submitted answer was used
  const auto s = summarize(*store);
  EXPECT_EQ(s.evaluations, 1);
  EXPECT_TRUE(s.has_best);
  EXPECT_FALSE(store->pending());
}

TEST_F(Fixture, FinalistsAreReTimedAgainstTheSeedAndTheBestChosenFromThem) {
  open("retime");
  ScriptedProposer p;
  p.scripts["good"] = [](const CodeRequest& r) { return one(test::tiny_source(r.round_in_cycle == 0 ? 2 : 16), r.round_in_cycle == 1); };
  p.scripts["bad"] = [](const CodeRequest&) { return one(test::tiny_source(1, 1024), true); };
  p.scripts["flat"] = [](const CodeRequest&) { return one(test::tiny_source(8), true); };
  SearchOptions o;
  o.rounds = 3;
  o.finalists = 2;
  o.retime_rounds = 3;
  auto strategy = make_strategy({"world_model", {{"exploration", 0}}}, {});
  Search search(*store, task, *backend, p, *strategy, o);
  ASSERT_EQ(search.run(), Search::Outcome::finished);

  // The two fastest of c1 (2 passes), c2 (16 passes: far enough behind to stay last on a busy 2-core
  // machine, where 4 once read faster than 2), c3 (1 pass), with the seed, in 3 rounds.
  const auto state = LoopState::from_json(*store->load_state());
  ASSERT_EQ(state.finalists.size(), 2u);
  EXPECT_EQ(std::set<int64_t>(state.finalists.begin(), state.finalists.end()), (std::set<int64_t>{1, 3}));
  const auto rows = store->retimings();
  ASSERT_EQ(rows.size(), 9u);
  std::map<int64_t, int> per_candidate;
  for (const auto& r : rows) {
    per_candidate[r.candidate]++;
    EXPECT_EQ(r.status, "passed");
  }
  EXPECT_EQ(per_candidate, (std::map<int64_t, int>{{0, 3}, {1, 3}, {3, 3}}));
  const RetimeResult retimed = RetimeResult::from_json(state.retiming);
  ASSERT_NE(retimed.best(), nullptr);
  EXPECT_EQ(retimed.rounds, 3);
  EXPECT_EQ(retimed.best()->speedup.samples, 3);
  EXPECT_LE(retimed.best()->speedup.low, retimed.best()->speedup.estimate);
  EXPECT_GE(retimed.best()->speedup.high, retimed.best()->speedup.estimate);
  // The verdict follows the re-timing (its best passes the held-out workloads here), and says so.
  ASSERT_TRUE(state.verdict);
  EXPECT_EQ(state.verdict->candidate, retimed.best()->id);
  const auto s = summarize(*store);
  EXPECT_EQ(s.best_candidate, retimed.best()->id);
  ASSERT_TRUE(s.best_retimed);
  EXPECT_DOUBLE_EQ(s.best_retimed->estimate, retimed.best()->speedup.estimate);
  ASSERT_FALSE(s.retime_lines.empty());
  EXPECT_NE(s.retime_lines[0].find("re-timed against the seed in 3 interleaved rounds"), std::string::npos) << s.retime_lines[0];
  EXPECT_TRUE(s.to_json()["best"].contains("retimed_speedup_vs_seed"));
}

TEST_F(Fixture, AResumedReTimingKeepsItsStoredMeasurements) {
  open("retime-resume");
  ScriptedProposer p;
  p.scripts["good"] = [](const CodeRequest&) { return one(test::tiny_source(2), true); };
  p.scripts["bad"] = p.scripts["flat"] = p.scripts["good"];
  SearchOptions o;
  o.rounds = 1;
  o.finalists = 1;
  o.retime_rounds = 2;
  const StrategySpec spec{"world_model", {{"exploration", 0}}};
  {
    auto strategy = make_strategy(spec, {});
    ASSERT_EQ(Search(*store, task, *backend, p, *strategy, o).run(), Search::Outcome::finished);
  }
  // As if killed during the re-timing after its first round: that round's rows are kept as stored.
  auto state = LoopState::from_json(*store->load_state());
  state.phase = Phase::retime;
  state.retiming = nullptr;
  state.verdict.reset();
  const auto first = store->retimings();
  ASSERT_EQ(first.size(), 4u);
  store->clear_retimings();
  for (const auto& r : first)
    if (r.round == 0) store->record_retiming(r);
  store->save_state(state.to_json());
  auto strategy = make_strategy(spec, {});
  ASSERT_EQ(Search(*store, task, *backend, p, *strategy, o).run(), Search::Outcome::finished);
  const auto after = store->retimings();
  ASSERT_EQ(after.size(), 4u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after[i].round, 0);
    EXPECT_EQ(after[i].report, first[i].report);  // not measured again
    EXPECT_DOUBLE_EQ(after[i].created_at, first[i].created_at);
  }
  EXPECT_EQ(after[2].round, 1);
  EXPECT_EQ(summarize(*store).phase, "done");
}

TEST_F(Fixture, TheTimeBudgetStopsInsideARound) {
  open("minutes");
  ScriptedProposer p;
  // Six distinct slow kernels in one round (a call takes most of a second, timings are one at a time):
  // the 3 s budget runs out before the round's last evaluations, which are recorded as not run instead
  // of taking their time, even with every build cached from an earlier run of the suite.
  p.scripts["good"] = [](const CodeRequest&) {
    CodeReply r;
    for (int i = 0; i < 6; ++i) r.candidates.push_back({test::tiny_source(200 + i), "", json::object()});
    return r;
  };
  p.scripts["bad"] = p.scripts["flat"] = p.scripts["good"];
  SearchOptions o;
  o.rounds = 5;
  o.parallel = 6;
  o.minutes = 3.0 / 60;
  o.finalists = 0;
  auto strategy = make_strategy({"world_model", {{"exploration", 0}}}, {});
  Search search(*store, task, *backend, p, *strategy, o);
  ASSERT_EQ(search.run(), Search::Outcome::finished);

  const auto s = summarize(*store);
  EXPECT_EQ(s.stop_reason, "time budget reached");
  EXPECT_GE(s.rounds, 1);  // a place freed before the budget ran out is filled with another round
  const auto cs = store->candidates();
  ASSERT_GE(cs.size(), 6u);
  int not_run = 0, evaluated = 0;
  std::map<std::string, int> observed;  // per node: candidates with a result (evaluated or reused)
  for (const auto& c : cs) {
    EXPECT_TRUE(c.evaluated()) << "c" << c.id;  // nothing left pending
    if (c.status == "not_run") {
      ++not_run;
      EXPECT_EQ(c.report.value("message", ""), "not evaluated: the time budget was reached during its round");
      continue;
    }
    observed[c.node_id]++;
    evaluated += !c.reused_from;
  }
  EXPECT_GE(not_run, 1);
  EXPECT_EQ(s.evaluations, evaluated);  // what was evaluated before the budget ran out is kept
  // Candidates left unevaluated are no evidence for the world model.
  const auto m = world_model::WorldModel::from_json(*store->latest_world_model());
  std::set<std::string> proposed_for;
  for (const auto& c : cs) proposed_for.insert(c.node_id);
  for (const auto& n : m.nodes) {
    if (n.node_id == m.root_id) continue;
    EXPECT_EQ(n.attempts, observed[n.node_id]) << n.node_id;
    // A cycle the budget cut off before any of its candidates came back leaves its node open, not too hard.
    if (proposed_for.count(n.node_id) && !observed[n.node_id]) {
      EXPECT_FALSE(n.too_hard) << n.node_id;
      EXPECT_NE(n.notes.find("left open"), std::string::npos) << n.notes;
    }
  }
  // Their sources are no result to reuse: proposed again, they would be evaluated.
  for (const auto& c : cs)
    if (c.status == "not_run") EXPECT_FALSE(store->evaluated_by_hash(c.source_hash));
}
