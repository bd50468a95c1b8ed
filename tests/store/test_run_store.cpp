#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "store/run_store.hpp"

using namespace ksearch::store;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ksearch-store-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

RunInfo info() {
  RunInfo i;
  i.task_name = "softmax";
  i.task_file = "/x/task.toml";
  i.task_hash = "abc";
  i.backend = "cpu";
  i.config = {{"search", {{"rounds", 3}}}};
  return i;
}

Candidate candidate(const std::string& source) {
  Candidate c;
  c.round = 1;
  c.node_id = "n1";
  c.proposer = "builtin";
  c.source = source;
  c.source_hash = "h-" + source;
  c.payload = {{"family", "f"}};
  return c;
}
}  // namespace

TEST(RunStore, RoundTrips) {
  const fs::path dir = fresh_dir("rt");
  {
    auto s = RunStore::create(dir, info());
    EXPECT_THROW(RunStore::create(dir, info()), ksearch::Error);
    const int64_t a = s.add_candidate(candidate("a"));
    const int64_t b = s.add_candidate(candidate("b"));
    EXPECT_EQ(s.pending_candidates().size(), 2u);
    s.record_evaluation(a, {{"status", "passed"}}, "passed", 2.5, 1.25, 0.3, 0.5, 1.5);
    s.record_evaluation(b, {{"status", "compile_error"}}, "compile_error", 0, 0, 0, 0.2, 0.2);
    s.save_state({{"phase", "code"}, {"round", 2}});
    s.save_world_model(2, "round 2", {{"kernel_summary", "k"}});
    s.add_call({0, 1, "write_code", "llm", "gpt", "prompt", "response", 100, 20, 0.01, 1.5, "", 0});
    EXPECT_EQ(s.issue_request("propose", {{"q", 0}}), 1);
    EXPECT_EQ(s.issue_request("refine", {{"q", 1}}), 2);
    s.add_event(2, "message", "hello");
  }
  auto s = RunStore::open(dir, RunStore::Access::write);
  const auto i = s.info();
  EXPECT_EQ(i.task_name, "softmax");
  EXPECT_EQ(i.config["search"]["rounds"], 3);
  const auto cs = s.candidates();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].status, "passed");
  EXPECT_DOUBLE_EQ(cs[0].speedup_vs_seed, 2.5);
  EXPECT_EQ(cs[0].report["status"], "passed");
  EXPECT_EQ(cs[0].payload["family"], "f");
  EXPECT_EQ(s.evaluation_count(), 2);
  EXPECT_EQ(s.evaluated_by_hash("h-a")->id, cs[0].id);
  EXPECT_FALSE(s.evaluated_by_hash("h-zzz"));
  EXPECT_EQ((*s.load_state())["round"], 2);
  EXPECT_EQ((*s.latest_world_model())["kernel_summary"], "k");
  ASSERT_EQ(s.calls().size(), 1u);
  EXPECT_EQ(s.calls()[0].input_tokens, 100);
  auto p = s.pending();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->seq, 2);
  EXPECT_EQ(p->role, "refine");
  EXPECT_FALSE(p->answer);
  EXPECT_GT(p->created_at, 0);
  EXPECT_EQ(p->answered_at, 0);
  EXPECT_THROW(s.answer_pending(1, json::object()), ksearch::Error);  // no longer pending
  s.answer_pending(2, {{"a", 1}});
  EXPECT_EQ((*s.pending()->answer)["a"], 1);
  EXPECT_GE(s.pending()->answered_at, p->created_at);
  s.drop_answer(2);
  EXPECT_FALSE(s.pending()->answer);
  EXPECT_EQ(s.pending()->answered_at, 0);
  s.clear_pending();
  EXPECT_FALSE(s.pending());
  // Ids keep increasing after the pending request is gone, in a later session too.
  EXPECT_EQ(s.last_request_id(), 2);
  EXPECT_EQ(s.issue_request("write_code", json::object()), 3);
  EXPECT_EQ(s.events().back().message, "hello");
  fs::remove_all(dir);
}

// show, report and runs read a run while it is written: they see every write, make none, and see
// who holds the run without taking its lock.
TEST(RunStore, ReadersRefuseWritesAndSeeTheRunMoveOn) {
  const fs::path dir = fresh_dir("reader");
  auto writer = RunStore::create(dir, info());
  const auto reader = RunStore::open(dir);
  const double created = reader.updated_at();
  EXPECT_GT(created, 0);
  EXPECT_EQ(RunLock::holder(dir), getpid());
  writer.add_candidate(candidate("a"));
  EXPECT_GT(reader.updated_at(), created);
  const double added = reader.updated_at();
  writer.save_state({{"phase", "code"}});
  EXPECT_GT(reader.updated_at(), added);
  auto writable_looking = RunStore::open(dir);
  EXPECT_THROW(writable_looking.add_candidate(candidate("b")), ksearch::Error);
  EXPECT_EQ(reader.candidates().size(), 1u);
  { auto gone = std::move(writer); }
  EXPECT_FALSE(RunLock::holder(dir));
  fs::remove_all(dir);
}

TEST(RunStore, OpenMissingRunIsAClearError) {
  try {
    RunStore::open("/nonexistent/run");
    FAIL();
  } catch (const ksearch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no run found"), std::string::npos);
  }
}

// Two writers of one run would add duplicate candidates and overwrite results: the second is refused.
TEST(RunStore, ASecondWriterIsRefusedAndTheHolderNamed) {
  const fs::path dir = fresh_dir("lock");
  {
    auto writer = RunStore::create(dir, info());
    try {
      RunStore::open(dir, RunStore::Access::write);
      FAIL() << "a second writer was let in";
    } catch (const ksearch::Error& e) {
      EXPECT_NE(std::string(e.what()).find("being written by another ksearch process (pid " + std::to_string(getpid())),
                std::string::npos) << e.what();
    }
    EXPECT_THROW(RunStore::create(dir, info()), ksearch::Error);
    EXPECT_EQ(RunStore::open(dir).info().task_name, "softmax");  // readers (show, report) are not blocked
    auto moved = std::move(writer);  // the claim moves with the store
    EXPECT_THROW(RunStore::open(dir, RunStore::Access::write), ksearch::Error);
  }
  EXPECT_NO_THROW(RunStore::open(dir, RunStore::Access::write));  // released with the store
  fs::remove_all(dir);
}

TEST(RunStore, AFileThatIsNotARunIsAClearError) {
  const fs::path dir = fresh_dir("not-a-run");
  fs::create_directories(dir);
  { std::ofstream(dir / "run.db") << "not a database, just text that is long enough to have a header............"; }
  try {
    RunStore::open(dir);
    FAIL();
  } catch (const ksearch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a ksearch run"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// A run written by the previous schema (version 1: no answered_at, the request counter only in the
// pending row) is upgraded when opened, and its request ids continue where they were.
TEST(RunStore, AVersion1RunIsUpgradedAndKeepsItsRequestIds) {
  const fs::path dir = fresh_dir("v1");
  fs::create_directories(dir);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                         "INSERT INTO meta VALUES('schema_version', '1'), ('task_name', 'softmax'), ('config', '{}');"
                         "CREATE TABLE pending_request(id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, "
                         "role TEXT NOT NULL, request TEXT NOT NULL, answer TEXT, created_at REAL NOT NULL);"
                         "INSERT INTO pending_request VALUES(1, 4, 'refine', '{}', NULL, 1000);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto s = RunStore::open(dir, RunStore::Access::write);
  EXPECT_EQ(s.pending()->seq, 4);
  EXPECT_EQ(s.pending()->answered_at, 0);
  EXPECT_EQ(s.last_request_id(), 4);
  EXPECT_EQ(s.issue_request("write_code", json::object()), 5);
  fs::remove_all(dir);
}

TEST(RunStore, ReusedResultsAreNotEvaluations) {
  const fs::path dir = fresh_dir("reuse");
  auto s = RunStore::create(dir, info());
  const int64_t a = s.add_candidate(candidate("a"));
  const int64_t b = s.add_candidate(candidate("a"));
  s.record_evaluation(a, {}, "passed", 2, 1, 0, 0, 0);
  s.record_evaluation(b, {}, "passed", 2, 1, 0, 0, 0, a);
  EXPECT_EQ(s.evaluation_count(), 1);
  EXPECT_EQ(s.evaluated_by_hash("h-a")->id, a);
  fs::remove_all(dir);
}

// The job an executor gave for a candidate's evaluation outlives the driver (resume re-attaches to it),
// and a run made before the table existed gets it when a writer opens it.
TEST(RunStore, ExecutorJobsSurviveReopening) {
  const fs::path dir = fresh_dir("jobs");
  {
    auto s = RunStore::create(dir, info());
    const int64_t a = s.add_candidate(candidate("a"));
    EXPECT_FALSE(s.job(a));
    s.set_job(a, "slurm", "41");
    s.set_job(a, "slurm", "42");  // submitted again: the latest counts
  }
  {
    auto s = RunStore::open(dir, RunStore::Access::write);
    const auto job = s.job(1);
    ASSERT_TRUE(job);
    EXPECT_EQ(job->candidate_id, 1);
    EXPECT_EQ(job->executor, "slurm");
    EXPECT_EQ(job->handle, "42");
    EXPECT_GT(job->submitted_at, 0);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "DROP TABLE executor_jobs", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto s = RunStore::open(dir, RunStore::Access::write);
  EXPECT_FALSE(s.job(1));
  s.set_job(1, "slurm", "43");
  EXPECT_EQ(s.job(1)->handle, "43");
  fs::remove_all(dir);
}

TEST(RunStore, TransactionRollsBack) {
  const fs::path dir = fresh_dir("txn");
  auto s = RunStore::create(dir, info());
  s.save_state({{"round", 1}});
  EXPECT_THROW(s.transaction([&] {
    s.save_state({{"round", 2}});
    throw std::runtime_error("boom");
  }),
               std::runtime_error);
  EXPECT_EQ((*s.load_state())["round"], 1);
  fs::remove_all(dir);
}

// A process killed with SIGKILL right after committing loses nothing (WAL, one transaction per
// evaluation), and the database opens cleanly afterwards.
TEST(RunStore, SurvivesKill9AfterCommit) {
  const fs::path dir = fresh_dir("kill");
  { RunStore::create(dir, info()); }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto s = RunStore::open(dir, RunStore::Access::write);
    for (int i = 0;; ++i) {
      const int64_t id = s.add_candidate(candidate("k" + std::to_string(i)));
      s.record_evaluation(id, {{"i", i}}, "passed", 1 + i, 1, 0, 0, 0);
      if (i == 4) (void)!write(ready[1], "x", 1);  // five committed, keep writing until killed
    }
  }
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto s = RunStore::open(dir, RunStore::Access::write);  // the killed writer's claim went with it
  const auto cs = s.candidates();
  ASSERT_GE(cs.size(), 5u);
  int evaluated = 0;
  for (const auto& c : cs)
    if (c.evaluated()) {
      EXPECT_EQ(c.report["i"].get<int>() + 1, int(c.speedup_vs_seed));
      ++evaluated;
    }
  EXPECT_GE(evaluated, 5);
  fs::remove_all(dir);
}
