// The Slurm executor: each evaluation is one batch job (sbatch) running `ksearch eval-job DIR` on a
// compute node, DIR being <run>/jobs/c<candidate> (executors/job_file: the run folder must be on a
// file system the nodes share). The node evaluates with the same evaluator and sandboxed runner as a
// local run, building the candidate itself (content-hashed build cache, docs/SCALE.md says why). Job
// ids go to the run store through the loop; after a driver restart attach() takes over jobs still
// queued or running, or finished with a result meanwhile. Jobs are named ksearch-<run>-c<candidate>
// so that one submitted just before the driver died, whose id was never stored, is found by name.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/options.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "executors/executor.hpp"
#include "executors/job_file.hpp"

namespace fs = std::filesystem;

namespace ksearch::executors {
namespace {

struct SlurmOptions {
  std::string partition, gres;
  int max_jobs = 8;
  int time_limit_minutes = 0;  // 0: the partition's default
  double poll_seconds = 5;     // how often squeue is asked (result files are looked for every 0.25 s)
};

// Quoted for sh.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// States in which a job may still write its result (squeue's %T).
bool still_active(const std::string& state) {
  static const std::set<std::string> active = {"PENDING",  "CONFIGURING", "RUNNING",  "COMPLETING",   "SUSPENDED", "REQUEUED",
                                               "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED"};
  return active.count(state) > 0;
}

CommandResult slurm_command(const std::vector<std::string>& argv) {
  CommandOptions options;
  options.timeout = std::chrono::seconds(60);
  return run_command(argv, options);
}

class SlurmExecutor : public Executor {
 public:
  SlurmExecutor(const ExecutorEnv& env, SlurmOptions options)
      : env_(env),
        options_(std::move(options)),
        jobs_dir_(fs::absolute(env.run_dir) / "jobs"),
        run_tag_(sha256_hex(fs::absolute(env.run_dir).lexically_normal().string()).substr(0, 8)) {
    const CommandResult version = slurm_command({"sbatch", "--version"});
    if (!version.ok()) throw Error("executor slurm: sbatch does not run here (is Slurm's client installed and on PATH?): " + tail_lines(version.output, 3));
  }

  std::string name() const override { return "slurm"; }
  int capacity() const override { return options_.max_jobs; }
  int outstanding() const override { return int(jobs_.size()); }

  std::string submit(const Submission& s) override {
    const fs::path dir = job_dir(s.candidate);
    // Submitted by a session that died before storing the id: take that job over.
    if (const auto id = job_named(job_name(s.candidate))) return track(s.candidate, *id);
    if (fs::exists(dir / "result.json") && fs::exists(dir / "job_id")) return track(s.candidate, trimmed(read_file(dir / "job_id")));
    fs::remove(dir / "slurm.out");
    write_job(dir, env_, s);
    write_file_atomic(dir / "job.sh", fmt::format("#!/bin/sh\nexec {} eval-job {}\n", shell_quote(executable_path().string()),
                                                  shell_quote(dir.string())));
    std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name", job_name(s.candidate), "--output",
                                     (dir / "slurm.out").string(), "--chdir", dir.string()};
    if (!options_.partition.empty()) argv.insert(argv.end(), {"--partition", options_.partition});
    if (!options_.gres.empty()) argv.insert(argv.end(), {"--gres", options_.gres});
    if (options_.time_limit_minutes > 0) argv.insert(argv.end(), {"--time", std::to_string(options_.time_limit_minutes)});
    argv.push_back((dir / "job.sh").string());
    const CommandResult r = slurm_command(argv);
    if (!r.ok()) throw Error(fmt::format("sbatch refused the evaluation of c{}: {}", s.candidate, tail_lines(r.output, 5)));
    // --parsable prints "id" or "id;cluster".
    const std::string id = trimmed(r.output.substr(0, r.output.find(';')));
    write_file_atomic(dir / "job_id", id);
    spdlog::debug("c{}: slurm job {}", s.candidate, id);
    return track(s.candidate, id);
  }

  bool attach(const Submission& s, const std::string& handle) override {
    const fs::path dir = job_dir(s.candidate);
    const bool known = fs::exists(dir / "result.json") || fs::exists(dir / "slurm.out") || job_states({handle}).count(handle);
    if (known) track(s.candidate, handle);
    return known;
  }

  std::vector<Completion> collect(std::chrono::milliseconds timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      std::vector<Completion> done = finished_with_result();
      const auto now = std::chrono::steady_clock::now();
      if (done.empty() && !jobs_.empty() && now - last_poll_ >= std::chrono::duration<double>(options_.poll_seconds)) {
        last_poll_ = now;
        done = ended_without_result();
      }
      if (!done.empty() || jobs_.empty() || now >= deadline) return done;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(250), deadline - now));
    }
  }

  void cancel_all() override {
    if (jobs_.empty()) return;
    std::vector<std::string> argv = {"scancel"};
    for (const auto& [candidate, id] : jobs_) argv.push_back(id);
    const CommandResult r = slurm_command(argv);
    if (!r.ok()) spdlog::warn("scancel of the run's jobs failed: {}", tail_lines(r.output, 3));
    jobs_.clear();
  }

 private:
  fs::path job_dir(int64_t candidate) const { return jobs_dir_ / ("c" + std::to_string(candidate)); }
  std::string job_name(int64_t candidate) const { return fmt::format("ksearch-{}-c{}", run_tag_, candidate); }

  static std::string trimmed(std::string s) {
    s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
    return s;
  }

  std::string track(int64_t candidate, const std::string& id) {
    jobs_[candidate] = id;
    return id;
  }

  // squeue's state of each listed job it still knows; jobs it has forgotten are absent. Throws Error
  // when Slurm cannot be asked (the caller keeps waiting: the controller may be restarting).
  std::map<std::string, std::string> job_states(const std::vector<std::string>& ids) const {
    const CommandResult r =
        slurm_command({"squeue", "--noheader", "--states=all", "--format=%i %T", "--jobs=" + fmt::format("{}", fmt::join(ids, ","))});
    std::map<std::string, std::string> states;
    if (!r.ok()) {
      if (r.output.find("Invalid job id") != std::string::npos) return states;  // none of them is known any more
      throw Error("squeue failed: " + tail_lines(r.output, 3));
    }
    std::istringstream lines(r.output);
    for (std::string id, state; lines >> id >> state;) states[id] = state;
    return states;
  }

  std::optional<std::string> job_named(const std::string& name) const {
    const CommandResult r = slurm_command({"squeue", "--noheader", "--format=%i", "--name=" + name});
    std::istringstream ids(r.ok() ? r.output : "");
    std::string id;
    if (ids >> id) return id;
    return std::nullopt;
  }

  // The job's result once its node has written it (a malformed one is the job's failure).
  std::optional<Completion> result_of(int64_t candidate, const std::string& id) const {
    std::optional<Completion> c;
    try {
      c = read_result(job_dir(candidate));
    } catch (const Error& e) {
      return failure(candidate, id, e.what());
    }
    if (c) c->placement = fmt::format("slurm job {}{}", id, c->placement.empty() ? "" : " on " + c->placement);
    return c;
  }

  std::vector<Completion> finished_with_result() {
    std::vector<Completion> done;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      if (auto c = result_of(it->first, it->second)) {
        done.push_back(std::move(*c));
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
    return done;
  }

  // Jobs Slurm reports ended (or has forgotten) that left no result: lost on the node.
  std::vector<Completion> ended_without_result() {
    std::vector<std::string> ids;
    for (const auto& [candidate, id] : jobs_) ids.push_back(id);
    std::map<std::string, std::string> states;
    try {
      states = job_states(ids);
    } catch (const Error& e) {
      spdlog::warn("{} (retrying)", e.what());
      return {};
    }
    std::vector<Completion> done;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const auto state = states.find(it->second);
      if (state != states.end() && still_active(state->second)) {
        ++it;
        continue;
      }
      if (auto c = result_of(it->first, it->second)) {  // written just before it ended
        done.push_back(std::move(*c));
        it = jobs_.erase(it);
        continue;
      }
      const fs::path log = job_dir(it->first) / "slurm.out";
      const std::string printed = fs::exists(log) ? tail_lines(read_file(log), 15) : "(it printed nothing)";
      done.push_back(failure(it->first, it->second,
                             fmt::format("slurm job {} ended ({}) without a result", it->second,
                                         state == states.end() ? "no longer listed by squeue" : state->second),
                             "its output:\n" + printed));
      it = jobs_.erase(it);
    }
    return done;
  }

  Completion failure(int64_t candidate, const std::string& id, const std::string& why, const std::string& log = "") const {
    Completion c;
    c.candidate = candidate;
    c.report.task = env_.task->name;
    c.report.backend = env_.backend->name();
    c.report.status = Status::runtime_error;
    c.report.message = "evaluation failed: " + why;
    c.report.log = log;
    c.placement = "slurm job " + id;
    return c;
  }

  ExecutorEnv env_;
  SlurmOptions options_;
  fs::path jobs_dir_;
  std::string run_tag_;
  std::map<int64_t, std::string> jobs_;  // candidate -> job id, outstanding
  std::chrono::steady_clock::time_point last_poll_{};
};

SlurmOptions slurm_options(const nlohmann::json& config) {
  SlurmOptions o;
  read_options("executor slurm", config, [&](const std::string& key, const nlohmann::json& value) {
    if (key == "partition") o.partition = value.get<std::string>();
    else if (key == "gres") o.gres = value.get<std::string>();
    else if (key == "max_jobs") o.max_jobs = value.get<int>();
    else if (key == "time_limit_minutes") o.time_limit_minutes = value.get<int>();
    else if (key == "poll_seconds") o.poll_seconds = value.get<double>();
    else return false;
    return true;
  });
  if (o.max_jobs < 1) throw Error("executor slurm: max_jobs must be at least 1");
  if (o.time_limit_minutes < 0) throw Error("executor slurm: time_limit_minutes must not be negative");
  if (o.poll_seconds <= 0) throw Error("executor slurm: poll_seconds must be positive");
  return o;
}

KSEARCH_REGISTER_EXECUTOR("slurm", slurm, [](const ExecutorEnv& env, const nlohmann::json& config) -> std::unique_ptr<Executor> {
  return std::make_unique<SlurmExecutor>(env, slurm_options(config));
});

}  // namespace
}  // namespace ksearch::executors
