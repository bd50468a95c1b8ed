// ksearch-runner-cpu: loads one compiled cpu candidate and runs it for the evaluator.
#include <dlfcn.h>
#include <omp.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "runner/child.hpp"

namespace {

using Entry = void (*)(void* const*, const int64_t*, const double*, void*);

class CpuDevice : public ksearch::runner::RunnerDevice {
 public:
  // The team, started before the sandbox closes, is the one candidates' parallel regions reuse. Each
  // thread reports in: an empty region would be optimized away.
  void start_threads() override {
    std::atomic<int> started{0};
#pragma omp parallel
    started.fetch_add(1, std::memory_order_relaxed);
  }

  void load(const nlohmann::json& artifact) override {
    const std::string library = artifact.at("library").get<std::string>();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load candidate: ") + dlerror());
    entry_ = reinterpret_cast<Entry>(dlsym(handle, "ksearch_entry"));
    if (!entry_) throw std::runtime_error("the candidate library has no ksearch_entry");
    settings_ = OpenMpSettings::current();
  }

  void call(const ksearch::runner::CallArgs& args) override {
    ksearch::runner::call_candidate([&] { entry_(args.ptrs.data(), args.ints.data(), args.floats.data(), nullptr); });
    // A team still open (a parallel region started, not ended) would go on writing the outputs after the return,
    // off the clock.
    if (omp_get_level() != 0)
      throw std::runtime_error("the candidate returned inside an OpenMP parallel region: its team would keep working "
                               "after the call; all work must be finished on return");
  }

  // OpenMP's team is started before loading (start_threads) and reused by every region of the default size or
  // smaller; a thread started later is the candidate's (reached through libc's symbol table, say), which could
  // work on between calls, off their clocks.
  bool threads_after_load() const override { return false; }

  // ksearch waits for OpenMP's team to fall asleep before it stages a timed call's inputs (a worker running then would
  // be the candidate's code, off the clock); woken here, last before the call, it is spinning when the call starts.
  void prepare(const ksearch::runner::CallArgs& args) override {
    RunnerDevice::prepare(args);
    if (args.wake_threads) start_threads();
  }

  // OpenMP's settings live in libgomp, outside the candidate's data: a candidate could carry a value from one call
  // to the next in them (a call counter in the schedule's chunk size), so they are put back too.
  void reset_state() override {
    RunnerDevice::reset_state();
    settings_.apply();
  }

 private:
  // Every internal control variable a program may set (OpenMP 5.1), the ones holding any integer or pointer (the
  // teams' sizes, the default allocator's handle) or text (the affinity format) too.
  struct OpenMpSettings {
    omp_sched_t schedule_kind{};
    int schedule_chunk = 0, dynamic = 0, max_active_levels = 0, threads = 0, default_device = 0, teams = 0,
        teams_thread_limit = 0;
    omp_allocator_handle_t default_allocator{};
    std::string affinity_format;
    static OpenMpSettings current() {
      OpenMpSettings s;
      omp_get_schedule(&s.schedule_kind, &s.schedule_chunk);
      s.dynamic = omp_get_dynamic();
      s.max_active_levels = omp_get_max_active_levels();
      s.threads = omp_get_max_threads();
      s.default_device = omp_get_default_device();
      s.teams = omp_get_max_teams();
      s.teams_thread_limit = omp_get_teams_thread_limit();
      s.default_allocator = omp_get_default_allocator();
      s.affinity_format.resize(omp_get_affinity_format(nullptr, 0) + 1);
      s.affinity_format.resize(omp_get_affinity_format(s.affinity_format.data(), s.affinity_format.size()));
      return s;
    }
    void apply() const {
      omp_set_schedule(schedule_kind, schedule_chunk);
      omp_set_dynamic(dynamic);
      omp_set_max_active_levels(max_active_levels);
      omp_set_num_threads(threads);
      omp_set_default_device(default_device);
      omp_set_num_teams(teams);
      omp_set_teams_thread_limit(teams_thread_limit);
      omp_set_default_allocator(default_allocator);
      omp_set_affinity_format(affinity_format.c_str());
    }
  };

  Entry entry_ = nullptr;
  OpenMpSettings settings_;
};

}  // namespace

int main(int argc, char** argv) {
  CpuDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
