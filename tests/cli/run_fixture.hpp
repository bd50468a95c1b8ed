#pragma once
// Runs written through the RunStore API (no search) and the ksearch binary run from a test:
// shared by the tests of the everyday commands (runs, report --serve, run --config).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_store.hpp"

namespace ksearch::test {

inline const std::filesystem::path kTinySoftmax = std::filesystem::path(KSEARCH_TEST_DATA_DIR) / "tasks/tiny_softmax/task.toml";

struct FixtureRun {
  std::string task = "tiny_softmax", backend = "cpu", proposer = "builtin", strategy = "world_model";
  double speedup = 2.0;   // the best kernel's, on every visible workload
  bool finished = true;   // phase done with a held-out check (1.5x); else stopped in round 1
};

// One evaluation's report as the evaluator writes it: each workload passed at `speedup` over a 0.04 ms seed.
inline nlohmann::json fixture_report(double speedup, bool held_out) {
  nlohmann::json workloads = nlohmann::json::array();
  const std::vector<std::string> names = held_out ? std::vector<std::string>{"held_r5_c777"} : std::vector<std::string>{"r64_c256", "r16_c1000"};
  for (const auto& name : names)
    workloads.push_back({{"name", name}, {"held_out", held_out}, {"status", "passed"}, {"median_ms", 0.04 / speedup},
                         {"seed_ms", 0.04}, {"speedup_vs_seed", speedup}});
  return {{"status", "passed"}, {"speedup_vs_seed", speedup}, {"workloads", workloads}};
}

// Adds a passing candidate evaluated at `speedup` and returns its id.
inline int64_t add_evaluated(store::RunStore& store, int round, double speedup) {
  store::Candidate c;
  c.round = round;
  c.node_id = "n" + std::to_string(round);
  c.proposer = round == 0 ? "seed" : "builtin";
  c.source = "// kernel of round " + std::to_string(round) + " at " + std::to_string(speedup) + "x\n";
  c.source_hash = std::to_string(std::hash<std::string>{}(c.source));
  const int64_t id = store.add_candidate(c);
  store.record_evaluation(id, fixture_report(speedup, false), "passed", speedup, 0.04 / speedup, 0.3, 0.1, 0.2);
  return id;
}

inline std::filesystem::path make_fixture_run(const std::filesystem::path& dir, const FixtureRun& spec = {}) {
  store::RunInfo info;
  info.task_name = spec.task;
  info.task_file = kTinySoftmax.string();
  info.backend = spec.backend;
  info.config = {{"proposer", {{"name", spec.proposer}}},
                 {"strategy", {{"name", spec.strategy}}},
                 {"search", {{"rounds", 4}, {"parallel", 1}}}};
  auto store = store::RunStore::create(dir, info);
  add_evaluated(store, 0, 1.0);
  const int64_t best = add_evaluated(store, 1, spec.speedup);
  nlohmann::json state = {{"phase", spec.finished ? "done" : "code"},
                          {"round", spec.finished ? 4 : 1},
                          {"best", {{"candidate", best}, {"speedup", spec.speedup}}},
                          {"strategy", {{"name", spec.strategy}}}};
  if (spec.finished)
    state["final"] = {{"candidate", best},
                      {"held_out_passed", true},
                      {"held_out_speedup", 1.5},
                      {"checked", {{{"candidate", best}, {"status", "passed"}, {"report", fixture_report(1.5, true)}}}}};
  store.save_state(state);
  return dir;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `ksearch ARGS` in `cwd` with stdout to `out` (stderr to out + ".err"); returns the exit code.
inline int run_ksearch(const std::string& args, const std::filesystem::path& cwd, const std::filesystem::path& out) {
  const std::string command = "cd '" + cwd.string() + "' && " KSEARCH_EXECUTABLE " " + args + " > '" + out.string() +
                              "' 2> '" + out.string() + ".err'";
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// A fresh folder per test (dir_), removed afterwards unless the test failed, to be looked at.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("ksearch-" + std::string(test->test_suite_name()) + "-" + test->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

}  // namespace ksearch::test
