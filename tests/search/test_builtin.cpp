// The built-in proposer: seed knobs, and short real searches that must find a verified speedup.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "helpers.hpp"
#include "proposers/builtin_proposer.hpp"
#include "proposers/world_model.hpp"
#include "search/brief.hpp"
#include "search/search.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;
using ksearch::tasks::resolve_task;

using namespace ksearch;
using namespace ksearch::search;

TEST(SeedKnobs, ParseAndRender) {
  const std::string seed =
      "constexpr int A = 4;  // ksearch:knob A = 4 in [1, 2, 4, 8]\n"
      "int AA = 4;\n"
      "constexpr long B = -1; // ksearch:knob B = -1 in [-1, 0]\n";
  const auto knobs = proposers::parse_seed_knobs(seed);
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].name, "A");
  EXPECT_EQ(knobs[0].default_value, 4);
  EXPECT_EQ(knobs[0].values, (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(knobs[1].default_value, -1);
  const std::string out = proposers::render_seed_knobs(seed, {{"A", 8}, {"B", 0}});
  EXPECT_EQ(out,
            "constexpr int A = 8;  // ksearch:knob A = 4 in [1, 2, 4, 8]\n"
            "int AA = 4;\n"
            "constexpr long B = 0; // ksearch:knob B = -1 in [-1, 0]\n");
  EXPECT_THROW(proposers::parse_seed_knobs("int A = 3; // ksearch:knob A = 3 in [1, 2]\n"), Error);  // default not allowed
  EXPECT_THROW(proposers::parse_seed_knobs("int X = 3; // ksearch:knob A = 3 in [3]\n"), Error);     // no assignment
  EXPECT_THROW(proposers::parse_seed_knobs("// ksearch:knob A\n"), Error);
}

namespace {

RunSummary search_task(const Task& task, const std::string& name, int rounds, int parallel) {
  auto backend = make_backend("cpu");
  const auto dir = test::fresh_run_dir(name);
  store::RunInfo info;
  info.task_name = task.name;
  info.task_file = task.file.string();
  info.backend = "cpu";
  auto store = store::RunStore::create(dir, info);
  auto proposer = proposers::make_proposer({}, {&task, backend.get()});
  SearchOptions o;
  o.rounds = rounds;
  o.parallel = parallel;
  o.finalists = 1;  // short: the re-timing itself is tested in test_search_loop
  o.retime_rounds = 2;
  auto strategy = make_strategy({}, {&task, backend.get()});
  Search search(store, task, *backend, *proposer, *strategy, o);
  EXPECT_EQ(search.run(), Search::Outcome::finished);
  const auto s = summarize(store);
  // The world model was refined: the best node has a solution and the tree grew below the root.
  const auto m = world_model::WorldModel::from_json(*store.latest_world_model());
  EXPECT_GT(m.nodes.size(), 2u);
  // The seed was timed for this run, in the same sitting as its candidates, and kept in the run folder.
  int seed_timings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    seed_timings += entry.path().filename().string().rfind("seed-timings-" + task.name, 0) == 0;
  EXPECT_EQ(seed_timings, 1);
  std::filesystem::remove_all(dir);
  return s;
}

}  // namespace

TEST(BuiltinSearch, TinyTaskFromSeedKnobs) {
  const Task task = load_task(test::tiny_task_file());
  const auto s = search_task(task, "tiny", 4, 2);
  ASSERT_TRUE(s.has_best);
  // PASSES 4 -> 2 or 1: 2-4x where the machine is quiet. Under ctest -j2 on two cores a neighbouring test can load
  // the sitting that timed the seed or the one that timed the best (below 1.25x seen twice); the finalists'
  // re-timing alternates the two, so one of the two measurements shows the speedup.
  ASSERT_TRUE(s.best_retimed.has_value());
  EXPECT_GT(std::max(s.best_speedup, s.best_retimed->estimate), 1.25)
      << "search " << s.best_speedup << "x, re-timed " << s.best_retimed->estimate << "x";
  ASSERT_TRUE(s.held_out_passed.has_value());
  EXPECT_TRUE(*s.held_out_passed);
}

// What a proposer is told of a task: each visible workload's params (they change the result), and each tensor's
// dtype and shape beside a prototype where float16 and bfloat16 tensors are both uint16_t.
TEST(Brief, StatesWorkloadParamsAndTensorDtypes) {
  const Task task = load_task(std::filesystem::path(KSEARCH_TEST_DIR) / "../data/tasks/mixed_dtypes/task.toml");
  auto backend = make_backend("cpu");
  const auto brief = ksearch::search::brief_of(task, *backend);
  ASSERT_EQ(brief.workloads.size(), 2u);
  EXPECT_EQ(brief.workloads[1], "r3_c33_inverted: cols=33 rows=3 invert=1 scale=-3.25 thr=-0.1");
  EXPECT_NE(brief.entry.find("x        f16[rows, cols] input, IEEE binary16 bits in uint16_t"), std::string::npos) << brief.entry;
  EXPECT_NE(brief.entry.find("count    i32[1] output"), std::string::npos) << brief.entry;
}

TEST(BuiltinSearch, TaskWithoutKnowledgeIsAClearError) {
  Task task = load_task(test::tiny_task_file());
  task.entries["cpu"].seed = std::filesystem::path(KSEARCH_TEST_DIR) / "helpers.hpp";  // no knobs, no families
  task.name = "unknown_task";
  auto backend = make_backend("cpu");
  try {
    proposers::make_proposer({}, {&task, backend.get()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("only a model or agent proposer"), std::string::npos);
  }
}

TEST(BuiltinSearch, SoftmaxFindsAVerifiedSpeedup) {
  const Task task = resolve_task("softmax");
  if (proposers::builtin::families_for(task, "cpu").empty()) GTEST_SKIP() << "no cpu template families for softmax yet";
  const auto s = search_task(task, "softmax", 3, 2);
  ASSERT_TRUE(s.has_best);
  EXPECT_GT(s.best_speedup, 1.05);
  ASSERT_TRUE(s.held_out_passed.has_value());
  EXPECT_TRUE(*s.held_out_passed);
}
