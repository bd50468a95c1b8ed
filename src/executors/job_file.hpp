#pragma once
// executors/job_file: one evaluation as files in a folder, for executors whose evaluations run in
// another process on another machine (slurm/; Ray or Kubernetes would use the same): the driver
// writes DIR/job.json, `ksearch eval-job DIR` on the node evaluates it with the same evaluator and
// sandboxed runner as a local run and writes DIR/result.json (atomically), which the driver reads.
// DIR must be visible to both (the run folder on a shared file system).
#include <filesystem>
#include <optional>

#include "executors/executor.hpp"

namespace ksearch::executors {

void write_job(const std::filesystem::path& dir, const ExecutorEnv& env, const Submission& submission);

// On the node: evaluates the job in `dir` and writes its result. Throws Error when the job cannot
// be run at all (no job file, an unknown task or backend): the job then ends without a result.
void run_job(const std::filesystem::path& dir);

// The result of the job in `dir`, once the node has written it.
std::optional<Completion> read_result(const std::filesystem::path& dir);

}  // namespace ksearch::executors
