// The loop's typed state: its JSON round trip, and a search interrupted right after an evaluation
// was committed (as by kill -9) that resumes from the stored state and strategy snapshot, making
// exactly the decisions an uninterrupted search makes, with no evaluation lost or repeated.
#include <gtest/gtest.h>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "helpers.hpp"
#include "search/search.hpp"
#include "search/state.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

using namespace ksearch;
using namespace ksearch::search;
using nlohmann::json;

TEST(LoopState, JsonRoundTrip) {
  LoopState s;
  s.phase = Phase::evaluate;
  s.round = 3;
  s.cycle = 2;
  s.elapsed_seconds = 12.5;
  s.stop_reason = "round budget spent";
  proposers::CodeRequest plan;
  plan.node_id = "n4";
  plan.action = {{"title", "tile"}};
  plan.parent_candidate = 2;
  plan.feedback.push_back({});
  s.planned = 5;
  s.writing.push_back({4, 2, plan});
  s.writing.push_back({5, 3, {}});
  s.in_flight.push_back({3, 2, "n4", {{"knobs", {{"TILE", 8}}}}, {5, 6}, true, false});
  s.in_flight.push_back({0, 0, "", nullptr, {1}, false, true});
  s.best = Best{2, 1.8, 0.4, 0.3};
  s.verdict = Verdict{2, true, 1.7, json::array({{{"candidate", 2}}}), json::array(), "note"};
  s.strategy = "annealing";
  s.strategy_state = {{"step", 3}};
  const json j = s.to_json();
  const LoopState back = LoopState::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.phase, Phase::evaluate);
  ASSERT_EQ(back.writing.size(), 2u);
  EXPECT_EQ(back.writing[0].request.node_id, "n4");
  EXPECT_EQ(back.writing[0].id, 4);
  EXPECT_EQ(back.writing[1].cycle, 3);
  EXPECT_EQ(back.planned, 5);
  ASSERT_EQ(back.in_flight.size(), 2u);
  EXPECT_EQ(back.in_flight[0].candidates, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(back.in_flight[0].node_payload["knobs"]["TILE"], 8);
  EXPECT_TRUE(back.in_flight[0].exhausted);
  EXPECT_TRUE(back.in_flight[1].seed);
  EXPECT_EQ(back.best->candidate, 2);
  EXPECT_EQ(back.verdict->held_out_passed, std::optional<bool>(true));
  EXPECT_EQ(back.strategy_state["step"], 3);
  // What older tools read stays where it was.
  EXPECT_EQ(j["phase"], "evaluate");
  EXPECT_EQ(j["final"]["candidate"], 2);

  const LoopState fresh = LoopState::from_json(LoopState{}.to_json());
  EXPECT_FALSE(!fresh.writing.empty() || fresh.best || fresh.verdict);
  EXPECT_THROW(LoopState::from_json({{"phase", "select-ish"}}), Error);

  // A state as older loops stored it: one `plan`, and before in_flight the round under evaluation.
  auto stored_before = [&](const std::string& phase) {
    json j = LoopState{}.to_json();
    for (const char* key : {"in_flight", "writing", "planned"}) j.erase(key);
    j["phase"] = phase;
    j["round"] = 4;
    j["cycle"] = 3;
    j["plan"] = plan.to_json();
    return j;
  };
  // The round-synchronous loop: its round under evaluation becomes the one in flight.
  json old = stored_before("evaluate");
  old["round_candidates"] = {7, 8};
  old["round_exhausted"] = true;
  const LoopState upgraded = LoopState::from_json(old);
  EXPECT_EQ(upgraded.round, 5);  // then: rounds completed; now: rounds written
  EXPECT_TRUE(upgraded.writing.empty());
  ASSERT_EQ(upgraded.in_flight.size(), 1u);
  EXPECT_EQ(upgraded.in_flight[0].round, 5);
  EXPECT_EQ(upgraded.in_flight[0].cycle, 3);
  EXPECT_EQ(upgraded.in_flight[0].node_id, "n4");
  EXPECT_EQ(upgraded.in_flight[0].candidates, (std::vector<int64_t>{7, 8}));
  EXPECT_TRUE(upgraded.in_flight[0].exhausted);
  EXPECT_THROW(LoopState::from_json({{"round", 1}}), Error);

  // One round written at a time: its plan is the one round being written.
  const LoopState writing = LoopState::from_json(stored_before("code"));
  ASSERT_EQ(writing.writing.size(), 1u);
  EXPECT_EQ(writing.writing[0].request.node_id, "n4");
  EXPECT_EQ(writing.writing[0].id, 5);
  EXPECT_EQ(writing.writing[0].cycle, 3);
  EXPECT_EQ(writing.planned, 5);
}

namespace {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

struct AnnealRun {
  std::vector<json> payloads;  // per candidate, in order
  int evaluations = 0;
  bool held_out_passed = false;
};

// An annealing search on the tiny task; with `interrupt_after` > 0 the first session dies right
// after that many evaluations were committed, and a second session resumes the run.
AnnealRun anneal(const std::string& name, int interrupt_after) {
  const Task task = load_task(test::tiny_task_file());
  auto backend = make_backend("cpu");
  auto proposer = proposers::make_proposer({}, {&task, backend.get()});
  // Hot enough that every proposal is accepted: the decisions then follow the seed and the snapshot
  // alone, not timings that two sittings on a loaded machine measure differently.
  const StrategySpec spec{"annealing", {{"seed", 5}, {"t_start", 1e9}, {"t_end", 1e9}}};
  const auto dir = test::fresh_run_dir(name);
  store::RunInfo info;
  info.task_name = task.name;
  info.task_file = task.file.string();
  info.backend = "cpu";
  SearchOptions o;
  o.rounds = 5;
  o.finalists = 0;  // the decisions under test end before the re-timing (tested in test_search_loop)
  {
    auto store = store::RunStore::create(dir, info);
    auto strategy = make_strategy(spec, {&task, backend.get()});
    int evaluated = 0;
    Search search(store, task, *backend, *proposer, *strategy, o, [&](const SearchEvent& e, const Progress&) {
      if (e.kind == EventKind::evaluated && ++evaluated == interrupt_after) throw Interrupted();
    });
    if (interrupt_after > 0) {
      EXPECT_THROW(search.run(), Interrupted);
    } else {
      EXPECT_EQ(search.run(), Search::Outcome::finished);
    }
  }
  auto store = store::RunStore::open(dir, store::RunStore::Access::write);
  if (interrupt_after > 0) {
    EXPECT_EQ(store.evaluation_count(), interrupt_after);
    auto strategy = make_strategy(spec, {&task, backend.get()});
    Search search(store, task, *backend, *proposer, *strategy, o);
    EXPECT_EQ(search.run(), Search::Outcome::finished);
  }
  AnnealRun r;
  for (const auto& c : store.candidates()) {
    EXPECT_TRUE(c.evaluated()) << "c" << c.id;
    r.payloads.push_back(c.payload);
  }
  r.evaluations = int(store.evaluation_count());
  const auto s = summarize(store);
  r.held_out_passed = s.held_out_passed.value_or(false);
  EXPECT_EQ(s.strategy, "annealing");
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace

TEST(LoopResume, InterruptedAnnealingSearchMakesTheSameDecisions) {
  const AnnealRun whole = anneal("anneal-whole", 0);
  const AnnealRun resumed = anneal("anneal-resumed", 2);
  ASSERT_EQ(whole.payloads.size(), 5u);
  EXPECT_EQ(resumed.payloads, whole.payloads);
  EXPECT_EQ(resumed.evaluations, whole.evaluations);  // nothing evaluated twice
  EXPECT_TRUE(whole.held_out_passed);
  EXPECT_TRUE(resumed.held_out_passed);
}
