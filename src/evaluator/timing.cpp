#include "evaluator/timing.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/cache_eviction.hpp"

namespace ksearch::evaluator {

namespace {
constexpr int kCalibrationCalls = 8;
// Reports below the CPU time by less than this (or less than a null call's own CPU time, see
// trusted_times) are accounting noise, not tampering.
constexpr double kInconsistencyFloorMs = 0.05;
// The runner's interval lies inside ksearch's; this much is left for rounding.
constexpr double kWallSlackMs = 0.001;
// What each of OpenMP's idle workers may spin on the CPU around a call (libgomp spins some 300,000 iterations before it
// sleeps), beyond the call's own time, where the spinning was not measured, and the most it may be where it was: work
// a worker hides from the runner's timer (its start moved while the main thread sleeps) escapes within it.
constexpr double kSpinAllowanceMs = 2.0;
constexpr int kSpinMeasurements = 3;
// What the runner's other threads may run, all together, while ksearch stages a call's inputs after finding them asleep:
// nothing of the runner's wakes them then; this is the accounting's rounding.
constexpr double kBetweenCallsSlackMs = 0.02;
// How much a `prepare` or `collect` may cost, by wall and CPU time each, before the excess is charged to the call: half
// as much again as the calibration's most, and a slack for the accounting (the wake-ups of an honest kernel's calls
// took 0.019-0.031 ms on our 2-core VM beside a calibration of 0.022 ms; a hijacked one, 0.05-0.15 ms).
constexpr double kRunnerWorkAllowance = 1.5;
constexpr double kRunnerWorkSlackMs = 0.01;
// The share of the null calls' spread (10th to 90th percentile) that the difference between a workload's median
// CPU time and the null calls' median may be off by without meaning anything: about its standard error for 8
// null calls and about as many timed ones (the spread is some 2.6 standard deviations; a median's standard
// error some 1.25 / sqrt(n) of one).
constexpr double kMedianNoiseShare = 0.25;

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[size_t(p * double(values.size() - 1) + 0.5)];
}
double median(std::vector<double> values) { return percentile(std::move(values), 0.5); }
}  // namespace

namespace {
// A request and ksearch's readings around it: the runner's main thread's CPU time (settled) and all its threads'.
struct AroundRequest {
  nlohmann::json reply;
  double wall_ms = 0;
  std::optional<double> main_before, main_after;
  std::optional<runner::ProcessCpu> all_before, all_after;
};
AroundRequest around_request(runner::RunnerProcess& process, const nlohmann::json& command, std::chrono::milliseconds timeout) {
  AroundRequest r;
  r.main_before = process.main_thread_cpu_ms();
  r.all_before = process.process_cpu();
  const auto start = std::chrono::steady_clock::now();
  r.reply = process.request(command, timeout);
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.main_after = process.main_thread_cpu_ms();
  r.all_after = process.process_cpu();
  return r;
}
}  // namespace

RequestCost measure_request(runner::RunnerProcess& process, const nlohmann::json& command, std::chrono::milliseconds timeout) {
  const AroundRequest r = around_request(process, command, timeout);
  RequestCost cost{r.wall_ms, std::nullopt};
  if (r.main_before && r.main_after && r.all_before && r.all_after)
    cost.cpu_ms = *r.main_after - *r.main_before + r.all_after->other_threads_ms - r.all_before->other_threads_ms;
  return cost;
}

TimedCall measure_timed_call(runner::RunnerProcess& process, const nlohmann::json& command,
                             std::chrono::milliseconds timeout) {
  const AroundRequest r = around_request(process, command, timeout);
  TimedCall call;
  call.reported_ms = r.reply.value("ms", 0.0);
  call.wall_ms = r.wall_ms;
  if (r.main_before && r.main_after) call.cpu_ms = *r.main_after - *r.main_before;
  if (r.all_before && r.all_after) {
    call.process_cpu_ms = r.all_after->ms - r.all_before->ms;
    call.threads = std::max(r.all_before->threads, r.all_after->threads);
  }
  return call;
}

NullCallCost calibrate_null_call(runner::RunnerProcess& process, const nlohmann::json& command, size_t flush_bytes,
                                 std::chrono::milliseconds timeout) {
  nlohmann::json null_command = command;
  null_command["null"] = true;
  std::vector<double> cpus, process_cpus;
  for (int i = 0; i < kCalibrationCalls; ++i) {
    flush_host_caches({}, flush_bytes);
    const TimedCall c = measure_timed_call(process, null_command, timeout);
    if (c.cpu_ms) cpus.push_back(*c.cpu_ms);
    if (c.process_cpu_ms) process_cpus.push_back(*c.process_cpu_ms);
  }
  return {median(cpus), percentile(cpus, 0.9) - percentile(cpus, 0.1), median(process_cpus)};
}

NullCallCost settled_null_call(const NullCallCost& before_loading, const NullCallCost& after_loading) {
  NullCallCost settled = before_loading;
  settled.cpu_ms = std::min(after_loading.cpu_ms, before_loading.cpu_ms + before_loading.cpu_spread_ms);
  settled.process_cpu_ms = std::min(after_loading.process_cpu_ms, before_loading.process_cpu_ms + before_loading.cpu_spread_ms);
  return settled;
}

std::optional<double> measure_null_beside(runner::RunnerProcess& process, const nlohmann::json& command,
                                          std::chrono::milliseconds timeout) {
  nlohmann::json null_command = command;
  null_command["null"] = true;
  const TimedCall c = measure_timed_call(process, null_command, timeout);
  if (!c.cpu_ms || !c.process_cpu_ms || *c.process_cpu_ms - *c.cpu_ms > kBetweenCallsSlackMs) return std::nullopt;
  return c.cpu_ms;
}

RunnerWorkCost measure_runner_work(runner::RunnerProcess& process, const nlohmann::json& wake_command,
                                   const nlohmann::json& collect_command, std::chrono::milliseconds idle_bound,
                                   std::chrono::milliseconds timeout) {
  RunnerWorkCost cost;
  // The most of each measurement (a CPU time only where every one had it)
  auto most = [](std::optional<RequestCost>& so_far, const RequestCost& measured, bool first) {
    if (first) return void(so_far = measured);
    so_far->wall_ms = std::max(so_far->wall_ms, measured.wall_ms);
    so_far->cpu_ms = so_far->cpu_ms && measured.cpu_ms ? std::optional(std::max(*so_far->cpu_ms, *measured.cpu_ms)) : std::nullopt;
  };
  // Until kSpinMeasurements wake-ups found the workers asleep before and after (on a loaded host a worker may still
  // be runnable at the bound; left unmeasured, the spinning's allowance would fall back to its fixed bound, and the
  // repetitions' check of the other threads would be off), at most three times as many.
  int spins = 0;
  for (int i = 0; i < 3 * kSpinMeasurements && spins < kSpinMeasurements; ++i) {
    bool still_running = false;
    const std::optional<double> asleep = process.idle_other_threads_cpu_ms(idle_bound, &still_running);
    most(cost.prepare, measure_request(process, wake_command, timeout), i == 0);
    most(cost.collect, measure_request(process, collect_command, timeout), i == 0);
    const std::optional<double> asleep_again = process.idle_other_threads_cpu_ms(idle_bound, &still_running);
    const std::optional<runner::ProcessCpu> cpu = process.process_cpu();
    if (!cpu || cpu->threads < 2) break;  // no workers
    if (!asleep || !asleep_again) continue;
    cost.idle_spin_ms = std::max(cost.idle_spin_ms.value_or(0), (*asleep_again - *asleep) / (cpu->threads - 1));
    ++spins;
  }
  if (spins < kSpinMeasurements) cost.idle_spin_ms.reset();
  return cost;
}

TrustedTimes trusted_times(const std::vector<TimedCall>& calls, const NullCallCost& null_call, bool host_clock) {
  TrustedTimes out;
  std::vector<double> cpu_bounds, deficits, reported_with_cpu, null_cpus;
  for (const TimedCall& c : calls) {
    if (c.reported_ms > c.wall_ms + kWallSlackMs && out.inconsistency.empty())
      out.inconsistency = fmt::format(
          "the runner reported {:.4f} ms for a call that took {:.4f} ms from ksearch's side: its replies were forged",
          c.reported_ms, c.wall_ms);
    // A `prepare` or `collect` around the call that took longer than the calibration's allow (half as long again as
    // its most, and a slack), in which the runner's threads also ran that much more on the CPU, ran more than the
    // runner's code: the candidate's, off the clock (a hijacked worker in the wake-up, `worker_wake_up_hijack`; the
    // runner's device reference redirected, `device_reference_swap`), charged to the call. (A thread the scheduler
    // kept waiting on a loaded host lengthens the request, not its CPU time.)
    auto excess = [](const std::optional<RequestCost>& measured, const std::optional<RequestCost>& calibrated) {
      if (!measured || !calibrated) return 0.0;
      auto beyond = [](double value, double most) { return std::max(0.0, value - (kRunnerWorkAllowance * most + kRunnerWorkSlackMs)); };
      const double wall = beyond(measured->wall_ms, calibrated->wall_ms);
      return measured->cpu_ms && calibrated->cpu_ms ? std::min(wall, beyond(*measured->cpu_ms, *calibrated->cpu_ms)) : wall;
    };
    double off_clock = excess(c.prepare, null_call.prepare) + excess(c.collect, null_call.collect);
    // The other threads over the whole repetition, beyond what each may spend in the call (its time) and from a
    // wake-up until it sleeps again twice (idle_spin_ms, measured over a `prepare` and a `collect`: the wake-up before
    // the call, and the region's end): the candidate's work between the requests, where no request's measurement
    // sees it (a hijacked worker that let `prepare` return on time, computed the staged outputs before the call and
    // slept on a lock until it: `worker_gap_precompute`).
    if (host_clock && c.other_threads_repetition_cpu_ms && null_call.idle_spin_ms && c.threads > 1) {
      const double allowed = (c.threads - 1) * (c.reported_ms + 2 * *null_call.idle_spin_ms) + kBetweenCallsSlackMs;
      off_clock += std::max(0.0, *c.other_threads_repetition_cpu_ms - allowed);
    }
    out.times_ms.push_back(c.reported_ms + off_clock);
    out.off_clock_charged_calls += off_clock > 0;
    if (c.cpu_ms) {
      // Paired with the null call of its own repetition: the host's load comes in bursts of several calls (the
      // same host path 3-5x dearer for a while on our 2-core VM), which a calibration made before the calls misses.
      null_cpus.push_back(c.null_cpu_ms.value_or(null_call.cpu_ms));
      const double cpu_bound = std::max(0.0, *c.cpu_ms - null_cpus.back());
      if (cpu_bound > c.reported_ms + null_call.cpu_spread_ms) ++out.host_bound_calls;
      cpu_bounds.push_back(cpu_bound);
      reported_with_cpu.push_back(c.reported_ms);
      deficits.push_back(cpu_bound - c.reported_ms);
    }
  }
  // The reports' median is never below the CPU times' median: when it is, every report is raised by the gap,
  // less what the medians' noise explains (see kMedianNoiseShare).
  // Medians, not each call against its own CPU time: the host side's jitter (a GPU kernel's thread spins in the
  // synchronization, so its CPU time is the kernel's plus the host's) would otherwise set the slow calls' times
  // and the spread; under-reporting gains nothing either way, since a workload's time is the median.
  const double median_cpu_bound = median(cpu_bounds), median_reported_with_cpu = median(reported_with_cpu);
  const double floor_gap = median_cpu_bound - median_reported_with_cpu - kMedianNoiseShare * null_call.cpu_spread_ms;
  if (!cpu_bounds.empty() && floor_gap > 0)
    for (double& t : out.times_ms) t += floor_gap;
  // An honest report is at least the CPU time its thread spent in the call, up to accounting noise and
  // what cache misses add outside the runner's timer; a runner whose reports are under half of it on
  // most calls was tampered with. The noise grows with the machine's load (a preempted thread comes
  // back to cold caches), and so does the CPU time of the null calls beside them: a deficit within it
  // is not evidence.
  const double median_deficit = median(deficits), median_null = median(null_cpus);
  const double noise_floor = std::max({kInconsistencyFloorMs, median_null, 0.5 * median_cpu_bound});
  if (out.inconsistency.empty() && !deficits.empty() && median_deficit > noise_floor) {
    std::vector<double> reported;
    for (const TimedCall& c : calls) reported.push_back(c.reported_ms);
    out.inconsistency = fmt::format(
        "the runner reported a median of {:.4f} ms per call, but its main thread ran for {:.4f} ms per call by the "
        "kernel's account (beyond the {:.4f} ms of a null call beside them): the candidate tampered with the runner's "
        "clock or replies",
        median(reported), median_cpu_bound, median_null);
  }
  // Work on other threads outside the runner's timer (its start moved by a worker while the main thread sleeps, or
  // done after the timer stopped): the process's CPU time over a call, beyond a null call's, cannot exceed what all
  // its threads could spend within the reported time plus what idle OpenMP workers spin around it (twice a wake-up's
  // spinning where it was measured: in passive OpenMP waiting, some microseconds, not the fixed bound's 2 ms).
  const double spin_allowance = std::min(kSpinAllowanceMs, null_call.idle_spin_ms ? 2 * *null_call.idle_spin_ms : kSpinAllowanceMs);
  // The main thread's host path is as dear as its own null call found it; the other threads' share of a null call is
  // the calibration's (they were asleep in both).
  std::vector<double> excess;
  for (const TimedCall& c : calls)
    if (host_clock && c.process_cpu_ms) {
      const double dearer_host_path = std::max(0.0, c.null_cpu_ms.value_or(null_call.cpu_ms) - null_call.cpu_ms);
      excess.push_back(*c.process_cpu_ms - null_call.process_cpu_ms - dearer_host_path -
                       c.threads * (c.reported_ms + spin_allowance));
    }
  if (out.inconsistency.empty() && !excess.empty() &&
      median(excess) > std::max(kInconsistencyFloorMs, null_call.cpu_spread_ms)) {
    std::vector<double> reported, process_cpus;
    for (const TimedCall& c : calls) {
      reported.push_back(c.reported_ms);
      if (c.process_cpu_ms) process_cpus.push_back(*c.process_cpu_ms);
    }
    out.inconsistency = fmt::format(
        "the runner reported a median of {:.4f} ms per call, but its threads ran for {:.4f} ms per call by the kernel's "
        "account, more than {} threads can within that time: work ran outside the runner's timer",
        median(reported), median(process_cpus), calls.front().threads);
  }
  // Work between calls: an OpenMP worker that never reached the end of its parallel region (a candidate can count it
  // as arrived at the team's barrier) runs on after the call returned, computing the next repetition's outputs as
  // soon as ksearch has staged its inputs (`escaped_omp_worker`).
  std::vector<double> between;
  for (const TimedCall& c : calls)
    if (host_clock && c.between_calls_cpu_ms) between.push_back(*c.between_calls_cpu_ms);
  if (out.inconsistency.empty() && !between.empty() && median(between) > kBetweenCallsSlackMs)
    out.inconsistency = fmt::format(
        "the runner's other threads ran for {:.4f} ms per call between its calls, after they had gone to sleep, while "
        "ksearch staged the next call's inputs: the candidate's code ran outside its calls, off the clock",
        median(between));
  spdlog::debug("{} timed calls: median reported {:.4f} ms, main thread {:.4f} ms on the CPU beyond null calls of {:.4f} ms (median)",
                calls.size(), median_reported_with_cpu, median_cpu_bound, median_null);
  return out;
}

std::set<int> choose_checked_repetitions(int min_reps, int max_reps, int at_least, int budget, std::mt19937_64& rng) {
  std::set<int> checked;
  // Repetitions of [from, to), in a random order, added until `count` are checked.
  auto draw = [&](int from, int to, int count) {
    std::vector<int> reps(size_t(std::max(to - from, 0)));
    std::iota(reps.begin(), reps.end(), from);
    std::shuffle(reps.begin(), reps.end(), rng);
    for (size_t i = 0; i < reps.size() && int(checked.size()) < count; ++i) checked.insert(reps[i]);
  };
  draw(0, min_reps, std::min(at_least, budget));
  // The rest anywhere among the later repetitions, each as likely as any other: drawn one by one with a budget, they
  // fell on the first later ones, and a candidate skipping work on the last 21 of 40 repetitions passed more than
  // half its evaluations.
  draw(min_reps, max_reps, budget);
  return checked;
}

void flush_host_caches(const std::vector<std::span<const char>>& tensors, size_t sweep_bytes) {
  if (sweep_bytes == 0) return;
#if defined(__x86_64__)
  for (const auto& t : tensors) core::evict_cache_lines(t.data(), t.size());
#else
  static std::vector<char> buffer;
  if (buffer.size() < sweep_bytes) buffer.resize(sweep_bytes);
  // Volatile stores, so the compiler cannot drop the pass; one byte of every 64-byte line is enough.
  volatile char* p = buffer.data();
  for (size_t i = 0; i < sweep_bytes; i += 64) p[i] = char(p[i] + 1);
  (void)tensors;
#endif
}

void copy_out_evenly(char* destination, const char* source, size_t bytes) {
  std::memcpy(destination, source, bytes);
#if defined(__x86_64__)
  core::evict_cache_lines(destination, bytes);
#endif
}

}  // namespace ksearch::evaluator
