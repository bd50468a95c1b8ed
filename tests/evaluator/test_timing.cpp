// The trusted-clock rules of evaluator/timing: what a runner may report against the wall time ksearch
// measured, and which repetitions are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "evaluator/timing.hpp"

using ksearch::evaluator::NullCallCost;
using ksearch::evaluator::RequestCost;
using ksearch::evaluator::TimedCall;
using ksearch::evaluator::TrustedTimes;
using ksearch::evaluator::choose_checked_repetitions;
using ksearch::evaluator::settled_null_call;
using ksearch::evaluator::trusted_times;

using namespace ksearch;

namespace {
const NullCallCost kNullCall{0.01, 0.002};
constexpr double kNullCallWallMs = 0.03;
// What the medians' noise explains of a gap between the reports and the CPU times: a quarter of the null calls' spread.
double median_noise(const NullCallCost& null_call) { return 0.25 * null_call.cpu_spread_ms; }

// Calls whose main thread ran for `cpu_ms` beyond a null call, with scheduling delays on the wall side.
std::vector<TimedCall> calls(double reported, double cpu_ms, int n, double wall_delay = 0) {
  std::vector<TimedCall> out;
  for (int i = 0; i < n; ++i) out.push_back({reported, reported + kNullCallWallMs + wall_delay, cpu_ms + kNullCall.cpu_ms});
  return out;
}
}  // namespace

TEST(TrustedTimes, HonestReportsAreKept) {
  // Single-threaded: the main thread ran for the whole call; on a loaded machine the wall time is far
  // longer, which says nothing against the report.
  const TrustedTimes t = trusted_times(calls(1.0, 0.99, 10, 3.0), kNullCall, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  for (double ms : t.times_ms) EXPECT_DOUBLE_EQ(ms, 1.0);
  EXPECT_EQ(t.host_bound_calls, 0);
}

TEST(TrustedTimes, AReportBelowTheCpuTimeIsRaisedToIt) {
  // 10% under-reported: within what is not called tampering, but the median never counts below the CPU time's
  // (less what the medians' noise explains).
  const TrustedTimes t = trusted_times(calls(0.9, 1.0, 10), kNullCall, true);
  EXPECT_TRUE(t.inconsistency.empty());
  for (double ms : t.times_ms) EXPECT_NEAR(ms, 1.0 - median_noise(kNullCall), 1e-12);
  EXPECT_EQ(t.host_bound_calls, 10);  // and the report says how often the CPU time decided
}

TEST(TrustedTimes, TheHostSidesJitterSetsNeitherTheMedianNorTheSpread) {
  // A short GPU kernel: its thread spins while the kernel runs, so its CPU time is the kernel's plus a jittery
  // host side, above the clock on some calls and below it on more. The clock's times stand as they are.
  std::vector<TimedCall> c;
  for (int i = 0; i < 10; ++i) {
    const double reported = 0.030 + 0.0005 * i;
    c.push_back({reported, reported + kNullCallWallMs, reported + (i % 5 < 2 ? 0.030 : -0.010) + kNullCall.cpu_ms});
  }
  const TrustedTimes t = trusted_times(c, kNullCall, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  ASSERT_EQ(t.times_ms.size(), c.size());
  for (size_t i = 0; i < c.size(); ++i) EXPECT_DOUBLE_EQ(t.times_ms[i], c[i].reported_ms);
  EXPECT_EQ(t.host_bound_calls, 4);
}

TEST(TrustedTimes, UnderReportingMostCallsGainsNothingOnTheMedian) {
  // 6 of 10 calls reported 30% short (under the tampering threshold): the median is raised back to the CPU time's.
  std::vector<TimedCall> c = calls(1.0, 1.0, 10);
  for (int i = 0; i < 6; ++i) c[size_t(i)].reported_ms = 0.7;
  const TrustedTimes t = trusted_times(c, kNullCall, true);
  std::vector<double> sorted = t.times_ms;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(sorted[sorted.size() / 2], 1.0 - median_noise(kNullCall), 1e-12);
}

TEST(TrustedTimes, SystematicUnderReportingIsTampering) {
  const TrustedTimes t = trusted_times(calls(0.05, 2.0, 10), kNullCall, true);
  EXPECT_NE(t.inconsistency.find("tampered"), std::string::npos);
  for (double ms : t.times_ms) EXPECT_NEAR(ms, 2.0 - median_noise(kNullCall), 1e-12);
}

TEST(TrustedTimes, AReportLongerThanTheWallTimeIsForged) {
  std::vector<TimedCall> c = calls(1.0, 1.0, 10);
  c[4].reported_ms = c[4].wall_ms + 0.5;
  EXPECT_NE(trusted_times(c, kNullCall, true).inconsistency.find("forged"), std::string::npos);
}

TEST(TrustedTimes, AccountingNoiseOnTinyCallsIsNotTampering) {
  // A 2 us kernel reported as 0: the gap is under the accounting floor.
  EXPECT_TRUE(trusted_times(calls(0.0, 0.002, 10), kNullCall, true).inconsistency.empty());
  // A few calls with an unreadable or odd CPU account do not decide it either.
  std::vector<TimedCall> c = calls(0.5, 0.5, 10);
  c[1].cpu_ms = 5.0;
  c[2].cpu_ms.reset();
  EXPECT_TRUE(trusted_times(c, kNullCall, true).inconsistency.empty());
}

TEST(TrustedTimes, OnALoadedMachineTheNullCallSetsTheNoiseFloor) {
  // Seen on a loaded 2-core CI machine for an honest 17 us kernel: its thread ran 72 us beyond a null
  // call that itself took 72 us of CPU time then.
  const NullCallCost loaded{0.0715, 0.03};
  std::vector<TimedCall> honest;
  for (int i = 0; i < 10; ++i) honest.push_back({0.0171, 0.5, 0.0715 + 0.0725});
  EXPECT_TRUE(trusted_times(honest, loaded, true).inconsistency.empty());
  // Under-reporting well beyond that noise is still tampering, and times are still raised to the CPU bound's median.
  std::vector<TimedCall> forged;
  for (int i = 0; i < 10; ++i) forged.push_back({0.05, 2.5, 0.0715 + 2.0});
  const TrustedTimes t = trusted_times(forged, loaded, true);
  EXPECT_NE(t.inconsistency.find("tampered"), std::string::npos);
  for (double ms : t.times_ms) EXPECT_NEAR(ms, 2.0 - median_noise(loaded), 1e-12);
}

TEST(TrustedTimes, EachCallIsHeldAgainstTheNullCallBesideIt) {
  // Seen in the suite (two tests at once on two cores): an honest softmax reported 0.028 ms while its main thread ran
  // 0.0955 ms beyond the 0.035 ms null call calibrated before the calls. The host path (reading the command,
  // replying) cost 0.10-0.13 ms in the null calls made beside the calls then: the gap is the host's load, no evidence,
  // and the times stand.
  const NullCallCost calibrated{0.035, 0.02};
  std::vector<TimedCall> honest;
  for (int i = 0; i < 10; ++i) {
    const double host_path = 0.10 + 0.003 * i;
    TimedCall c{0.028, 0.3, host_path + 0.028};
    c.null_cpu_ms = host_path;
    honest.push_back(c);
  }
  std::vector<TimedCall> unpaired = honest;
  for (TimedCall& c : unpaired) c.null_cpu_ms.reset();
  EXPECT_NE(trusted_times(unpaired, calibrated, true).inconsistency.find("tampered"), std::string::npos);
  const TrustedTimes t = trusted_times(honest, calibrated, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  for (size_t i = 0; i < honest.size(); ++i) EXPECT_DOUBLE_EQ(t.times_ms[i], honest[i].reported_ms);
  // Load in bursts: calm and loaded calls alternate, each paired with its own null call.
  std::vector<TimedCall> bursts = honest;
  for (size_t i = 0; i < bursts.size(); i += 2) {
    bursts[i].null_cpu_ms = 0.03;
    bursts[i].cpu_ms = 0.03 + 0.028;
  }
  EXPECT_TRUE(trusted_times(bursts, calibrated, true).inconsistency.empty());
  // A forgery stays one against the null calls beside it, and its times are raised to its CPU time beyond them.
  std::vector<TimedCall> forged = honest;
  for (TimedCall& c : forged) c.cpu_ms = *c.null_cpu_ms + 2.0;
  const TrustedTimes f = trusted_times(forged, calibrated, true);
  EXPECT_NE(f.inconsistency.find("beyond the 0.1150 ms of a null call beside them"), std::string::npos) << f.inconsistency;
  for (double ms : f.times_ms) EXPECT_NEAR(ms, 2.0 - median_noise(calibrated), 1e-12);
  // A null call cheaper than the calibration's counts too: the bound is what the call ran beyond it.
  std::vector<TimedCall> calm(10, TimedCall{0.0, 0.2, 0.01 + 0.5});
  for (TimedCall& c : calm) c.null_cpu_ms = 0.01;
  for (double ms : trusted_times(calm, calibrated, true).times_ms) EXPECT_NEAR(ms, 0.5 - median_noise(calibrated), 1e-12);
}

TEST(TrustedTimes, ADearerHostPathIsNotWorkOnOtherThreads) {
  // An OpenMP kernel on 2 threads keeping both busy for the whole call, its main thread's host path 0.1 ms dearer than
  // calibrated (as its null call found): the process's CPU time beyond the calibration is that, not hidden work.
  const NullCallCost calibrated{0.03, 0.01, 0.03};
  std::vector<TimedCall> c;
  for (int i = 0; i < 10; ++i) {
    TimedCall call{0.5, 0.8, 0.13 + 0.5};
    call.process_cpu_ms = 0.13 + 2 * 0.5;
    call.threads = 2;
    call.null_cpu_ms = 0.13;
    c.push_back(call);
  }
  NullCallCost no_spin = calibrated;
  no_spin.idle_spin_ms = 0.0;
  EXPECT_TRUE(trusted_times(c, no_spin, true).inconsistency.empty()) << trusted_times(c, no_spin, true).inconsistency;
  for (TimedCall& call : c) call.null_cpu_ms.reset();
  EXPECT_NE(trusted_times(c, no_spin, true).inconsistency.find("work ran outside the runner's timer"), std::string::npos);
}

TEST(TrustedTimes, APrepareOrCollectCostlierThanCalibratedIsChargedToTheCall) {
  // The `prepare`s before the calls took 0.02-0.03 ms of wall time where the calibration's most took 0.02 ms: within
  // the allowance (1.5x and 0.01 ms). One call's took 0.2 ms (a hijacked worker computing there): the excess is its.
  NullCallCost calibrated{0.03, 0.01, 0.03};
  calibrated.prepare = RequestCost{0.02, std::nullopt};
  std::vector<TimedCall> c;
  for (int i = 0; i < 10; ++i) {
    TimedCall call{0.1, 0.3, 0.03 + 0.1};
    call.prepare = RequestCost{i == 4 ? 0.2 : 0.02 + 0.001 * i, std::nullopt};
    c.push_back(call);
  }
  const TrustedTimes t = trusted_times(c, calibrated, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  EXPECT_EQ(t.off_clock_charged_calls, 1);
  for (size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(t.times_ms[i], i == 4 ? 0.1 + 0.2 - (1.5 * 0.02 + 0.01) : 0.1, 1e-12) << i;
  // Where the runner's CPU time over the requests is known, a request is charged only as far as its threads also ran:
  // one the scheduler stretched on a loaded host (little CPU time) is not; one where they computed is.
  calibrated.prepare->cpu_ms = 0.01;
  for (TimedCall& call : c) call.prepare->cpu_ms = 0.012;
  EXPECT_EQ(trusted_times(c, calibrated, true).off_clock_charged_calls, 0);
  c[4].prepare->cpu_ms = 0.19;
  const TrustedTimes both = trusted_times(c, calibrated, true);
  EXPECT_EQ(both.off_clock_charged_calls, 1);
  EXPECT_NEAR(both.times_ms[4], 0.1 + std::min(0.2 - (1.5 * 0.02 + 0.01), 0.19 - (1.5 * 0.01 + 0.01)), 1e-12);
  // A `collect` after the call that computed (the outputs finished once the timer stopped) is charged too, on top.
  calibrated.collect = RequestCost{0.015, 0.008};
  for (TimedCall& call : c) call.collect = RequestCost{0.016, 0.009};
  c[7].collect = RequestCost{3.0, 2.9};
  const TrustedTimes after = trusted_times(c, calibrated, true);
  EXPECT_EQ(after.off_clock_charged_calls, 2);
  EXPECT_NEAR(after.times_ms[7], 0.1 + std::min(3.0 - (1.5 * 0.015 + 0.01), 2.9 - (1.5 * 0.008 + 0.01)), 1e-12);
  // Without a calibration (a device's runner), nothing is charged.
  calibrated.prepare.reset();
  calibrated.collect.reset();
  EXPECT_EQ(trusted_times(c, calibrated, true).off_clock_charged_calls, 0);
}

TEST(TrustedTimes, OtherThreadsWorkBetweenTheRequestsIsChargedToTheCall) {
  // Two threads; a worker spins 0.01 ms after a wake-up (calibrated). Over each repetition the worker ran for the call
  // (0.1 ms) and 0.015 ms around it: within its allowance (the call's time and twice the spin, and 0.02 ms). One
  // repetition's worker also ran 0.5 ms outside every request (the staged outputs computed between `prepare` and the
  // call): the excess is charged to that call.
  NullCallCost calibrated{0.03, 0.01, 0.03};
  calibrated.idle_spin_ms = 0.01;
  std::vector<TimedCall> c;
  for (int i = 0; i < 10; ++i) {
    TimedCall call{0.1, 0.3, 0.03 + 0.1, 0.03 + 0.2, 2};
    call.other_threads_repetition_cpu_ms = 0.1 + (i == 6 ? 0.5 : 0.015);
    c.push_back(call);
  }
  const TrustedTimes t = trusted_times(c, calibrated, true);
  EXPECT_EQ(t.off_clock_charged_calls, 1);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(t.times_ms[i], i == 6 ? 0.1 + (0.6 - (0.1 + 2 * 0.01 + 0.02)) : 0.1, 1e-12) << i;
  // Where the workers' spinning was not measured, or the runner has no other thread, nothing is charged this way.
  calibrated.idle_spin_ms.reset();
  EXPECT_EQ(trusted_times(c, calibrated, true).off_clock_charged_calls, 0);
}

TEST(TrustedTimes, AGapWithinTheMediansNoiseIsNoEvidence) {
  // An honest 15 us kernel whose host path cost a little more than the null calls' median, within what the two
  // medians' noise explains: its times stand, and no call counts as host-bound.
  const NullCallCost null_call{0.08, 0.03};
  std::vector<TimedCall> c;
  for (int i = 0; i < 12; ++i) c.push_back({0.015 + 0.0002 * i, 0.2, 0.08 + 0.019 + 0.001 * (i % 3)});
  const TrustedTimes t = trusted_times(c, null_call, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  for (size_t i = 0; i < c.size(); ++i) EXPECT_DOUBLE_EQ(t.times_ms[i], c[i].reported_ms);
  EXPECT_EQ(t.host_bound_calls, 0);
}

TEST(TrustedTimes, ATinyKernelReportingNothingIsRaisedToItsCpuTime) {
  // Under the tampering threshold (a 15 us gap), but the median still counts what the kernel's thread ran, less
  // only the medians' noise: reporting nothing gains at most that.
  const NullCallCost null_call{0.08, 0.02};
  const TrustedTimes t = trusted_times(std::vector<TimedCall>(12, TimedCall{0.0, 0.2, 0.08 + 0.015}), null_call, true);
  EXPECT_TRUE(t.inconsistency.empty()) << t.inconsistency;
  for (double ms : t.times_ms) EXPECT_NEAR(ms, 0.015 - median_noise(null_call), 1e-12);
}

// Calls of `threads` threads whose process ran `process_ms` of CPU time beyond a null call, the main thread asleep
// for most of it (its own CPU time that of a null call).
std::vector<TimedCall> threaded_calls(double reported, double process_ms, int threads, int n) {
  std::vector<TimedCall> out;
  for (int i = 0; i < n; ++i) {
    TimedCall c{reported, reported + 0.05 + process_ms / threads, kNullCall.cpu_ms};
    c.process_cpu_ms = process_ms + 0.01;
    c.threads = threads;
    out.push_back(c);
  }
  return out;
}

TEST(TrustedTimes, AllThreadsWorkingWithinTheReportIsHonest) {
  // An OpenMP kernel on 4 threads: 4 ms of CPU time in a 1 ms call, plus what idle workers spin afterwards.
  const NullCallCost null_call{0.01, 0.002, 0.01};
  EXPECT_TRUE(trusted_times(threaded_calls(1.0, 4.0, 4, 10), null_call, true).inconsistency.empty());
  EXPECT_TRUE(trusted_times(threaded_calls(0.02, 4.0, 4, 10), null_call, true).inconsistency.empty());  // spinning only
}

TEST(TrustedTimes, WorkOnOtherThreadsBeyondTheReportIsTampering) {
  // Workers computed 40 ms while the main thread slept and a worker moved the timer's start: 1 ms reported.
  const NullCallCost null_call{0.01, 0.002, 0.01};
  const TrustedTimes t = trusted_times(threaded_calls(1.0, 40.0, 4, 10), null_call, true);
  EXPECT_NE(t.inconsistency.find("work ran outside the runner's timer"), std::string::npos) << t.inconsistency;
  // Where the reports are a device's timer, host threads may well run beyond them.
  EXPECT_TRUE(trusted_times(threaded_calls(1.0, 40.0, 4, 10), null_call, false).inconsistency.empty());
}

TEST(TrustedTimes, OtherThreadsRunningWhileInputsAreStagedIsWorkOffTheClock) {
  // An OpenMP worker that never returned from the candidate's region computes each repetition's outputs as soon as
  // ksearch has staged its inputs, after the workers had been found asleep: 0.5 ms of CPU time before each call.
  const NullCallCost null_call{0.01, 0.002, 0.01};
  std::vector<TimedCall> escaped = threaded_calls(0.01, 0.02, 2, 10);
  for (TimedCall& c : escaped) c.between_calls_cpu_ms = 0.5;
  const TrustedTimes t = trusted_times(escaped, null_call, true);
  EXPECT_NE(t.inconsistency.find("ran outside its calls, off the clock"), std::string::npos) << t.inconsistency;
  // Asleep as found, as honest workers stay until the next call wakes them; one stray reading is not evidence.
  std::vector<TimedCall> honest = threaded_calls(0.01, 0.02, 2, 10);
  for (TimedCall& c : honest) c.between_calls_cpu_ms = 0;
  honest.front().between_calls_cpu_ms = 0.5;
  EXPECT_TRUE(trusted_times(honest, null_call, true).inconsistency.empty());
}

TEST(NullCall, TheLoadedCalibrationCountsUpToTheTrustedOnesSpread) {
  // After loading, every request passes the sandbox's filters: a dearer null call is the calls' real cost...
  const NullCallCost trusted{0.08, 0.02};
  EXPECT_DOUBLE_EQ(settled_null_call(trusted, {0.09, 0.05}).cpu_ms, 0.09);
  EXPECT_DOUBLE_EQ(settled_null_call(trusted, {0.07, 0.01}).cpu_ms, 0.07);
  // ...but candidate threads could slow the loaded calibration down to lower every call's CPU bound: capped.
  const NullCallCost slowed = settled_null_call(trusted, {0.5, 0.4});
  EXPECT_DOUBLE_EQ(slowed.cpu_ms, 0.10);
  EXPECT_DOUBLE_EQ(slowed.cpu_spread_ms, 0.02);  // the spread is always the trusted one's
}

TEST(CheckedRepetitions, AtLeastTwoAmongTheRepetitionsThatAlwaysRunAndWithinBudget) {
  std::mt19937_64 rng(7);
  std::map<int, int> hits;
  for (int draw = 0; draw < 400; ++draw) {
    const std::set<int> checked = choose_checked_repetitions(5, 40, 2, 8, rng);
    ASSERT_GE(checked.size(), 2u);
    ASSERT_LE(checked.size(), 8u);
    int early = 0;
    for (int rep : checked) {
      EXPECT_LT(rep, 40);
      early += rep < 5;
      ++hits[rep];
    }
    EXPECT_EQ(early, 2);
  }
  // Every early repetition and every later one gets checked across draws, the later ones about as often as each other
  // (6 of 35 per draw: some 69 of 400 each), the last as often as the first: the runner cannot predict which.
  for (int rep = 0; rep < 5; ++rep) EXPECT_GT(hits[rep], 80) << rep;
  for (int rep = 5; rep < 40; ++rep) {
    EXPECT_GT(hits[rep], 35) << rep;
    EXPECT_LT(hits[rep], 110) << rep;
  }
  EXPECT_TRUE(choose_checked_repetitions(5, 40, 2, 0, rng).empty());
}

namespace {
// The fastest of `trials` reads of every cache line of `buffer`, in microseconds, each after `before()`.
double fastest_read_us(const std::vector<char>& buffer, int trials, const std::function<void()>& before) {
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    before();
    const auto start = std::chrono::steady_clock::now();
    const volatile char* p = buffer.data();  // volatile: every read happens
    for (size_t i = 0; i < buffer.size(); i += 64) (void)p[i];
    const auto end = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::micro>(end - start).count());
  }
  return best;
}

// The fastest read of a 4 MiB tensor (inside any last-level cache we run on) just after writing it, and just
// after writing it and calling flush_host_caches with `sweep_bytes`; interleaved, so that load on the machine
// hits both alike.
std::pair<double, double> read_cached_and_after_flush(size_t sweep_bytes) {
  std::vector<char> tensor(size_t(4) << 20, 1);
  const std::vector<std::span<const char>> tensors = {std::span<const char>(tensor.data(), tensor.size())};
  const auto touch = [&] { std::fill(tensor.begin(), tensor.end(), char(1)); };
  double cached = 1e30, after_flush = 1e30;
  for (int round = 0; round < 3; ++round) {
    cached = std::min(cached, fastest_read_us(tensor, 3, touch));
    after_flush = std::min(after_flush, fastest_read_us(tensor, 3, [&] {
      touch();
      evaluator::flush_host_caches(tensors, sweep_bytes);
    }));
  }
  return {cached, after_flush};
}
}  // namespace

// The flush before a timed call leaves a tensor ksearch has just written in memory, not in any cache: reading
// it after the flush is slower than reading it while cached (the sweep size applies where lines cannot be evicted).
TEST(HostCacheFlush, AFlushedTensorComesFromMemory) {
  const auto [cached, flushed] = read_cached_and_after_flush(size_t(256) << 20);
  EXPECT_GT(flushed, 1.3 * cached) << "read after the flush " << flushed << " us, cached " << cached << " us";
}

// A backend whose tensors live in a device's memory (host_flush_bytes 0) gets no host flush: the tensor stays cached.
TEST(HostCacheFlush, NothingIsFlushedWithoutASweepSize) {
  const auto [cached, unflushed] = read_cached_and_after_flush(0);
  EXPECT_LT(unflushed, 1.3 * cached) << "read after no flush " << unflushed << " us, cached " << cached << " us";
}
