#pragma once
// Timing against clocks the candidate cannot reach. A candidate runs inside the runner's process and
// can tamper with anything there, the runner's clock and replies included, so the time a runner
// reports for a call is held against two measurements ksearch takes from outside that process: the
// wall time around the call (an upper bound: the runner's interval lies inside it) and the CPU time
// the kernel accounted to the runner's main thread during it (a lower bound: a thread cannot run for
// longer than the call lasted). Wall time cannot be a lower bound: on a loaded machine the runner
// and ksearch wait to be scheduled, which inflates it by milliseconds for honest calls.
#include <chrono>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/parent.hpp"

namespace ksearch::evaluator {

// What a request to the runner other than the timed call (`prepare`, `collect`) cost, measured from outside its
// process: the wall time from sending it to reading the reply, and all the runner's threads' CPU time over it (the
// main thread's read once it blocked again; nullopt where the platform cannot tell). Only the runner's code should
// run there: work beyond the calibrated cost is the candidate's, off the clock.
struct RequestCost {
  double wall_ms = 0;
  std::optional<double> cpu_ms;
};
RequestCost measure_request(runner::RunnerProcess& process, const nlohmann::json& command, std::chrono::milliseconds timeout);

// One timed call as measured from both sides.
struct TimedCall {
  double reported_ms = 0;             // what the runner said
  double wall_ms = 0;                 // from sending the command to reading the reply
  std::optional<double> cpu_ms;       // the runner's main thread's CPU time over the same span
  std::optional<double> process_cpu_ms;  // all its threads' CPU time over the same span
  int threads = 0;                       // how many threads it had
  // The CPU time its threads but the main one spent while ksearch staged the call's inputs, from when it had found
  // them asleep: nothing of the runner's runs them then (the evaluator sets it where it was read).
  std::optional<double> between_calls_cpu_ms;
  // The main thread's CPU time in a null call made in the same repetition, before its inputs were staged (the
  // evaluator sets it where measure_null_beside had one): what the host path around a call cost in the load this
  // call ran in, which on a loaded machine can be several times the calibration's.
  std::optional<double> null_cpu_ms;
  // The `prepare` before it (staged inputs, woken threads) and the `collect` after it, where measured.
  std::optional<RequestCost> prepare, collect;
  // The CPU time the runner's threads but the main one spent over the whole repetition, from finding them asleep
  // before its inputs were staged to finding them asleep again after its `collect` (both settled readings: a running
  // thread's total lags up to a scheduler tick), where read.
  std::optional<double> other_threads_repetition_cpu_ms;
};
TimedCall measure_timed_call(runner::RunnerProcess& process, const nlohmann::json& command,
                             std::chrono::milliseconds timeout);

// What a timed call with nothing called costs: parsing, replying, the timer itself, each after the same
// cache flush as a real call has beside its tensors' eviction (none on x86-64), with the
// `timed_call` command a workload's calls will send: the runner's main thread's median CPU time, and how
// far those times spread (10th to 90th percentile), the noise of the host path around every call.
struct NullCallCost {
  double cpu_ms = 0;
  double cpu_spread_ms = 0;
  double process_cpu_ms = 0;  // all the runner's threads, median
  // What one wake-up of OpenMP's team costs each idle worker on the CPU until it sleeps again (libgomp's spinning),
  // where measured (measure_runner_work); the allowance for that spinning around a call is twice it (the wake-up before
  // the call and the region's end), never more than a fixed bound.
  std::optional<double> idle_spin_ms;
  // The most a `prepare` that wakes the workers and a `collect` cost before any call (the runner's code only), wall
  // and CPU time each: a later one costs more where candidate code runs in it, off the clock (a hijacked worker in the
  // wake-up, the runner's device reference redirected to a copy of its own); trusted_times charges the excess to the
  // call.
  std::optional<RequestCost> prepare, collect;
};
NullCallCost calibrate_null_call(runner::RunnerProcess& process, const nlohmann::json& command, size_t flush_bytes,
                                 std::chrono::milliseconds timeout);
// The cost a timed call without a null call of its own (measure_null_beside) is measured against, and the spread
// and other threads' share every call is, from a calibration before the candidate was loaded
// (trusted: no candidate code existed) and one after (the state the calls run in: behind the sandbox's
// system-call filters, which every request's reads and writes pass through). The loaded one is taken,
// but never more than the trusted median plus its spread: candidate threads running beside the null
// calls could slow them, and a costlier null call would lower every call's CPU bound. The spread is the
// trusted one's, for the same reason.
NullCallCost settled_null_call(const NullCallCost& before_loading, const NullCallCost& after_loading);
// A null call beside a workload's timed calls (the `timed_call` `command` it makes next, nothing called), with the
// runner's other threads asleep: its main thread's CPU time, or nullopt where another of its threads ran meanwhile
// (a candidate's thread slowing the host path would lower the calls' CPU bounds). Made after the last repetition's `collect`, which ran the same host path as the `prepare`
// before a timed call does: what the last call may have left behind (the runner's data evicted or paged out) is back.
std::optional<double> measure_null_beside(runner::RunnerProcess& process, const nlohmann::json& command,
                                          std::chrono::milliseconds timeout);
// Before any call (the runner's code only): per idle worker, the CPU time from a `wake_command` (a `prepare` that wakes
// OpenMP's team) until every worker sleeps again, the most of three (nullopt where the runner has no workers, or where
// they were not found asleep within `idle_bound` around three of nine wake-ups); and the most such a `prepare` and a
// `collect_command` after it cost (measure_request), each where the platform tells the runner's CPU time.
struct RunnerWorkCost {
  std::optional<double> idle_spin_ms;
  std::optional<RequestCost> prepare, collect;
};
RunnerWorkCost measure_runner_work(runner::RunnerProcess& process, const nlohmann::json& wake_command,
                                   const nlohmann::json& collect_command, std::chrono::milliseconds idle_bound,
                                   std::chrono::milliseconds timeout);

struct TrustedTimes {
  // Per call: the reported time, plus the cost of its `prepare` and `collect` beyond what the calibration's allow, all
  // raised by one gap where the reports' median is below the median of the main thread's CPU time in the calls beyond
  // a null call's (each call's own null call where it has one, else the calibrated one), less the noise of those
  // medians (a quarter of the calibrated null calls' spread).
  std::vector<double> times_ms;
  // How many calls were charged work in their `prepare` or `collect` (times_ms).
  int off_clock_charged_calls = 0;
  // How many calls took the main thread longer on the CPU than the runner's clock saw (beyond their null
  // call and its spread): the host side's work (launches, synchronization, the candidate's host code) rivals the kernel's.
  int host_bound_calls = 0;
  // Set when the reports contradict ksearch's measurements: a call reported longer than its wall
  // time, or reports systematically below the CPU time spent (the runner's clock or replies were
  // tampered with).
  std::string inconsistency;
};
// `host_clock`: the reports are the host's clock around the whole call (Backend::reports_host_clock), so all the
// runner's threads' CPU time over a call is bounded by them too, and none of its other threads may run between calls.
// A call's main-thread CPU time is held against its own null call (TimedCall::null_cpu_ms) where it has one: the
// calibration's null call, made before the calls, misses the load they ran in.
TrustedTimes trusted_times(const std::vector<TimedCall>& calls, const NullCallCost& null_call, bool host_clock);

// Which timed repetitions have their outputs verified: `at_least` random ones among the first
// `min_reps` (which always run), the rest of `budget` uniformly among the later ones (those past the last repetition
// that runs are not checked). Drawn by ksearch and never told to the runner.
std::set<int> choose_checked_repetitions(int min_reps, int max_reps, int at_least, int budget, std::mt19937_64& rng);

// Evicts a timed call's tensors (which ksearch has just written) from every level of the host's caches:
// on x86-64 by flushing their lines (clflushopt where the CPU has it), which costs in proportion to the
// tensors and leaves the runner's own code and data cached, as they are in an application calling the
// kernel repeatedly; elsewhere by writing every line of a buffer of `sweep_bytes` in this process. Nothing
// where `sweep_bytes` is 0 (Backend::host_flush_bytes: the data lives in a device's memory). Called with
// the TimingLock held, which also keeps threads of this process from sharing the buffer.
void flush_host_caches(const std::vector<std::span<const char>>& tensors, size_t sweep_bytes);

// Copies a repetition's outputs out of the shared memory into `destination` so that the copy costs the same whichever
// buffer it goes to: on x86-64 the destination is evicted afterwards (its dirty lines written back), so every copy
// writes into lines out of the cache, whether into a buffer written after every repetition or into one written once
// for a check. A warm scratch buffer beside cold ones made the gap after a checked repetition longer, which a
// candidate timing the gaps between its calls could count checks by. Elsewhere a plain copy.
void copy_out_evenly(char* destination, const char* source, size_t bytes);

}  // namespace ksearch::evaluator
