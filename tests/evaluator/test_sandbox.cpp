// The runner's sandbox and process as the evaluator sees them (the attacks themselves are the adversarial suite).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "runner/parent.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

using namespace ksearch;
namespace fs = std::filesystem;

// As root (CI, the GPU machines) the runner switches to uid 65534 before loading the candidate, so
// a build folder under a root-only home (/root is mode 700) must stay reachable.
TEST(Sandbox, CandidateBuiltUnderARootOnlyFolderLoadsAfterDroppingPrivileges) {
  const fs::path home = fs::temp_directory_path() / ("ksearch-root-only-" + std::to_string(getpid()));
  fs::create_directories(home);
  fs::permissions(home, fs::perms::owner_all, fs::perm_options::replace);
  const char* previous = std::getenv("KSEARCH_CACHE_DIR");
  const std::string kept = previous ? previous : "";
  setenv("KSEARCH_CACHE_DIR", (home / "cache").c_str(), 1);
  const Task task = resolve_task(std::string(KSEARCH_TEST_DATA) + "/tasks/tiny_softmax");
  auto backend = make_backend("cpu");
  EvalOptions options;
  options.time = false;
  const EvalReport r = Evaluator(task, *backend, options).evaluate(read_file(task.entry("cpu").seed));
  if (previous) setenv("KSEARCH_CACHE_DIR", kept.c_str(), 1);
  else unsetenv("KSEARCH_CACHE_DIR");
  fs::remove_all(home);
  EXPECT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
  EXPECT_NE(r.sandbox.find("no capabilities"), std::string::npos) << r.sandbox;
  if (geteuid() == 0) EXPECT_NE(r.sandbox.find("uid and gid 65534"), std::string::npos) << r.sandbox;
  EXPECT_NE(r.sandbox.find("no change to the mappings of loaded code"), std::string::npos) << r.sandbox;
}

// A runner that cannot be started (here: a file that is not executable) throws SystemError after
// the pipes and the shared memory exist; none of them may outlive the failed constructor.
TEST(Sandbox, FailedRunnerStartLeaksNoDescriptor) {
  auto count_descriptors = [] {
    return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{});
  };
  const fs::path not_executable = fs::temp_directory_path() / ("ksearch-not-a-runner-" + std::to_string(getpid()));
  write_file_atomic(not_executable, "not a program\n");
  const auto before = count_descriptors();
  for (int attempt = 0; attempt < 3; ++attempt)
    EXPECT_THROW(runner::RunnerProcess(not_executable, runner::RunnerLimits{}), SystemError);
  EXPECT_EQ(count_descriptors(), before);
  fs::remove(not_executable);
}

// What a runner printed just before it died is in its output when its death is reported: the candidate's last words
// (a failed check's message, an assertion) are the reason a crash is given. Here a runner fills the output pipe and
// dies on a signal at once; the reader of the pipe must have got to the end before the failure is thrown.
TEST(RunnerProcess, WhatADyingRunnerPrintedLastIsInItsOutput) {
  const fs::path script = fs::temp_directory_path() / ("ksearch-dying-runner-" + std::to_string(getpid()));
  {
    std::ofstream out(script);
    out << "#!/bin/sh\ni=0\nwhile [ $i -lt 3000 ]; do echo \"line $i of what the runner printed\"; i=$((i+1)); done >&2\n"
           "echo 'the last words' >&2\nkill -SEGV $$\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  for (int attempt = 0; attempt < 20; ++attempt) {
    runner::RunnerProcess process(script, runner::RunnerLimits{});
    try {
      process.request({{"cmd", "ping"}}, std::chrono::seconds(30));
      ADD_FAILURE() << "a runner that died answered";
    } catch (const runner::RunnerFailure& f) {
      EXPECT_EQ(f.kind, runner::RunnerFailure::Kind::crashed) << f.what();
      EXPECT_NE(std::string(f.what()).find("SIGSEGV"), std::string::npos) << f.what();
    }
    const std::string tail = process.output_tail();
    ASSERT_NE(tail.find("the last words"), std::string::npos) << "attempt " << attempt << ": " << tail.substr(tail.size() - 200);
  }
  fs::remove(script);
}
