// The runner's sandbox as the evaluator sees it (the attacks themselves are the adversarial suite).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
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
