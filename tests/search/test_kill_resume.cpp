// `ksearch run` killed with SIGKILL after its first evaluations are committed, then
// `ksearch resume`: no evaluation is lost or repeated, and the counters continue; for each strategy,
// one round at a time and with several evaluations in flight at the kill (re-queued on resume).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "helpers.hpp"
#include "store/run_store.hpp"

using namespace ksearch;
using nlohmann::json;

namespace {

const std::string kKsearch = KSEARCH_EXECUTABLE;

// Runs ksearch with stdout discarded and stderr into `stderr_file` (discarded when empty); `env`
// entries NAME=VALUE are set, NAME= unset.
pid_t spawn(const std::vector<std::string>& args, const std::string& stderr_file = "", const std::vector<std::string>& env = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : env) {
      const auto eq = e.find('=');
      if (eq + 1 == e.size()) unsetenv(e.substr(0, eq).c_str());
      else setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
    freopen("/dev/null", "w", stdout);
    if (!stderr_file.empty()) freopen(stderr_file.c_str(), "w", stderr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Waits until the run in `dir` has committed `n` evaluations (or 90 s passed).
void wait_for_evaluations(const std::filesystem::path& dir, int64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!store::RunStore::exists(dir)) continue;
    try {
      if (store::RunStore::open(dir).evaluation_count() >= n) return;
    } catch (const std::exception&) {  // created but schema not committed yet
    }
  }
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace

// (strategy, concurrent): concurrent runs on two cpu slots with --parallel 2, four evaluations in flight.
class KillResume : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(KillResume, NoEvaluationLost) {
  const auto& [strategy, concurrent] = GetParam();
  const auto dir = test::fresh_run_dir("kill-" + strategy + (concurrent ? "-concurrent" : ""));
  std::vector<std::string> args = {kKsearch, "run", "--task", test::tiny_task_file().string(), "--rounds", "5", "--seed-eval",
                                   "--finalists", "1", "--retime-rounds", "2", "--strategy", strategy, "--out", dir.string()};
  if (concurrent) args.insert(args.end(), {"--devices", "0,1", "--parallel", "2"});
  const pid_t pid = spawn(args);
  ASSERT_GT(pid, 0);
  // Kill as soon as two evaluations are committed.
  std::map<int64_t, json> before;
  std::set<int64_t> in_flight;  // stored, not evaluated at the kill
  wait_for_evaluations(dir, 2);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(wait_exit(pid), -SIGKILL);
  int round_before = 0;
  {
    auto s = store::RunStore::open(dir);
    for (const auto& c : s.candidates())
      if (c.evaluated()) before[c.id] = c.report;
      else in_flight.insert(c.id);
    round_before = s.load_state().value_or(json::object()).value("round", 0);
  }
  ASSERT_GE(before.size(), 2u);
  if (concurrent) EXPECT_FALSE(in_flight.empty()) << "no evaluation was in flight at the kill";

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
    if (in_flight.count(c.id)) EXPECT_NE(c.status, "not_run") << "c" << c.id << " was in flight at the kill: evaluated on resume";
  }
  EXPECT_GT(s.candidates().size(), before.size());  // the search went on
  EXPECT_TRUE(state["final"]["held_out_passed"].get<bool>());
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Strategies, KillResume, ::testing::Combine(::testing::Values("world_model", "annealing"), ::testing::Bool()),
                         [](const auto& info) { return std::get<0>(info.param) + (std::get<1>(info.param) ? "_concurrent" : ""); });

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

// Ctrl-C: the run says how to continue, exits 130, and `ksearch resume` finishes it with nothing lost.
TEST(Interrupt, SigintSaysHowToResumeAndLosesNothing) {
  const auto dir = test::fresh_run_dir("sigint");
  const auto err = dir.string() + ".stderr";
  const pid_t pid = spawn({kKsearch, "run", "--task", test::tiny_task_file().string(), "--rounds", "4", "--finalists", "1",
                           "--retime-rounds", "2", "--out", dir.string()},
                          err);
  ASSERT_GT(pid, 0);
  wait_for_evaluations(dir, 1);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(wait_exit(pid), 130);
  EXPECT_NE(read_text(err).find("interrupted: the run is stored; continue it with `ksearch resume " + dir.string() + "`"),
            std::string::npos)
      << read_text(err);
  std::map<int64_t, json> before;
  {
    auto s = store::RunStore::open(dir);
    for (const auto& c : s.candidates())
      if (c.evaluated()) before[c.id] = c.report;
  }
  ASSERT_GE(before.size(), 1u);
  ASSERT_EQ(wait_exit(spawn({kKsearch, "resume", dir.string()})), 0);
  auto s = store::RunStore::open(dir);
  EXPECT_EQ((*s.load_state())["phase"], "done");
  for (const auto& c : s.candidates())
    if (before.count(c.id)) EXPECT_EQ(c.report, before[c.id]) << "c" << c.id << " changed";
  std::filesystem::remove_all(dir);
  std::filesystem::remove(err);
}

// A model run that fails for a missing API key keeps its folder and says what to do; `ksearch resume`
// with other proposer settings continues it, and the change is recorded.
TEST(ResumeProposer, AMissingKeySaysWhatToDoAndResumeCanChangeTheProposer) {
  const auto dir = test::fresh_run_dir("no-key");
  const auto err = dir.string() + ".stderr";
  const int rc = wait_exit(spawn({kKsearch, "run", "--task", test::tiny_task_file().string(), "--rounds", "1", "--finalists", "0",
                                  "--llm", "openai:gpt-4o-mini", "--out", dir.string()},
                                 err, {"OPENAI_API_KEY="}));
  EXPECT_NE(rc, 0);
  const std::string text = read_text(err);
  EXPECT_NE(text.find("OPENAI_API_KEY"), std::string::npos) << text;
  if (store::RunStore::exists(dir))  // a folder left behind says how to continue it
    EXPECT_NE(text.find("continue it with `ksearch resume " + dir.string() + "`"), std::string::npos) << text;
  else
    GTEST_SKIP() << "the missing key was refused before a run folder was made: " << text;

  ASSERT_EQ(wait_exit(spawn({kKsearch, "resume", dir.string(), "--proposer", "builtin"}, err)), 0) << read_text(err);
  auto s = store::RunStore::open(dir);
  EXPECT_EQ((*s.load_state())["phase"], "done");
  const auto config = s.info().config;
  EXPECT_EQ(config["proposer"]["name"], "builtin");
  ASSERT_EQ(config["proposer_history"].size(), 1u);
  EXPECT_EQ(config["proposer_history"][0]["name"], "llm");
  bool logged = false;
  for (const auto& e : s.events()) logged = logged || e.message == "resumed with proposer builtin (was llm)";
  EXPECT_TRUE(logged);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(err);
}

// `ksearch resume --proposer-concurrency N` changes the stored setting, checked against the proposer the run
// continues with: the built-in proposer takes one request at a time, so 2 is refused and nothing is stored.
TEST(ResumeProposer, ProposerConcurrencyChangesOnResumeWhereTheProposerAllowsIt) {
  const auto dir = test::fresh_run_dir("resume-concurrency");
  const auto err = dir.string() + ".stderr";
  ASSERT_EQ(wait_exit(spawn({kKsearch, "run", "--task", test::tiny_task_file().string(), "--rounds", "1", "--finalists", "0",
                             "--out", dir.string()},
                            err)),
            0)
      << read_text(err);
  EXPECT_NE(wait_exit(spawn({kKsearch, "resume", dir.string(), "--rounds", "2", "--proposer-concurrency", "2"}, err)), 0);
  EXPECT_NE(read_text(err).find("takes one request at a time"), std::string::npos) << read_text(err);
  {
    auto s = store::RunStore::open(dir);
    EXPECT_EQ(s.info().config["search"].value("proposer_concurrency", -1), 0);
    EXPECT_EQ(s.info().config["search"].value("rounds", 0), 1);  // the refused resume stored nothing
  }
  ASSERT_EQ(wait_exit(spawn({kKsearch, "resume", dir.string(), "--rounds", "2", "--proposer-concurrency", "1"}, err)), 0)
      << read_text(err);
  auto s = store::RunStore::open(dir);
  EXPECT_EQ(s.info().config["search"].value("proposer_concurrency", -1), 1);
  EXPECT_EQ(s.info().config["search"].value("rounds", 0), 2);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(err);
}
