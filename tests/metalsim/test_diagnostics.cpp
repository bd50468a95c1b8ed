// Diagnostics: each buggy kernel must be reported, its correct twin must run clean.
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
    if (d.buffer == "a") read = d.message.find("read") != std::string::npos;
    if (d.buffer == "out") write = d.message.find("write") != std::string::npos;
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

TEST(MetalsimDiagnostics, RaceCheckCanBeTurnedOff) {
  RunOptions o;
  o.check_races = false;
  Launch l = launch(spec64("race_bug", "race_bug.metal"), o);
  EXPECT_FALSE(has_kind(l.result, DiagnosticKind::DataRace)) << describe(l.result);
}

TEST(MetalsimDiagnostics, UninitializedThreadgroupRead) {
  Launch l = launch(spec64("uninit_bug", "uninit_bug.metal"));
  ASSERT_TRUE(has_kind(l.result, DiagnosticKind::UninitializedRead)) << describe(l.result);
  EXPECT_EQ(l.result.diagnostics[0].buffer, "tile");
  EXPECT_EQ(l.result.diagnostics[0].thread_position[0], 62u);
  Launch g = launch(spec64("race_ok", "race_ok.metal"));
  EXPECT_FALSE(has_kind(g.result, DiagnosticKind::UninitializedRead));
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
