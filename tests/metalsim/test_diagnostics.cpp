// Diagnostics: each buggy kernel must be reported, its correct twin must run clean.
#include <algorithm>
#include <cmath>

#include "helpers.hpp"

using namespace mstest;

namespace {

struct Launch {
  RunResult result;
  std::vector<float> out;
};

// One float input `a` (64 elements, or n elements), one float output of the same size.
KernelSpec spec64(const std::string& name, const std::string& file, int n = 64, bool with_n = false) {
  KernelSpec s;
  s.name = name;
  s.inputs = {tensor("a", Dtype::float32, {n})};
  if (with_n) s.inputs.push_back(tensor("n", Dtype::uint32, {}));
  s.outputs = {tensor("out", Dtype::float32, {n})};
  s.source = corpus("diag/" + file);
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  return s;
}

Launch launch(const KernelSpec& s, RunOptions o = {}) {
  Launch l;
  std::string so = build(s);
  if (so.empty()) return l;
  int64_t n = s.inputs[0].shape[0];
  std::vector<float> a(n);
  for (int64_t i = 0; i < n; ++i) a[i] = float(i) + 1.0f;
  std::vector<uint32_t> nv{static_cast<uint32_t>(n)};
  l.out.assign(n, 0.0f);
  std::vector<Buffer> in{buf(s.inputs[0], a)};
  if (s.inputs.size() > 1) in.push_back(buf(s.inputs[1], nv));
  std::vector<Buffer> out{buf(s.outputs[0], l.out)};
  l.result = run(so, s, in, out, o);
  return l;
}

// Device memory: the data_race record on buffer `out`, if any.
const Diagnostic* device_race(const RunResult& r, const std::string& buffer = "out") {
  for (const auto& d : r.diagnostics)
    if (d.kind == DiagnosticKind::DataRace && d.buffer == buffer) return &d;
  return nullptr;
}

RunOptions workers(unsigned n) {
  RunOptions o;
  o.workers = n;
  return o;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether a finding's message holds `text` and names the kernel line `line` ("body line 4").
bool names(const std::string& message, const std::string& text, const std::string& line) {
  return contains(message, text) && contains(message, " at " + line);
}

// The message of a run's only diagnostic, which must be of `kind` on `buffer` (empty, with a test failure, if not).
std::string only_diagnostic(const Launch& l, DiagnosticKind kind, const std::string& buffer) {
  const auto& ds = l.result.diagnostics;
  if (ds.size() != 1 || ds[0].kind != kind || ds[0].buffer != buffer) {
    ADD_FAILURE() << "expected one " << diagnostic_kind_name(kind) << " on " << buffer << ", got:\n" << describe(l.result);
    return "";
  }
  return ds[0].message;
}

// diag/<name>.metal over 64 threads in threadgroups of `threads`.
Launch launch_grouped(const std::string& name, int threads, RunOptions o = {}) {
  KernelSpec s = spec64(name, name + ".metal");
  s.threadgroup = {threads, 1, 1};
  return launch(s, o);
}

}  // namespace

TEST(MetalsimDiagnostics, OutOfBoundsNamesBufferAndThread) {
  KernelSpec bug = spec64("oob_bug", "oob_bug.metal", 100);
  bug.grid = {128, 1, 1};
  Launch l = launch(bug);
  ASSERT_FALSE(l.result.ok);
  bool read = false, write = false;
  for (const auto& d : l.result.diagnostics) {
    ASSERT_EQ(d.kind, DiagnosticKind::OutOfBounds) << d.message;
    EXPECT_TRUE(d.has_thread);
    EXPECT_GE(d.thread_position[0], 100u);
    EXPECT_EQ(d.threadgroup_position[0], 1u);
    // Both accesses sit on the body's line 3.
    if (d.buffer == "a") read = contains(d.message, "read") && contains(d.message, " at body line 3");
    if (d.buffer == "out") write = contains(d.message, "write") && contains(d.message, " at body line 3");
    EXPECT_EQ(d.count, 28u);  // threads 100..127
  }
  EXPECT_TRUE(read) << describe(l.result);
  EXPECT_TRUE(write) << describe(l.result);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(l.out[i], 2.0f * (i + 1));  // in-bounds work still done

  KernelSpec ok = spec64("oob_ok", "oob_ok.metal", 100, true);
  ok.grid = {128, 1, 1};
  Launch g = launch(ok);
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(g.out[i], 2.0f * (i + 1));
}

// A finding names the kernel line of the access: a header helper's own line, the line that calls an atomic function,
// the line of a vector component written through a shim proxy.
TEST(MetalsimDiagnostics, FindingsNameTheAccessLine) {
  KernelSpec bug = spec64("oob_lines_bug", "oob_lines_bug.metal", 8);
  bug.header = corpus("diag/oob_lines_bug_header.metal");
  bug.grid = {1, 1, 1};
  bug.threadgroup = {1, 1, 1};
  Launch l = launch(bug);
  std::vector<std::string> messages;
  for (const auto& d : l.result.diagnostics) messages.push_back(d.message);
  ASSERT_EQ(messages.size(), 3u) << describe(l.result);
  EXPECT_TRUE(contains(messages[0], "write to device buffer 'out' at element 9") &&
              contains(messages[0], " at header line 3"))
      << messages[0];
  EXPECT_TRUE(contains(messages[1], "atomic operation on device buffer 'out' at element 12") &&
              contains(messages[1], " at body line 5"))
      << messages[1];
  EXPECT_TRUE(contains(messages[2], "read of device buffer 'a' at element 17") && contains(messages[2], " at body line 7"))
      << messages[2];
}

// Threadgroup variables lie apart, red zones between them, so an index just past one array (or below the first) is
// reported with the array it overran rather than reading its neighbour.
TEST(MetalsimDiagnostics, ThreadgroupIndexPastAnArrayIsOutOfBounds) {
  const std::string over = only_diagnostic(launch(spec64("tg_overrun_bug", "tg_overrun_bug.metal")),
                                           DiagnosticKind::OutOfBounds, "tile");
  EXPECT_TRUE(names(over, "out-of-bounds read of threadgroup memory: byte 256 of 'tile' (256 bytes) by thread (63,0,0)",
                    "body line 8"))
      << over;
  const std::string under = only_diagnostic(launch(spec64("tg_underrun_bug", "tg_underrun_bug.metal")),
                                            DiagnosticKind::OutOfBounds, "tile");
  EXPECT_TRUE(names(under, "byte -4 of 'tile' (256 bytes) by thread (0,0,0)", "body line 7")) << under;
}

// What a read past a threadgroup array (its red zone) finds is RunOptions::undefined_fill, as is what a read of a
// never-written variable finds: ksearch-metalsim runs a kernel with two fills to tell whether such values reach the
// outputs.
TEST(MetalsimDiagnostics, ThreadgroupFillIsWhatUnwrittenThreadgroupMemoryHolds) {
  const KernelSpec over = spec64("tg_overrun_bug", "tg_overrun_bug.metal");
  RunOptions zeros;
  zeros.undefined_fill = 0x00;
  const Launch filled_with_zeros = launch(over, zeros), filled_with_ones = launch(over);
  EXPECT_EQ(filled_with_zeros.out[63], 64.0f);  // a[63] + the red zone's 0.0f
  EXPECT_TRUE(std::isnan(filled_with_ones.out[63]));
  EXPECT_EQ(filled_with_zeros.out[62], filled_with_ones.out[62]);
  const Launch unwritten = launch(spec64("uninit_bug", "uninit_bug.metal"), zeros);
  ASSERT_TRUE(has_kind(unwritten.result, DiagnosticKind::UninitializedRead)) << describe(unwritten.result);
  EXPECT_EQ(unwritten.out[62], 0.0f);  // tile[63], which no thread wrote
}

TEST(MetalsimDiagnostics, BoundsCheckCanBeTurnedOff) {
  KernelSpec bug = spec64("oob_bug", "oob_bug.metal", 100);
  bug.grid = {101, 1, 1};  // one element past the end: harmless on the host heap
  bug.threadgroup = {101, 1, 1};
  RunOptions o;
  o.check_bounds = false;
  std::string so = build(bug);
  std::vector<float> a(128, 1.0f), out(128, 0.0f);
  Buffer in{"a", Dtype::float32, {100}, a.data(), 400};
  Buffer ob{"out", Dtype::float32, {100}, out.data(), 400};
  RunResult r = run(so, bug, std::span<Buffer>(&in, 1), std::span<Buffer>(&ob, 1), o);
  EXPECT_TRUE(r.ok) << describe(r);
}

TEST(MetalsimDiagnostics, ThreadgroupMemoryOver32KiB) {
  Launch l = launch(spec64("tgmem_bug", "tgmem_bug.metal"));
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::ThreadgroupMemoryLimit)) << describe(l.result);
  EXPECT_EQ(l.result.diagnostics[0].buffer, "scratch");
  EXPECT_NE(l.result.diagnostics[0].message.find("36000"), std::string::npos);
  Launch g = launch(spec64("tgmem_ok", "tgmem_ok.metal"));
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(g.out[i], float((i * 97) % 8000));
}

TEST(MetalsimDiagnostics, ThreadgroupOver1024Threads) {
  KernelSpec bug = spec64("tgsize", "tgsize.metal", 2048);
  bug.grid = {2048, 1, 1};
  bug.threadgroup = {2048, 1, 1};
  Launch l = launch(bug);
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::ThreadgroupTooLarge)) << describe(l.result);
  KernelSpec ok = bug;
  ok.threadgroup = {1024, 1, 1};
  Launch g = launch(ok);
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  EXPECT_EQ(g.out[2047], 2048.0f);
}

TEST(MetalsimDiagnostics, BarrierSkippedByExitedThreads) {
  KernelSpec bug = spec64("barrier_bug", "barrier_bug.metal", 60, true);
  Launch l = launch(bug);
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::BarrierDivergence)) << describe(l.result);
  EXPECT_NE(l.result.diagnostics[0].message.find("line 7"), std::string::npos) << l.result.diagnostics[0].message;
  KernelSpec ok = spec64("barrier_ok", "barrier_ok.metal", 60, true);
  Launch g = launch(ok);
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  EXPECT_EQ(g.out[0], 0.0f);  // tile[63] is the padding zero
  EXPECT_EQ(g.out[10], 54.0f);
}

TEST(MetalsimDiagnostics, DifferentBarriersInDivergentBranches) {
  Launch l = launch(spec64("divergent_bug", "divergent_bug.metal"));
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::BarrierDivergence)) << describe(l.result);
  EXPECT_NE(l.result.diagnostics[0].message.find("different"), std::string::npos);
  // The barriers are named by their section's lines (the file's first line is a comment, line 1 of the body).
  EXPECT_NE(l.result.diagnostics[0].message.find("body line 6"), std::string::npos) << l.result.diagnostics[0].message;
  EXPECT_NE(l.result.diagnostics[0].message.find("body line 9"), std::string::npos) << l.result.diagnostics[0].message;
  Launch g = launch(spec64("divergent_ok", "divergent_ok.metal"));
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  EXPECT_EQ(g.out[0], -64.0f);
  EXPECT_EQ(g.out[63], 1.0f);
}

TEST(MetalsimDiagnostics, BarrierInsideVaryingLoop) {
  Launch l = launch(spec64("deadlock_bug", "deadlock_bug.metal"));
  EXPECT_FALSE(l.result.ok);
  EXPECT_TRUE(has_kind(l.result, DiagnosticKind::BarrierDivergence)) << describe(l.result);
}

TEST(MetalsimDiagnostics, ThreadgroupDataRace) {
  Launch l = launch(spec64("race_bug", "race_bug.metal"));
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::DataRace)) << describe(l.result);
  const Diagnostic& d = l.result.diagnostics[0];
  EXPECT_EQ(d.buffer, "tile");
  EXPECT_TRUE(d.has_thread);
  Launch g = launch(spec64("race_ok", "race_ok.metal"));
  EXPECT_TRUE(g.result.ok) << describe(g.result);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(g.out[i], float((i + 1) % 64 + 1));
  KernelSpec simd = spec64("race_simd_ok", "race_simd_ok.metal", 32);
  simd.grid = {32, 1, 1};
  simd.threadgroup = {32, 1, 1};
  Launch s = launch(simd);
  EXPECT_TRUE(s.result.ok) << describe(s.result);
  EXPECT_EQ(s.out[31], 1.0f);
}

// Threadgroup memory: stores that leave the bytes as they were (every thread storing one flag or one reduction
// result) conflict with nothing; stores of different values, and reads of a changed value by threads that did not
// store it, race.
TEST(MetalsimDiagnostics, ThreadgroupStoresOfTheSameValueAreNoRace) {
  Launch l = launch(spec64("tg_same_value_ok", "tg_same_value_ok.metal"));
  EXPECT_TRUE(l.result.ok) << describe(l.result);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(l.out[i], 64.0f + 32.0f * 64.0f) << i;
}

TEST(MetalsimDiagnostics, ThreadgroupStoresOfDifferentValuesRace) {
  Launch l = launch(spec64("tg_different_values_bug", "tg_different_values_bug.metal"));
  const std::string m = only_diagnostic(l, DiagnosticKind::DataRace, "tg_max");
  EXPECT_TRUE(contains(m, "data race on threadgroup variable 'tg_max' (byte 0): written by thread (0,0,0)") &&
              contains(m, "and written by thread (1,0,0)") && contains(m, "(they stored different values;") &&
              contains(m, "if (thread_index_in_threadgroup == 0)"))
      << m;
  if (!m.empty()) EXPECT_EQ(l.result.diagnostics[0].count, 63u * 4u);  // the 4 bytes of every store after the first
}

TEST(MetalsimDiagnostics, ThreadgroupReadOfAStoreItDidNotMakeRaces) {
  Launch l = launch(spec64("tg_same_value_unwritten_read_bug", "tg_same_value_unwritten_read_bug.metal"));
  const std::string m = only_diagnostic(l, DiagnosticKind::DataRace, "ready");
  // Thread 63, the last to reach the barrier, goes on first and reads before the first SIMD group stores.
  EXPECT_TRUE(contains(m, "read by thread (63,0,0)") && contains(m, "and written by thread (0,0,0)")) << m;
}

// Every reader of a barrier interval counts, not only the first: here the first reader is the writer itself.
TEST(MetalsimDiagnostics, ThreadgroupStoreRacesWithALaterReader) {
  Launch l = launch(spec64("tg_reader_overwrite_bug", "tg_reader_overwrite_bug.metal"));
  const std::string m = only_diagnostic(l, DiagnosticKind::DataRace, "v");
  EXPECT_TRUE(contains(m, "read by thread (63,0,0)") && contains(m, "and written by thread (0,0,0)")) << m;
}

TEST(MetalsimDiagnostics, RaceCheckCanBeTurnedOff) {
  RunOptions o;
  o.check_races = false;
  Launch l = launch(spec64("race_bug", "race_bug.metal"), o);
  EXPECT_FALSE(has_kind(l.result, DiagnosticKind::DataRace)) << describe(l.result);
}

TEST(MetalsimDiagnostics, DeviceRaceBetweenThreadgroupsWriteThenRead) {
  // One worker: threadgroup 0 first, and the last thread to reach the barrier goes on first.
  Launch l = launch_grouped("device_race_groups_bug", 32, workers(1));
  const Diagnostic* d = device_race(l.result);
  ASSERT_NE(d, nullptr) << describe(l.result);
  EXPECT_EQ(d->message,
            "data race on device buffer 'out' (element 31): written by thread (31,0,0) (threadgroup (0,0,0), local "
            "(31,0,0)) and read by thread (63,0,0) (threadgroup (1,0,0), local (31,0,0)) at body line 7, in different "
            "threadgroups "
            "(nothing orders the threadgroups of a dispatch)");
  EXPECT_EQ(d->threadgroup_position[0], 1u);
  EXPECT_EQ(d->count, 32u);
  // Threadgroups on concurrent workers: each conflicting pair is still found once, whichever access comes first.
  for (int i = 0; i < 5; ++i) {
    Launch c = launch_grouped("device_race_groups_bug", 32, workers(4));
    const Diagnostic* dc = device_race(c.result);
    ASSERT_NE(dc, nullptr) << describe(c.result);
    EXPECT_EQ(dc->count, 32u) << dc->message;
  }
}

TEST(MetalsimDiagnostics, DeviceRaceBetweenThreadgroupsWriteThenWrite) {
  Launch l = launch_grouped("device_race_overlap_bug", 32, workers(1));
  const Diagnostic* d = device_race(l.result);
  ASSERT_NE(d, nullptr) << describe(l.result);
  EXPECT_TRUE(contains(d->message, "(element 0): written by thread (0,0,0) (threadgroup (0,0,0)") &&
              contains(d->message, "and written by thread (32,0,0) (threadgroup (1,0,0)"))
      << d->message;
  EXPECT_EQ(d->count, 32u);
}

TEST(MetalsimDiagnostics, DeviceRaceOnAnInputWrittenThroughACast) {
  Launch l = launch_grouped("device_race_input_bug", 32, workers(4));
  const Diagnostic* d = device_race(l.result, "a");
  ASSERT_NE(d, nullptr) << describe(l.result);
  EXPECT_TRUE(contains(d->message, "in different threadgroups")) << describe(l.result);
  EXPECT_EQ(d->count, 32u);
  EXPECT_TRUE(has_kind(l.result, DiagnosticKind::InputWrite)) << describe(l.result);
}

// Inputs are const device memory shared with the caller: a write through a cast is reported at its line, and a
// write the hooks do not see as one (an atomic exchange) by the input's changed contents after the run.
TEST(MetalsimDiagnostics, WritesToAnInputAreReported) {
  Launch w = launch(spec64("input_write_bug", "input_write_bug.metal"));
  const std::string write = only_diagnostic(w, DiagnosticKind::InputWrite, "a");
  EXPECT_TRUE(names(write, "write to input buffer 'a' (element ", "body line 4")) << write;
  EXPECT_EQ(w.result.diagnostics[0].count, 64u);
  Launch x = launch(spec64("input_exchange_bug", "input_exchange_bug.metal"));
  const std::string exchange = only_diagnostic(x, DiagnosticKind::InputWrite, "a");
  EXPECT_TRUE(contains(exchange, "'a' (element 0), found changed after the run")) << exchange;
  EXPECT_EQ(x.out[5], 6.0f);  // the kernel ran: what it read is what the caller passed
}

TEST(MetalsimDiagnostics, DeviceRaceWithinThreadgroupNeedsADeviceBarrier) {
  Launch l = launch(spec64("device_race_group_bug", "device_race_group_bug.metal"));
  const Diagnostic* d = device_race(l.result);
  ASSERT_NE(d, nullptr) << describe(l.result);
  EXPECT_EQ(d->message,
            "data race on device buffer 'out' (element 1): read by thread (0,0,0) (threadgroup (0,0,0), local (0,0,0)) "
            "and written by thread (1,0,0) (threadgroup (0,0,0), local (1,0,0)) at body line 3 with no "
            "threadgroup_barrier(mem_flags::mem_device) between (a barrier with only mem_threadgroup does not order "
            "device memory)");
  // A barrier on threadgroup memory only does not order device memory.
  Launch tg = launch(spec64("device_race_tg_barrier_bug", "device_race_tg_barrier_bug.metal"));
  d = device_race(tg.result);
  ASSERT_NE(d, nullptr) << describe(tg.result);
  EXPECT_TRUE(contains(d->message, "with no threadgroup_barrier(mem_flags::mem_device) between")) << d->message;
}

// Unordered stores to one element race when they store different values; stores of the same value (every lane
// storing a reduction's result) leave the same contents in any order and are not reported.
TEST(MetalsimDiagnostics, DeviceStoresRaceWhenTheirValuesDiffer) {
  Launch same = launch_grouped("device_same_value_ok", 32, workers(2));
  EXPECT_TRUE(same.result.ok) << describe(same.result);
  Launch differ = launch_grouped("device_different_values_bug", 32, workers(2));
  const Diagnostic* d = device_race(differ.result);
  ASSERT_NE(d, nullptr) << describe(differ.result);
  // Whichever threadgroup a worker reaches first reports: its element, its first two threads.
  const bool group0 = contains(d->message, "(element 0): written by thread (0,0,0) (threadgroup (0,0,0)") &&
                      contains(d->message, "and written by thread (1,0,0) (threadgroup (0,0,0)");
  const bool group1 = contains(d->message, "(element 1): written by thread (32,0,0) (threadgroup (1,0,0)") &&
                      contains(d->message, "and written by thread (33,0,0) (threadgroup (1,0,0)");
  EXPECT_TRUE((group0 || group1) && contains(d->message, "(they stored different values;")) << d->message;
  EXPECT_EQ(d->count, 62u);  // threads 1..31 of both threadgroups
}

TEST(MetalsimDiagnostics, DeviceRaceInTheLastThreadgroupPattern) {
  KernelSpec bug = spec64("last_group_bug", "last_group_bug.metal");
  bug.threadgroup = {16, 1, 1};
  bug.init_value = 0.0f;
  Launch l = launch(bug, workers(1));
  const Diagnostic* d = device_race(l.result);
  ASSERT_NE(d, nullptr) << describe(l.result);
  EXPECT_TRUE(contains(d->message, "(element 1): written by thread (0,0,0)") &&
              contains(d->message, "read by thread (48,0,0) (threadgroup (3,0,0)") &&
              contains(d->message, "in different threadgroups"))
      << d->message;
  EXPECT_EQ(d->count, 3u);  // the partials of threadgroups 0-2; the atomic counter (element 0) is no race
  EXPECT_EQ(l.out[5], 2080.0f);
}

// A thread waiting for another threadgroup (or thread) to change an atomic is reported, not left to hang: Metal
// guarantees no forward progress between threadgroups, and none between threads outside barriers.
TEST(MetalsimDiagnostics, SpinWaitForAnotherThreadgroupIsADeadlock) {
  KernelSpec bug = spec64("spin_device_bug", "spin_device_bug.metal");
  bug.threadgroup = {32, 1, 1};
  bug.init_value = 0.0f;
  Launch l = launch(bug, workers(1));  // threadgroup 0 first: the flag is never raised while it waits
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::Deadlock)) << describe(l.result);
  const Diagnostic& d = l.result.diagnostics[0];
  EXPECT_EQ(d.buffer, "out");
  EXPECT_TRUE(contains(d.message, "thread (0,0,0) (threadgroup (0,0,0), local (0,0,0)) waits at body line 8 for another "
                                  "thread to change device buffer 'out' (element 0)") &&
              contains(d.message, "no forward progress between threadgroups"))
      << d.message;
  EXPECT_TRUE(contains(describe(l.result), "deadlock: every threadgroup still running spins")) << describe(l.result);
}

// A worker is stuck only while the value it polls is unchanged: one whose flag was raised but whose host thread has not
// polled again yet (more workers than cores) must not make the others call a deadlock.
TEST(MetalsimDiagnostics, SpinWaitsThatAnotherWorkerEndsAreNoDeadlock) {
  KernelSpec chain = spec64("look_back_chain_bug", "look_back_chain_bug.metal");
  chain.threadgroup = {1, 1, 1};
  chain.atomic_outputs = true;
  chain.init_value = 0.0f;
  for (int attempt = 0; attempt < 20; ++attempt) {
    Launch l = launch(chain, workers(16));
    ASSERT_FALSE(contains(describe(l.result), "deadlock: every threadgroup")) << attempt << "\n" << describe(l.result);
    for (int k = 0; k < 64; ++k) {
      uint32_t flag = 0;
      std::memcpy(&flag, &l.out[k], sizeof flag);
      ASSERT_EQ(flag, 1u) << "threadgroup " << k << ", attempt " << attempt;
    }
  }
}

TEST(MetalsimDiagnostics, SpinWaitInsideAThreadgroupIsADeadlock) {
  Launch l = launch(spec64("spin_threadgroup_bug", "spin_threadgroup_bug.metal"));
  const std::string m = only_diagnostic(l, DiagnosticKind::Deadlock, "ready");
  EXPECT_TRUE(contains(m, "thread (63,0,0) (threadgroup (0,0,0), local (63,0,0)) waits at body line 8 for another thread "
                          "to change threadgroup variable 'ready' (byte 0)") &&
              contains(m, "threadgroup_barrier"))
      << m;
}

TEST(MetalsimDiagnostics, DeviceAccessesWithoutRaces) {
  Launch l = launch_grouped("device_race_ok", 32, workers(4));
  EXPECT_TRUE(l.result.ok) << describe(l.result);
  for (int i = 0; i < 64; ++i) {
    const int next = i / 32 * 32 + (i % 32 + 1) % 32;
    ASSERT_EQ(l.out[i], float(i + 1 + 1) + float(next + 1 + 1)) << i;
  }
  KernelSpec atomics = spec64("device_atomic_ok", "device_atomic_ok.metal");
  atomics.threadgroup = {16, 1, 1};
  atomics.atomic_outputs = true;
  atomics.init_value = 0.0f;
  Launch a = launch(atomics, workers(4));
  EXPECT_TRUE(a.result.ok) << describe(a.result);
  EXPECT_EQ(a.out[0], 496.0f);  // 1 + 5 + ... + 61
}

TEST(MetalsimDiagnostics, DeviceRaceCheckWithoutBoundsCheck) {
  RunOptions o;
  o.check_bounds = false;  // buffers are used in place, without red zones
  Launch l = launch(spec64("device_race_group_bug", "device_race_group_bug.metal"), o);
  EXPECT_NE(device_race(l.result), nullptr) << describe(l.result);
  o.check_races = false;
  Launch off = launch(spec64("device_race_group_bug", "device_race_group_bug.metal"), o);
  EXPECT_TRUE(off.result.ok) << describe(off.result);
}

TEST(MetalsimDiagnostics, UninitializedThreadgroupRead) {
  Launch l = launch(spec64("uninit_bug", "uninit_bug.metal"));
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::UninitializedRead)) << describe(l.result);
  EXPECT_EQ(l.result.diagnostics[0].buffer, "tile");
  EXPECT_EQ(l.result.diagnostics[0].thread_position[0], 62u);
  Launch g = launch(spec64("race_ok", "race_ok.metal"));
  EXPECT_FALSE(has_kind(g.result, DiagnosticKind::UninitializedRead));
}

// A compound assignment reads before it writes (the compiler's instrumentation keeps that read), and every atomic
// operation but a store reads the old value: both on memory nothing set first are uninitialized reads.
TEST(MetalsimDiagnostics, CompoundAssignmentsAndAtomicsReadUninitializedMemory) {
  const std::string compound = only_diagnostic(launch(spec64("uninit_compound_bug", "uninit_compound_bug.metal")),
                                               DiagnosticKind::UninitializedRead, "sums");
  EXPECT_TRUE(names(compound, "read of uninitialized threadgroup variable 'sums'", "body line 4")) << compound;
  const std::string atomic = only_diagnostic(launch(spec64("uninit_atomic_bug", "uninit_atomic_bug.metal")),
                                             DiagnosticKind::UninitializedRead, "count");
  EXPECT_TRUE(names(atomic, "atomic operation on uninitialized threadgroup variable 'count'", "body line 4")) << atomic;
  Launch counted = launch(spec64("atomic_counter_ok", "atomic_counter_ok.metal"));
  EXPECT_TRUE(counted.result.ok) << describe(counted.result);
  EXPECT_EQ(counted.out[5], 64.0f + 6.0f);
}

// A 16-byte vector at an address off its alignment (a cast pointer) is reported at its line and stops the run instead
// of faulting on the host, with and without fibers (a kernel with barriers runs its threads as fibers).
TEST(MetalsimDiagnostics, MisalignedVectorAccessIsReportedNotACrash) {
  const std::string device = only_diagnostic(launch(spec64("misaligned_vector_bug", "misaligned_vector_bug.metal")),
                                             DiagnosticKind::MisalignedAccess, "a");
  EXPECT_TRUE(names(device, "misaligned 16-byte read of device buffer 'a' at byte 4 by thread (0,0,0)", "body line 4"))
      << device;
  const std::string tg = only_diagnostic(launch(spec64("misaligned_tg_vector_bug", "misaligned_tg_vector_bug.metal")),
                                         DiagnosticKind::MisalignedAccess, "tile");
  EXPECT_TRUE(names(tg, "misaligned 16-byte read of threadgroup variable 'tile' (byte 8)", "body line 8")) << tg;
}

// `alignas(16) threadgroup float tile[64], spare[4];` gives both variables 16-byte alignment (after a one-float
// variable, a float array's own would not), so float4 views of them are aligned.
TEST(MetalsimDiagnostics, AlignasOnThreadgroupVariablesAlignsTheirMemory) {
  const Launch aligned = launch(spec64("aligned_tg_vector_ok", "aligned_tg_vector_ok.metal"));
  ASSERT_TRUE(aligned.result.ok) << describe(aligned.result);
  for (int q = 0; q < 16; ++q) EXPECT_EQ(aligned.out[q], float(16 * q + 10)) << q;  // (4q+1) + ... + (4q+4)
  EXPECT_EQ(aligned.out[16], 0.0f);
}

// diag/<name>.metal with the scalar input n = 64 beside `a`.
Launch launch_with_n(const std::string& name, RunOptions o = {}) {
  return launch(spec64(name, name + ".metal", 64, true), o);
}

// A read far outside every buffer (an index in the millions, a null pointer, a pointer built from an integer) is
// refused before it happens, in device, threadgroup and atomic forms, with and without fibers: it stops the run
// with an out_of_bounds finding at its line instead of faulting on the host.
TEST(MetalsimDiagnostics, ReadsFarOutsideEveryBufferAreStoppedBeforeTheyFault) {
  struct Case {
    std::string kernel, text, line;
  };
  const Case cases[] = {
      {"far_read_bug", "out-of-bounds read of 4 bytes at an address outside every buffer", "body line 3"},
      {"far_read_below_bug", "out-of-bounds read of 4 bytes at an address outside every buffer", "body line 3"},
      {"far_read_vector_bug", "out-of-bounds read of 16 bytes at an address outside every buffer", "body line 4"},
      {"far_read_packed_bug", "out-of-bounds read of 4 bytes at an address outside every buffer", "body line 4"},
      // Only its components are used: the 32-byte vector is read as 8-byte loads.
      {"far_read_wide_vector_bug", "out-of-bounds read of 8 bytes at an address outside every buffer", "body line 5"},
      {"far_read_threadgroup_bug", "out-of-bounds read of 4 bytes at an address outside every buffer", "body line 6"},
      {"far_read_atomic_bug", "out-of-bounds atomic operation on 4 bytes at an address outside every buffer",
       "body line 4"},
      {"far_read_integer_pointer_bug", "out-of-bounds read of 4 bytes at an address outside every buffer",
       "body line 5"},
      {"null_read_bug", "out-of-bounds read of 4 bytes at address 0 (a null pointer, or one never set)", "body line 4"},
  };
  for (const Case& c : cases) {
    const std::string message = only_diagnostic(launch(spec64(c.kernel, c.kernel + ".metal")), DiagnosticKind::OutOfBounds, "");
    EXPECT_TRUE(names(message, c.text, c.line)) << c.kernel << ": " << message;
    EXPECT_TRUE(contains(message, "the run stopped here")) << message;
  }
  // Never stored: threadgroup memory starts as all ones, not an address of any buffer.
  const Launch never_set = launch(spec64("uninitialized_pointer_bug", "uninitialized_pointer_bug.metal"));
  EXPECT_TRUE(has_kind(never_set.result, DiagnosticKind::UninitializedRead)) << describe(never_set.result);
  EXPECT_TRUE(has_kind(never_set.result, DiagnosticKind::OutOfBounds)) << describe(never_set.result);
  // Reads outside the buffers that a kernel may make: constant tables, private arrays, threadgroup memory.
  Launch honest = launch(spec64("far_read_ok", "far_read_ok.metal"));
  EXPECT_TRUE(honest.result.ok) << describe(honest.result);
  // Thread 0: tile[1] = a[6] (thread 1's local[5]), tile[0] = a[0], local[kOrder[0]] = a[7], kScale[0].
  EXPECT_EQ(honest.out[0], 7.0f + 1.0f + 8.0f * 1.0f);
}

// What no check before an access sees faults on the host (the safety net under the checks; here with bounds checks
// off, which leaves a read 400 MB past the input to the host): the fault becomes a finding at its line.
TEST(MetalsimDiagnostics, FaultingReadsBecomeFindings) {
  RunOptions unchecked;
  unchecked.check_bounds = false;
  const std::string message =
      only_diagnostic(launch(spec64("far_read_bug", "far_read_bug.metal"), unchecked), DiagnosticKind::OutOfBounds, "");
  EXPECT_TRUE(names(message, "out-of-bounds read of an address outside every buffer", "body line 3")) << message;
  EXPECT_TRUE(contains(message, "the access faulted on the host; the run stopped here")) << message;
}

// Integer division or remainder by zero, and INT_MIN / -1, trap on the host where a GPU returns an unspecified value:
// a division_by_zero finding at the line. A guarded divisor runs clean.
TEST(MetalsimDiagnostics, IntegerDivisionByZeroIsAFinding) {
  for (const auto& [kernel, line] : {std::pair<std::string, std::string>{"division_by_zero_bug", "body line 4"},
                                     {"modulo_by_zero_bug", "body line 4"},
                                     {"division_overflow_bug", "body line 5"}}) {
    const std::string message = only_diagnostic(launch_with_n(kernel), DiagnosticKind::DivisionByZero, "");
    EXPECT_TRUE(names(message, "integer division or remainder by zero (or of the most negative value by -1) by thread", line))
        << kernel << ": " << message;
  }
  const Launch guarded = launch_with_n("division_ok");
  EXPECT_TRUE(guarded.result.ok) << describe(guarded.result);
  EXPECT_EQ(guarded.out[9], 9.0f);
}

// An index outside a private array, a struct's member array, an inner dimension or a constant table, directly or
// through a pointer (which the access checks never see: the thread's own stack, constant data) stops the run before the access, with and without fibers; in-range indices run clean.
TEST(MetalsimDiagnostics, AnIndexPastAPrivateArrayIsOutOfBounds) {
  struct Case {
    std::string kernel, text, line;
  };
  const Case cases[] = {
      {"private_index_read_bug", "out-of-bounds index 4 into an array of type 'float[4]' by thread (0,0,0)",
       "body line 5"},
      {"private_index_write_bug", "out-of-bounds index -1 into an array of type 'float[4]' by thread (0,0,0)",
       "body line 5"},
      {"private_index_member_bug", "out-of-bounds index 3 into an array of type 'float[3]'", "body line 6"},
      {"private_index_inner_bug", "out-of-bounds index 3 into an array of type 'float[3]'", "body line 5"},
      // Unsigned, in a program-scope constant table (which no access check sees either).
      {"private_index_constant_table_bug", "out-of-bounds index 4 into an array of type 'const float[4]'", "body line 4"},
  };
  for (const Case& c : cases) {
    const std::string message = only_diagnostic(launch_with_n(c.kernel), DiagnosticKind::OutOfBounds, "");
    EXPECT_TRUE(names(message, c.text, c.line)) << c.kernel << ": " << message;
    EXPECT_TRUE(contains(message, "the run stopped here")) << message;
  }
  // Through a pointer into a private array or a constant table: local-bounds' trap at the access.
  for (const auto& [kernel, line] : {std::pair<std::string, std::string>{"private_pointer_overrun_bug", "body line 7"},
                                     {"constant_table_pointer_bug", "body line 6"}}) {
    const std::string pointer = only_diagnostic(launch_with_n(kernel), DiagnosticKind::Trap, "");
    EXPECT_TRUE(names(pointer, "trap instruction reached by thread (0,0,0)", line) &&
                contains(pointer, "an access through a pointer outside the array or struct it points into"))
        << kernel << ": " << pointer;
  }
  const Launch honest = launch_with_n("private_index_ok");
  EXPECT_TRUE(honest.result.ok) << describe(honest.result);
  // Thread 0 reads tile's element of thread 63: its acc[3] = a[2] = 3, times 2, plus grid2[1][0] = 4.
  EXPECT_EQ(honest.out[0], 10.0f);
}

// Private arrays beyond a thread's stack: a fiber's 128 KiB, or a host thread's stack without fibers.
TEST(MetalsimDiagnostics, PrivateArraysBeyondTheStackAreAStackOverflow) {
  const std::string fiber = only_diagnostic(launch(spec64("stack_overflow_bug", "stack_overflow_bug.metal")),
                                            DiagnosticKind::StackOverflow, "");
  EXPECT_TRUE(contains(fiber, "stack overflow: thread (0,0,0)") && contains(fiber, "needs more than its 128 KiB stack"))
      << fiber;
  const std::string host = only_diagnostic(launch(spec64("stack_overflow_host_bug", "stack_overflow_host_bug.metal")),
                                           DiagnosticKind::StackOverflow, "");
  EXPECT_TRUE(contains(host, "needs more than its host thread's stack")) << host;
}

TEST(MetalsimDiagnostics, HugeThreadgroupArrayStopsTheRun) {
  const Launch l = launch(spec64("huge_threadgroup_bug", "huge_threadgroup_bug.metal"));
  ASSERT_FALSE(l.result.ok);
  EXPECT_TRUE(std::any_of(l.result.diagnostics.begin(), l.result.diagnostics.end(), [](const Diagnostic& d) {
    return d.kind == DiagnosticKind::ThreadgroupMemoryLimit && d.buffer == "huge" && contains(d.message, "1 MiB arena");
  })) << describe(l.result);
}

// A thread still running when the run's time is up is stopped, with and without memory accesses in its loop.
TEST(MetalsimDiagnostics, EndlessLoopsTimeOut) {
  RunOptions quick;
  quick.timeout_seconds = 0.5;
  for (const std::string kernel : {"endless_loop_bug", "endless_load_loop_bug"}) {
    const std::string message = only_diagnostic(launch_with_n(kernel, quick), DiagnosticKind::Timeout, "");
    EXPECT_TRUE(contains(message, "thread (0,0,0) (threadgroup (0,0,0), local (0,0,0))") &&
                contains(message, "was still running after 0.5 s"))
        << kernel << ": " << message;
  }
}

TEST(MetalsimDiagnostics, TrapInstructionIsAFinding) {
  const std::string message = only_diagnostic(launch(spec64("trap_bug", "trap_bug.metal")), DiagnosticKind::Trap, "");
  EXPECT_TRUE(names(message, "trap instruction reached by thread (5,0,0)", "body line 3")) << message;
}

// Overloads that differ in address spaces only are told apart by where their arguments point; a call with memory none
// of them takes, which a Mac's compiler refuses, stops the run at its line.
TEST(MetalsimDiagnostics, ACallNoAddressSpaceOverloadTakesIsAFinding) {
  const std::string overloads = "float first(device const float* p) { return p[0]; }\n"
                                "float first(threadgroup const float* p) { return -p[0]; }\n";
  KernelSpec bug = spec64("unmatched_overload_bug", "unmatched_overload_bug.metal");
  bug.header = overloads;
  const std::string message = only_diagnostic(launch(bug), DiagnosticKind::UnmatchedOverload, "");
  EXPECT_TRUE(names(message, "no overload of 'first' takes its arguments' address spaces (argument 1 in thread memory)",
                    "body line 3"))
      << message;
  KernelSpec ok = spec64("unmatched_overload_ok", "unmatched_overload_ok.metal");
  ok.header = overloads;
  const Launch l = launch(ok);
  ASSERT_TRUE(l.result.ok) << describe(l.result);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(l.out[i], -(i + 1.0f)) << i;
}

TEST(MetalsimDiagnostics, MismatchedBuffersAreInvalidLaunch) {
  KernelSpec s = spec64("oob_ok", "oob_ok.metal", 100, true);
  std::string so = build(s);
  std::vector<float> a(50), out(100);
  std::vector<uint32_t> n{100};
  Buffer in[2] = {{"a", Dtype::float32, {100}, a.data(), 200}, {"n", Dtype::uint32, {}, n.data(), 4}};
  Buffer ob{"out", Dtype::float32, {100}, out.data(), 400};
  RunResult r = run(so, s, in, std::span<Buffer>(&ob, 1));
  ASSERT_TRUE(has_kind(r, DiagnosticKind::InvalidLaunch));
}

// A grid made from an empty input's size: the message gives the sizes and the usual cause.
// A SIMD-group function's read of a lane not active at the call is undefined in Metal: a shuffle-down sum over a ragged
// tail whose lanes returned (40 threads: the second SIMD group has lanes 0-7) reads lanes 16 and 8 and gets whatever
// they hold. Reported at its line; the value is made of the undefined fill (NaN here, 0 with a zero fill, which gives
// the tail's sum), so whether it reaches the outputs can be told. The full first group reads past lane 31 only at
// shuffle_down's edge, which keeps the caller's value as Metal documents: no finding there.
TEST(MetalsimDiagnostics, AShuffleFromALaneThatReturnedIsAnInactiveLaneRead) {
  KernelSpec s;
  s.name = "ragged_shuffle_sum";
  s.inputs = {tensor("a", Dtype::float32, {64})};
  s.outputs = {tensor("out", Dtype::float32, {64})};
  s.source = "uint i = thread_position_in_grid.x;\n"
             "if (i >= 40) return;\n"
             "float v = a[i];\n"
             "for (ushort off = 16; off > 0; off >>= 1) v += simd_shuffle_down(v, off);\n"
             "if (thread_index_in_simdgroup == 0) out[i / 32] = v;\n";
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  const Launch nan_fill = launch(s);
  ASSERT_EQ(nan_fill.result.diagnostics.size(), 1u) << describe(nan_fill.result);
  const Diagnostic& d = nan_fill.result.diagnostics[0];
  EXPECT_EQ(d.kind, DiagnosticKind::InactiveLaneRead);
  EXPECT_TRUE(contains(d.message, "simd_shuffle_down at body line 4 read lane 16, not active at this call (lanes 0-7 are)"))
      << d.message;
  EXPECT_EQ(d.thread_position[0], 32u);  // lane 0 of the second SIMD group, the first to read
  float head = 0, tail = 0;
  for (int i = 0; i < 32; ++i) head += float(i) + 1.0f;
  for (int i = 32; i < 40; ++i) tail += float(i) + 1.0f;
  EXPECT_EQ(nan_fill.out[0], head);
  EXPECT_TRUE(std::isnan(nan_fill.out[1])) << nan_fill.out[1];
  RunOptions zeros;
  zeros.undefined_fill = 0x00;
  const Launch zero_fill = launch(s, zeros);
  EXPECT_EQ(zero_fill.out[0], head);
  EXPECT_EQ(zero_fill.out[1], tail);

  // Every thread running: shuffle_down's and shuffle_up's edges and xor within the group read no inactive lane.
  s.source = "uint i = thread_position_in_grid.x;\n"
             "float v = a[i];\n"
             "v += simd_shuffle_down(v, 16) + simd_shuffle_up(v, 3) + simd_shuffle_xor(v, 31) + quad_shuffle_down(v, 2);\n"
             "out[i] = v;\n";
  const Launch clean = launch(s);
  EXPECT_TRUE(clean.result.ok) << describe(clean.result);

  // A lane past the group's 32, and quad_shuffle from a lane that returned: each its own finding, at its line.
  s.source = "uint i = thread_position_in_grid.x;\n"
             "float v = simd_shuffle(a[i], ushort(thread_index_in_simdgroup + 32));\n"
             "if (i % 4 == 3) return;\n"
             "out[i] = v + quad_shuffle(a[i], 3);\n";
  const Launch past = launch(s);
  ASSERT_EQ(past.result.diagnostics.size(), 2u) << describe(past.result);
  const std::string& past_lanes = past.result.diagnostics[0].message;
  EXPECT_TRUE(contains(past_lanes, "simd_shuffle at body line 2 read lane ") && contains(past_lanes, ", past the SIMD group's 32 lanes"))
      << past_lanes;
  const std::string& returned = past.result.diagnostics[1].message;
  EXPECT_TRUE(contains(returned, "quad_shuffle at body line 4 read lane ") &&
              contains(returned, ", not active at this call (lanes 0-2, 4-6, 8-10, 12-14, 16-18, 20-22, 24-26, 28-30 are)"))
      << returned;

  // Rotations wrap around the 32 lanes, not the partial group's 8: lane 7 rotating down by one reads lane 8.
  s.source = "uint i = thread_position_in_grid.x;\n"
             "if (i >= 40) return;\n"
             "out[i] = simd_shuffle_rotate_down(a[i], 1);\n";
  const Launch rotated = launch(s);
  ASSERT_EQ(rotated.result.diagnostics.size(), 1u) << describe(rotated.result);
  EXPECT_TRUE(contains(rotated.result.diagnostics[0].message,
                       "simd_shuffle_rotate_down at body line 3 read lane 8, not active at this call (lanes 0-7 are)"))
      << rotated.result.diagnostics[0].message;
  EXPECT_EQ(rotated.out[31], 1.0f);  // the full first group wraps to its lane 0
}

// Threadgroup memory is ordered by a threadgroup_barrier with mem_threadgroup only: mem_none is an execution barrier,
// mem_device orders device memory (the mirror of a device exchange ordered by mem_threadgroup alone, a race too).
TEST(MetalsimDiagnostics, AThreadgroupExchangeOrderedByABarrierWithoutMemThreadgroupIsADataRace) {
  KernelSpec s;
  s.name = "tg_exchange_flags";
  s.inputs = {tensor("a", Dtype::float32, {64})};
  s.outputs = {tensor("out", Dtype::float32, {64})};
  s.grid = {64, 1, 1};
  s.threadgroup = {64, 1, 1};
  for (const std::string flags : {"mem_flags::mem_none", "mem_flags::mem_device"}) {
    s.source = "threadgroup float t[64];\nuint i = thread_position_in_threadgroup.x;\nt[i] = a[i];\n"
               "threadgroup_barrier(" + flags + ");\nout[i] = t[i ^ 32];\n";
    const Launch racy = launch(s);
    const std::string message = only_diagnostic(racy, DiagnosticKind::DataRace, "t");
    EXPECT_TRUE(contains(message, "with no threadgroup_barrier(mem_flags::mem_threadgroup) between (a barrier with only "
                                  "mem_device or mem_none does not order threadgroup memory)"))
        << flags << ": " << message;
  }
  for (const std::string flags : {"mem_flags::mem_threadgroup", "mem_flags::mem_device | mem_flags::mem_threadgroup"}) {
    s.source = "threadgroup float t[64];\nuint i = thread_position_in_threadgroup.x;\nt[i] = a[i];\n"
               "threadgroup_barrier(" + flags + ");\nout[i] = t[i ^ 32];\n";
    const Launch ordered = launch(s);
    EXPECT_TRUE(ordered.result.ok) << flags << ": " << describe(ordered.result);
    EXPECT_EQ(ordered.out[0], 33.0f);
  }
}

TEST(MetalsimDiagnostics, AnEmptyGridIsInvalidLaunchNamingTheSizes) {
  KernelSpec s = spec64("oob_ok", "oob_ok.metal", 100, true);
  const std::string so = build(s);
  s.grid = {0, 1, 1};
  std::vector<float> a(100), out(100);
  std::vector<uint32_t> n{100};
  Buffer in[2] = {{"a", Dtype::float32, {100}, a.data(), 400}, {"n", Dtype::uint32, {}, n.data(), 4}};
  Buffer ob{"out", Dtype::float32, {100}, out.data(), 400};
  const RunResult r = run(so, s, in, std::span<Buffer>(&ob, 1));
  ASSERT_TRUE(has_kind(r, DiagnosticKind::InvalidLaunch)) << describe(r);
  EXPECT_TRUE(contains(r.diagnostics[0].message, "grid (0, 1, 1) and threadgroup") &&
              contains(r.diagnostics[0].message, "empty input"))
      << describe(r);
  // An empty threadgroup is the caller's mistake of its own: the hint about empty inputs is the grid's.
  s.grid = {100, 1, 1};
  s.threadgroup = {0, 1, 1};
  const RunResult zero_threadgroup = run(so, s, in, std::span<Buffer>(&ob, 1));
  ASSERT_TRUE(has_kind(zero_threadgroup, DiagnosticKind::InvalidLaunch)) << describe(zero_threadgroup);
  EXPECT_TRUE(contains(zero_threadgroup.diagnostics[0].message, "threadgroup (0, 1, 1): every size must be positive"));
  EXPECT_FALSE(contains(zero_threadgroup.diagnostics[0].message, "empty input")) << describe(zero_threadgroup);
}

// Schedules (docs/METALSIM.md, "Schedules"): a GPU runs threads in no fixed order, so a kernel's results must not
// depend on the emulator's.
RunOptions with_schedule(Schedule schedule) {
  RunOptions o;
  o.schedule = schedule;
  return o;
}

// A counter read back after every thread's increment tells one thread at a time (after the barrier the last thread to
// reach it goes on first, then the others in the schedule's order) from a GPU's SIMD-group lockstep, where every
// thread finds every increment.
TEST(MetalsimDiagnostics, ScheduleProbeSeesEachScheduleItsOwnWay) {
  const KernelSpec s = spec64("schedule_probe_bug", "schedule_probe_bug.metal");
  const Launch in_order = launch(s, with_schedule(Schedule::in_order));
  const Launch reversed = launch(s, with_schedule(Schedule::reversed));
  const Launch lockstep = launch(s, with_schedule(Schedule::atomic_lockstep));
  for (const Launch* l : {&in_order, &reversed, &lockstep}) ASSERT_TRUE(l->result.ok) << describe(l->result);
  EXPECT_EQ(in_order.out[63], 1.0f);
  EXPECT_EQ(in_order.out[0], 2.0f);
  EXPECT_EQ(in_order.out[62], 64.0f);
  EXPECT_EQ(reversed.out[0], 1.0f);
  EXPECT_EQ(reversed.out[63], 2.0f);
  EXPECT_EQ(reversed.out[1], 64.0f);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(lockstep.out[i], 64.0f) << i;
}

// Partials stored into threadgroup atomics and summed by the last thread with no barrier between: the in-order
// schedule runs that thread last; the reversed one first, where it reads partials nobody stored yet.
TEST(MetalsimDiagnostics, AtomicPartialsWithoutABarrierFailUnderTheReversedSchedule) {
  const KernelSpec s = spec64("atomic_partials_no_barrier_bug", "atomic_partials_no_barrier_bug.metal");
  const Launch in_order = launch(s, with_schedule(Schedule::in_order));
  ASSERT_TRUE(in_order.result.ok) << describe(in_order.result);
  EXPECT_EQ(in_order.out[0], 64.0f * 65.0f / 2.0f);
  const Launch reversed = launch(s, with_schedule(Schedule::reversed));
  EXPECT_TRUE(has_kind(reversed.result, DiagnosticKind::UninitializedRead)) << describe(reversed.result);
}

// The same with barriers, a counter and a histogram: the same outputs under every schedule (run_ok compares them).
TEST(MetalsimDiagnostics, AtomicsOrderedByBarriersAgreeUnderEverySchedule) {
  const KernelSpec s = spec64("atomic_partials_ok", "atomic_partials_ok.metal");
  const std::string so = build(s);
  ASSERT_FALSE(so.empty());
  std::vector<float> a(64), out(64, 0.0f);
  for (int i = 0; i < 64; ++i) a[i] = float(i) + 1.0f;
  run_ok(so, s, {buf(s.inputs[0], a)}, {buf(s.outputs[0], out)});
  EXPECT_EQ(out[0], 64.0f * 65.0f / 2.0f);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(out[1 + b], 16.0f) << b;
  EXPECT_EQ(out[5], 64.0f);
}

// Metal sizes a kernel's threadgroup memory from every variable it declares: two branches' arrays count together,
// though a threadgroup reaches one of them.
TEST(MetalsimDiagnostics, ThreadgroupVariablesOfEveryBranchCountTowardTheLimit) {
  const Launch l = launch(spec64("tgmem_per_branch_bug", "tgmem_per_branch_bug.metal"));
  const std::string message = only_diagnostic(l, DiagnosticKind::ThreadgroupMemoryLimit, "large_tile");
  EXPECT_TRUE(contains(message, "threadgroup memory of 36864 bytes exceeds Metal's 32768-byte limit") &&
              contains(message, "'small_tile' (16384 B), 'large_tile' (20480 B)") &&
              contains(message, "whether a thread reaches its declaration or not"))
      << message;
}
