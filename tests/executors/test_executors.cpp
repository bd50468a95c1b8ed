// Executors: the per-device timing lock, the local executor spreading evaluations over device
// slots (cpu: slots sharing the machine) in submission order and keeping the measurement under way when
// cancelled, the job files a batch executor's node evaluates, and option errors. The Slurm executor itself
// runs against a real Slurm in slurm_cluster.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/timing_lock.hpp"
#include "executors/executor.hpp"
#include "executors/job_file.hpp"
#include "tasks/reference.hpp"
#include "tasks/task.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::evaluator::WorkloadSet;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;

using namespace ksearch;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Whether taking the lock `key` in another thread waits while this thread holds `held`.
bool waits_for(const std::string& held, const std::string& key) {
  std::future<void> other;
  bool waited = false;
  {
    TimingLock first(held);
    other = std::async(std::launch::async, [&] { TimingLock second(key); });
    waited = other.wait_for(300ms) == std::future_status::timeout;
  }
  other.wait();  // gets it once `first` is released
  return waited;
}

fs::path fresh_dir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("ksearch-executors-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The tiny task's seed with a different pass count: a distinct source each.
std::string tiny_source(int passes) {
  return "#include <cmath>\n#include <cstdint>\n"
         "extern \"C\" void exp_rows(const float* x, float* y, int64_t rows, int64_t cols) {\n"
         "  for (int p = 0; p < " + std::to_string(passes) + "; ++p)\n"
         "    for (int64_t i = 0; i < rows * cols; ++i) y[i] = std::exp(x[i]);\n"
         "}\n";
}

struct Fixture {
  Task task = load_task(KSEARCH_TINY_TASK);
  std::unique_ptr<Backend> backend = make_backend("cpu");
  fs::path dir;
  executors::ExecutorEnv env(const std::string& name) {
    dir = fresh_dir(name);
    executors::ExecutorEnv e{&task, backend.get(), {}, dir};
    e.options.workloads = WorkloadSet::visible;
    e.options.seed_timings_dir = dir;
    e.options.target_seconds = 0.05;
    return e;
  }
};

}  // namespace

TEST(TimingLock, SerializesPerDeviceAndTheMachineOverAll) {
  EXPECT_TRUE(waits_for("cuda0", "cuda0"));   // one timing per device
  EXPECT_FALSE(waits_for("cuda0", "cuda1"));  // other devices time meanwhile
  EXPECT_TRUE(waits_for("", "cuda1"));        // a whole-machine timing excludes every device's
  EXPECT_TRUE(waits_for("cuda1", ""));
  EXPECT_TRUE(waits_for("", ""));
}

TEST(LocalExecutor, SpreadsEvaluationsOverDeviceSlots) {
  Fixture f;
  auto executor = executors::make_executor({"local", {{"devices", {"0", "1"}}}}, f.env("slots"));
  EXPECT_EQ(executor->name(), "local");
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(executor->submit({i, tiny_source(i)}), "");  // nothing outlives the process
  EXPECT_EQ(executor->outstanding(), 4);
  std::set<int64_t> candidates;
  std::set<std::string> placements;
  const auto deadline = std::chrono::steady_clock::now() + 300s;
  while (executor->outstanding() > 0 && std::chrono::steady_clock::now() < deadline)
    for (const auto& done : executor->collect(1s)) {
      EXPECT_EQ(done.report.status, Status::passed) << done.report.message;
      EXPECT_GT(done.report.speedup_vs_seed, 0);
      candidates.insert(done.candidate);
      placements.insert(done.placement);
    }
  EXPECT_EQ(candidates, (std::set<int64_t>{1, 2, 4, 3}));
  // The first free slot is taken, so device 1 ran something only while device 0 was busy: the
  // evaluations overlapped.
  EXPECT_EQ(placements, (std::set<std::string>{"device 0", "device 1"}));
}

TEST(LocalExecutor, BuiltCandidatesTakeTheDeviceInSubmissionOrder) {
  Fixture f;
  auto executor = executors::make_executor({}, f.env("order"));  // one device slot
  // Candidate 1 (about a second per call, ten calls) holds the slot while the others are submitted and
  // built; they then wait for it together and must take it in the order they came.
  executor->submit({1, tiny_source(600)});
  std::this_thread::sleep_for(1500ms);
  for (int i = 6; i >= 2; --i) executor->submit({i, tiny_source(i)});
  std::vector<int64_t> order;
  const auto deadline = std::chrono::steady_clock::now() + 300s;
  while (executor->outstanding() > 0 && std::chrono::steady_clock::now() < deadline)
    for (const auto& done : executor->collect(1s)) {
      EXPECT_EQ(done.report.status, Status::passed) << done.report.message;
      order.push_back(done.candidate);
    }
  EXPECT_EQ(order, (std::vector<int64_t>{1, 6, 5, 4, 3, 2}));
}

TEST(LocalExecutor, CancellingKeepsTheMeasurementOnTheDevice) {
  Fixture f;
  auto executor = executors::make_executor({}, f.env("cancel"));  // one device slot
  // Candidate 1 (about a second per call) is being measured when the run is cancelled: its device time is
  // spent either way, so it finishes and is collected; candidate 2, built and waiting for the slot, is not.
  executor->submit({1, tiny_source(600)});
  std::this_thread::sleep_for(1500ms);
  executor->submit({2, tiny_source(2)});
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(executor->finishing(), 0);  // nothing is cancelled yet
  executor->cancel_all();
  EXPECT_EQ(executor->finishing(), 1);
  std::vector<int64_t> collected;
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (executor->finishing() > 0 && std::chrono::steady_clock::now() < deadline)
    for (const auto& done : executor->collect(100ms)) {
      EXPECT_EQ(done.report.status, Status::passed) << done.report.message;
      collected.push_back(done.candidate);
    }
  for (const auto& done : executor->collect(0ms)) collected.push_back(done.candidate);
  EXPECT_EQ(collected, (std::vector<int64_t>{1}));
  EXPECT_EQ(executor->outstanding(), 0);
}

TEST(LocalExecutor, BrokenCandidateIsAReportNotAnException) {
  Fixture f;
  auto executor = executors::make_executor({}, f.env("broken"));
  executor->submit({7, "this is not C++"});
  std::vector<executors::Completion> done;
  while (done.empty()) done = executor->collect(1s);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].candidate, 7);
  EXPECT_EQ(done[0].report.status, Status::compile_error);
  EXPECT_EQ(executor->outstanding(), 0);
}

// A reference that crashes is the task's error, not a candidate's: collecting rethrows it, so the search stops with it.
TEST(LocalExecutor, AFailingReferenceStopsTheSearchWithItsError) {
  Fixture f;
  const fs::path task_dir = fresh_dir("crashing-reference-task") / "task";
  fs::copy(fs::path(KSEARCH_TINY_TASK).parent_path(), task_dir, fs::copy_options::recursive);
  std::ofstream(task_dir / "reference.cpp")
      << "#include \"ksearch/reference.h\"\nextern \"C\" void ks_reference(const ks_reference_args*) { volatile int* p = nullptr; *p = 1; }\n";
  f.task = load_task(task_dir / "task.toml");
  auto executor = executors::make_executor({}, f.env("crashing-reference"));
  executor->submit({7, tiny_source(1)});
  try {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;)
      ASSERT_TRUE(executor->collect(1s).empty()) << "the candidate was blamed for the reference";
    FAIL() << "no error within a minute";
  } catch (const tasks::ReferenceError& e) {
    EXPECT_NE(std::string(e.what()).find("crashed (signal 11"), std::string::npos) << e.what();
  }
}

TEST(LocalExecutor, RejectsBadDeviceLists) {
  Fixture f;
  const auto env = f.env("bad");
  EXPECT_THROW(executors::make_executor({"local", {{"devices", std::vector<std::string>{}}}}, env), Error);
  EXPECT_THROW(executors::make_executor({"local", {{"devices", {"0", "0"}}}}, env), Error);
  EXPECT_THROW(executors::make_executor({"local", {{"gpus", 2}}}, env), Error);
  EXPECT_THROW(executors::make_executor({"nowhere", {}}, env), Error);
}

TEST(JobFile, NodeEvaluatesWhatTheDriverWrote) {
  Fixture f;
  const auto env = f.env("jobfile");
  const fs::path job = f.dir / "jobs" / "c3";
  executors::write_job(job, env, {3, tiny_source(1)});
  EXPECT_FALSE(executors::read_result(job));  // not run yet
  executors::run_job(job);                     // what `ksearch eval-job` does on the node
  const auto done = executors::read_result(job);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->candidate, 3);
  EXPECT_EQ(done->report.status, Status::passed) << done->report.message;
  EXPECT_EQ(done->report.workloads.size(), 1u);  // the visible workload only
  EXPECT_FALSE(done->placement.empty());         // the node's host name
}

TEST(JobFile, AJobThatCannotRunThrows) {
  Fixture f;
  const auto env = f.env("jobfile-broken");
  const fs::path job = f.dir / "jobs" / "c4";
  EXPECT_THROW(executors::run_job(job), Error);  // no job file
  executors::write_job(job, env, {4, tiny_source(1)});
  auto j = nlohmann::json::parse(read_file(job / "job.json"));
  j["task_file"] = (f.dir / "missing.toml").string();
  write_file_atomic(job / "job.json", j.dump());
  EXPECT_THROW(executors::run_job(job), Error);
  EXPECT_FALSE(executors::read_result(job));
}

TEST(SlurmExecutor, RejectsBadOptions) {
  Fixture f;
  const auto env = f.env("slurm-options");
  EXPECT_THROW(executors::make_executor({"slurm", {{"max_jobs", 0}}}, env), Error);
  EXPECT_THROW(executors::make_executor({"slurm", {{"partiton", "gpu"}}}, env), Error);
  EXPECT_THROW(executors::make_executor({"slurm", {{"max_jobs", "many"}}}, env), Error);
}
