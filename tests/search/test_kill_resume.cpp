// `ksearch run` killed with SIGKILL after its first evaluations are committed, then
// `ksearch resume`: no evaluation is lost or repeated, and the counters continue; for each strategy.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "helpers.hpp"
#include "store/run_store.hpp"

using namespace ksearch;
using nlohmann::json;

namespace {

const std::string kKsearch = KSEARCH_EXECUTABLE;

pid_t spawn(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace

class KillResume : public ::testing::TestWithParam<std::string> {};

TEST_P(KillResume, NoEvaluationLost) {
  const auto dir = test::fresh_run_dir("kill-" + GetParam());
  const pid_t pid = spawn({kKsearch, "run", "--task", test::tiny_task_file().string(), "--rounds", "5", "--seed-eval",
                           "--strategy", GetParam(), "--out", dir.string()});
  ASSERT_GT(pid, 0);
  // Kill as soon as two evaluations are committed.
  std::map<int64_t, json> before;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!store::RunStore::exists(dir)) continue;
    try {
      auto s = store::RunStore::open(dir);
      if (s.evaluation_count() >= 2) break;
    } catch (const std::exception&) {  // created but schema not committed yet
    }
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(wait_exit(pid), -SIGKILL);
  int round_before = 0;
  {
    auto s = store::RunStore::open(dir);
    for (const auto& c : s.candidates())
      if (c.evaluated()) before[c.id] = c.report;
    round_before = s.load_state().value_or(json::object()).value("round", 0);
  }
  ASSERT_GE(before.size(), 2u);

  ASSERT_EQ(wait_exit(spawn({kKsearch, "resume", dir.string(), "--json"})), 0);
  auto s = store::RunStore::open(dir);
  const auto state = *s.load_state();
  EXPECT_EQ(state["phase"], "done");
  EXPECT_GE(state["round"].get<int>(), round_before);
  EXPECT_LE(state["round"].get<int>(), 5);
  std::set<std::string> hashes;
  for (const auto& c : s.candidates()) {
    EXPECT_TRUE(c.evaluated()) << "c" << c.id;
    if (before.count(c.id)) EXPECT_EQ(c.report, before[c.id]) << "c" << c.id << " changed";
    if (!c.reused_from) EXPECT_TRUE(hashes.insert(c.source_hash).second) << "c" << c.id << " evaluated twice";
  }
  EXPECT_GT(s.candidates().size(), before.size());  // the search went on
  EXPECT_TRUE(state["final"]["held_out_passed"].get<bool>());
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Strategies, KillResume, ::testing::Values("world_model", "annealing"));

TEST(RunOptions, UnknownStrategyOrOptionIsAUsageError) {
  const auto dir = test::fresh_run_dir("bad-strategy");
  const std::string task = test::tiny_task_file().string();
  EXPECT_EQ(wait_exit(spawn({kKsearch, "run", "--task", task, "--strategy", "islands", "--out", dir.string()})), 2);
  EXPECT_EQ(wait_exit(spawn({kKsearch, "run", "--task", task, "--strategy", "annealing", "--strategy-option", "cooling=0.9",
                             "--out", dir.string()})),
            2);
  EXPECT_EQ(wait_exit(spawn({kKsearch, "run", "--task", task, "--stagnation", "2", "--strategy", "annealing", "--out",
                             dir.string()})),
            2);  // a world_model option given to annealing
  EXPECT_EQ(wait_exit(spawn({kKsearch, "run", "--task", task, "--strategy-option", "seed", "--out", dir.string()})), 2);
  EXPECT_FALSE(std::filesystem::exists(dir));  // refused before a run folder was made
}
