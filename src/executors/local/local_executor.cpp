// The local executor: evaluations in this process's runners on this host. Builds run in a pool
// sized to the cores; each built candidate then waits for a free device (`devices`, one runner per
// device at a time, placed with Backend::device_environment) and is checked and timed there, its
// timing serialized per device by the backend's timing lock key. Its capacity is --parallel
// evaluations per device: the next candidates build while a device checks and times one. Built
// candidates take the devices in the order they were submitted, so that a search's time budget cuts
// off the last candidates of a round (a strategy proposes its most promising first), not the
// unlucky ones: on the H200 a two-minute search's parallel builds finished in arbitrary order and the
// family's defaults, submitted first, were the one candidate left unevaluated.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <semaphore>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/options.hpp"
#include "executors/executor.hpp"
#include "tasks/reference.hpp"

using ksearch::backends::BuildResult;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;

namespace ksearch::executors {
namespace {

class LocalExecutor : public Executor {
 public:
  LocalExecutor(const ExecutorEnv& env, const std::vector<std::string>& devices)
      : env_(env), builder_(*env.task, *env.backend, env.options), builds_(build_pool_size()) {
    // Initialized once here: builds and evaluations call them from several threads.
    env.backend->profile();
    if (env.options.time && env.backend->timing_available()) env.backend->ceilings();
    for (const std::string& device : devices) {
      EvalOptions options = env.options;
      options.device = device;
      slots_.push_back(Slot{device, std::make_unique<Evaluator>(*env.task, *env.backend, options), false});
    }
  }

  ~LocalExecutor() override {
    cancel_all();
    for (auto& f : running_) f.wait();
  }

  std::string name() const override { return "local"; }
  int capacity() const override { return int(slots_.size()) * std::max(env_.parallel, 1); }
  int outstanding() const override {
    std::lock_guard lock(mutex_);
    return outstanding_;
  }

  std::string submit(const Submission& submission) override {
    uint64_t order = 0;
    {
      std::lock_guard lock(mutex_);
      ++outstanding_;
      order = submitted_++;
    }
    running_.push_back(std::async(std::launch::async, [this, submission, order] { evaluate(submission, order); }));
    return "";  // dies with this process: nothing to re-attach to
  }

  bool attach(const Submission&, const std::string&) override { return false; }

  std::vector<Completion> collect(std::chrono::milliseconds timeout) override {
    std::vector<Completion> done;
    {
      std::unique_lock lock(mutex_);
      changed_.wait_for(lock, timeout, [&] { return !done_.empty() || outstanding_ == 0; });
      if (task_error_) std::rethrow_exception(task_error_);
      done.swap(done_);
      outstanding_ -= int(done.size());
    }
    running_.remove_if([](const std::future<void>& f) { return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready; });
    return done;
  }

  // Evaluations already on a device finish (a runner is not interrupted mid-measurement) and are
  // collected: the device's time is spent either way. The others stop before their next step.
  void cancel_all() override {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  int finishing() const override {  // the evaluations holding a device
    std::lock_guard lock(mutex_);
    return cancelled_ ? int(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.busy; })) : 0;
  }

 private:
  struct Slot {
    std::string device;
    std::unique_ptr<Evaluator> evaluator;
    bool busy = false;
  };

  static std::ptrdiff_t build_pool_size() { return std::max<std::ptrdiff_t>(1, std::thread::hardware_concurrency()); }

  void evaluate(const Submission& submission, uint64_t order) {
    Completion c;
    c.candidate = submission.candidate;
    Slot* slot = nullptr;
    try {
      BuildResult build;
      std::optional<EvalReport> early;
      builds_.acquire();
      try {
        if (!is_cancelled()) early = builder_.check_and_build(submission.source, build);
      } catch (...) {
        builds_.release();
        throw;
      }
      builds_.release();
      c.build_seconds = build.seconds;
      slot = take_slot(order);
      if (!slot) return forget();
      const auto start = std::chrono::steady_clock::now();
      c.report = early ? *early : slot->evaluator->evaluate_built(build);
      c.eval_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!slot->device.empty()) c.placement = "device " + slot->device;
    } catch (const tasks::ReferenceError&) {  // the task's reference failed: no candidate can pass, the search stops
      std::lock_guard lock(mutex_);
      task_error_ = std::current_exception();
    } catch (const std::exception& e) {  // an evaluator/infrastructure failure, not the candidate's
      c.report.task = env_.task->name;
      c.report.backend = env_.backend->name();
      c.report.status = Status::runtime_error;
      c.report.message = std::string("evaluation failed: ") + e.what();
    }
    std::lock_guard lock(mutex_);
    if (slot) slot->busy = false;
    if (cancelled_ && !slot) {
      --outstanding_;
    } else {
      done_.push_back(std::move(c));
    }
    changed_.notify_all();
  }

  // A free device once no candidate submitted earlier waits for one, or null once cancelled.
  Slot* take_slot(uint64_t order) {
    std::unique_lock lock(mutex_);
    waiting_for_slot_.insert(order);
    Slot* free = nullptr;
    changed_.wait(lock, [&] {
      const auto it = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; });
      free = it == slots_.end() ? nullptr : &*it;
      return cancelled_ || (free && *waiting_for_slot_.begin() == order);
    });
    waiting_for_slot_.erase(order);
    changed_.notify_all();  // the next in order may take another free device
    if (cancelled_) return nullptr;
    free->busy = true;
    return free;
  }

  bool is_cancelled() const {
    std::lock_guard lock(mutex_);
    return cancelled_;
  }

  void forget() {
    std::lock_guard lock(mutex_);
    --outstanding_;
    changed_.notify_all();
  }

  ExecutorEnv env_;
  Evaluator builder_;  // rules and builds (device-independent)
  std::counting_semaphore<> builds_;
  std::vector<Slot> slots_;
  std::list<std::future<void>> running_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Completion> done_;
  int outstanding_ = 0;
  uint64_t submitted_ = 0;
  std::set<uint64_t> waiting_for_slot_;  // built candidates' submission orders
  bool cancelled_ = false;
  std::exception_ptr task_error_;  // an evaluation's ReferenceError: collect() rethrows it to the search
};

// config "devices": "all" (every device the backend lists) or a list of ids; none: the default device.
std::vector<std::string> devices_of(const ExecutorEnv& env, const nlohmann::json& config) {
  std::vector<std::string> devices = {""};
  read_options("executor local", config, [&](const std::string& key, const nlohmann::json& value) {
    if (key != "devices") return false;
    const std::vector<std::string> known = env.backend->devices();
    if (value.is_string() && value.get<std::string>() == "all") {
      devices = known;
      return true;
    }
    devices = value.get<std::vector<std::string>>();
    if (devices.empty()) throw Error("executor local: devices: the list is empty");
    std::sort(devices.begin(), devices.end());
    if (std::adjacent_find(devices.begin(), devices.end()) != devices.end())
      throw Error(fmt::format("executor local: devices: {} names a device twice", fmt::join(devices, ",")));
    // A backend with one unnamed device (cpu) takes the ids as slots on it.
    if (known != std::vector<std::string>{""})
      for (const auto& d : devices)
        if (std::find(known.begin(), known.end(), d) == known.end())
          throw Error(fmt::format("executor local: no device '{}' on backend {} (it has: {})", d, env.backend->name(), fmt::join(known, ",")));
    return true;
  });
  return devices;
}

KSEARCH_REGISTER_EXECUTOR("local", local, [](const ExecutorEnv& env, const nlohmann::json& config) -> std::unique_ptr<Executor> {
  return std::make_unique<LocalExecutor>(env, devices_of(env, config));
});

}  // namespace
}  // namespace ksearch::executors
