#include "executors/job_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "tasks/task.hpp"
#include "core/json_text.hpp"

using ksearch::backends::BuildResult;
using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadSet;
using ksearch::tasks::Task;
using ksearch::tasks::load_run_task;

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksearch::executors {

namespace {

const char* workload_set_name(WorkloadSet set) {
  switch (set) {
    case WorkloadSet::visible: return "visible";
    case WorkloadSet::held_out: return "held_out";
    case WorkloadSet::all: return "all";
  }
  return "all";
}

WorkloadSet parse_workload_set(const std::string& name) {
  if (name == "visible") return WorkloadSet::visible;
  if (name == "held_out") return WorkloadSet::held_out;
  if (name == "all") return WorkloadSet::all;
  throw Error("unknown workload set '" + name + "'");
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

void write_job(const fs::path& dir, const ExecutorEnv& env, const Submission& submission) {
  fs::create_directories(dir);
  const json job = {{"candidate", submission.candidate},
                    {"source", submission.source},
                    {"task_file", fs::absolute(env.task->file).string()},
                    {"task_hash", env.task->content_hash},
                    {"backend", env.backend->name()},
                    {"workloads", workload_set_name(env.options.workloads)},
                    {"seed_timings_dir", env.options.seed_timings_dir.empty() ? "" : fs::absolute(env.options.seed_timings_dir).string()}};
  write_file_atomic(dir / "job.json", json_text(job, 2));
}

void run_job(const fs::path& dir) {
  const json job = json::parse(read_file(dir / "job.json"), nullptr, false);
  if (!job.is_object()) throw Error((dir / "job.json").string() + " is not a JSON object");
  try {
    const Task task = load_run_task(job.at("task_file").get<std::string>(), job.at("backend").get<std::string>());
    if (task.content_hash != job.at("task_hash").get<std::string>())
      throw Error(fmt::format("the task file {} changed since the job was submitted", task.file.string()));
    auto backend = make_backend(job.at("backend").get<std::string>());
    std::string why;
    if (!backend->available(&why)) throw Error(fmt::format("backend {} is not available on {}: {}", backend->name(), host_name(), why));
    EvalOptions options;
    options.workloads = parse_workload_set(job.at("workloads").get<std::string>());
    options.seed_timings_dir = job.at("seed_timings_dir").get<std::string>();
    Evaluator evaluator(task, *backend, options);
    const auto start = std::chrono::steady_clock::now();
    BuildResult build;
    const std::optional<EvalReport> early = evaluator.check_and_build(job.at("source").get<std::string>(), build);
    const EvalReport report = early ? *early : evaluator.evaluate_built(build);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const json result = {{"candidate", job.at("candidate")},
                         {"report", report.to_json()},
                         {"build_seconds", build.seconds},
                         {"eval_seconds", seconds - build.seconds},
                         {"host", host_name()}};
    write_file_atomic(dir / "result.json", json_text(result, 2));
  } catch (const json::exception& e) {
    throw Error(fmt::format("{} is malformed: {}", (dir / "job.json").string(), e.what()));
  }
}

std::optional<Completion> read_result(const fs::path& dir) {
  const fs::path file = dir / "result.json";
  if (!fs::exists(file)) return std::nullopt;
  const json j = json::parse(read_file(file), nullptr, false);
  Completion c;
  try {
    c.candidate = j.at("candidate").get<int64_t>();
    c.report = EvalReport::from_json(j.at("report"));
    c.build_seconds = j.value("build_seconds", 0.0);
    c.eval_seconds = j.value("eval_seconds", 0.0);
    c.placement = j.value("host", "");
  } catch (const std::exception& e) {
    throw Error(fmt::format("{} is not a job result: {}", file.string(), e.what()));
  }
  return c;
}

}  // namespace ksearch::executors
