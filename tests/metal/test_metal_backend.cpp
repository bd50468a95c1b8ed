// The metal backend through the shared evaluator: seeds pass, each kind of bug gets its status
// with a message naming what went wrong, and `ksearch eval --backend metal` reports no timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

using namespace ksearch;

namespace {

const std::string kDir = KSEARCH_METAL_TEST_DIR;

EvalOptions options() {
  EvalOptions o;
  o.time = true;  // the backend must turn timing off by itself
  o.call_timeout = std::chrono::seconds(120);
  return o;
}

Task tiny() { return resolve_task(kDir + "/tasks/tiny_softmax"); }

EvalReport evaluate_file(const Task& task, const std::string& path) {
  auto backend = make_backend("metal");
  return Evaluator(task, *backend, options()).evaluate(read_file(path));
}

EvalReport candidate(const std::string& name) { return evaluate_file(tiny(), kDir + "/candidates/" + name); }

void expect_seed_passes(const std::string& task_name) {
  const Task task = resolve_task(task_name);
  const EvalReport r = evaluate_file(task, task.entry("metal").seed);
  ASSERT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
  EXPECT_FALSE(r.timed);
  EXPECT_EQ(r.workloads.size(), task.workloads_for("metal", false).size() + task.workloads_for("metal", true).size());
  for (const auto& w : r.workloads) {
    EXPECT_TRUE(w.ran) << w.name;
    EXPECT_EQ(w.timing.samples, 0) << w.name;
  }
}

}  // namespace

TEST(MetalBackend, ReportsNoTimingAndNoCeilings) {
  auto backend = make_backend("metal");
  std::string why;
  ASSERT_TRUE(backend->available(&why)) << why;
  EXPECT_FALSE(backend->timing_available());
  EXPECT_EQ(backend->ceilings().flops_per_s, 0);
  EXPECT_EQ(backend->host_flush_bytes(), 0u);
  EXPECT_NE(backend->profile().prose.find("simdgroup_matrix"), std::string::npos);
  EXPECT_EQ(backend->profile().prose.find("{rules}"), std::string::npos);
  EXPECT_EQ(backend->profile().prose.find("{host}"), std::string::npos);
  EXPECT_NE(backend->profile().prose.find("emulator that\nexecutes them on the CPU"), std::string::npos);
  const std::string entry = backend->entry_description(resolve_task("selective_scan"));
  EXPECT_NE(entry.find("const constant int& d"), std::string::npos) << entry;
  EXPECT_NE(entry.find("has_last_state"), std::string::npos) << entry;
}

TEST(MetalBackend, SoftmaxSeedPasses) { expect_seed_passes("softmax"); }
TEST(MetalBackend, RmsnormSeedPasses) { expect_seed_passes("rmsnorm"); }
// Optional tensors (absent D, z, delta_bias, last_state), a float-free int param set and a template.
TEST(MetalBackend, SelectiveScanSeedPasses) { expect_seed_passes("selective_scan"); }

// mlx-lm's Mamba prefill: an optional initial state, a template state size, l = 1 and long prompts.
TEST(MetalBackend, MambaMlxLmSeedPasses) { expect_seed_passes("mamba_mlx_lm"); }

// Shapes no threadgroup divides (m = 1, n = 3, k = 1 held out); the 1024^3 workload is not on metal.
TEST(MetalBackend, MatmulSeedPasses) { expect_seed_passes("matmul"); }
// A template head dimension (d = 32 ... 256), grouped-query heads, causal with lq < lk, decode.
TEST(MetalBackend, AttentionSeedPasses) { expect_seed_passes("attention"); }
// bfloat16_t tensors (Metal's bfloat), fp32 inside; the metal-only prefills stand in for the GPU-sized ones.
TEST(MetalBackend, AttentionBf16SeedPasses) { expect_seed_passes("attention_bf16"); }

// Every call is built by MLX's C++ API (mlx::core::fast::metal_kernel) and checked to be the
// kernel metalsim runs, then run by metalsim.
TEST(MetalBackend, RunsCandidatesThroughMlxWhereItWasBuilt) {
#ifndef KSEARCH_HAVE_MLX_RUNNER
  GTEST_SKIP() << "ksearch-runner-mlx was not built: MLX's C++ library was not found at configure time";
#else
  EXPECT_EQ(make_backend("metal")->runner_executable().filename(), "ksearch-runner-mlx");
  const EvalReport r = candidate("threadgroup_reduce.metal");
  ASSERT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
  EXPECT_NE(r.log.find("MLX 0."), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("builds each kernel call"), std::string::npos) << r.log;
  // metalsim's checks still decide: an out-of-bounds write fails the MLX-built call
  EXPECT_EQ(candidate("out_of_bounds_write.metal").status, Status::runtime_error);
#endif
}

TEST(MetalBackend, ThreadgroupReductionPasses) {
  const EvalReport r = candidate("threadgroup_reduce.metal");
  EXPECT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
}

TEST(MetalBackend, OutOfBoundsWriteIsARuntimeErrorNamingBufferAndThread) {
  const EvalReport r = candidate("out_of_bounds_write.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("out_of_bounds"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("device buffer 'y'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread ("), std::string::npos) << r.message;
  // The access's line, as the candidate file numbers it (the store of the loop one past the row).
  EXPECT_NE(r.message.find("at line 38 (body line 11)"), std::string::npos) << r.message;
}

// The out-of-bounds write fails the first workload and ends the runner: the other two never run. The JSON of
// `ksearch eval` says not_run for them (with the reason), never passed; unselected workloads are not listed.
TEST(MetalBackend, WorkloadsAfterARunnerFailureAreNotRun) {
  const std::string file = kDir + "/candidates/out_of_bounds_write.metal";
  CommandOptions o;
  o.timeout = std::chrono::minutes(10);
  o.max_output_bytes = 1 << 20;
  auto eval_json = [&](const std::string& workloads) {
    const auto result = run_command({KSEARCH_EXECUTABLE, "eval", "--task", kDir + "/tasks/tiny_softmax", "--backend", "metal",
                                     file, "--json", "--workloads", workloads, "--call-timeout", "120"}, o);
    EXPECT_NE(result.exit_code, 0) << result.output;
    return nlohmann::json::parse(result.output.substr(result.output.find('{')));
  };
  const auto all = eval_json("all");
  EXPECT_EQ(all["status"], "runtime_error") << all.dump(2);
  ASSERT_EQ(all["workloads"].size(), 3u) << all.dump(2);
  EXPECT_EQ(all["workloads"][0]["status"], "runtime_error");
  for (int i : {1, 2}) {
    const auto& w = all["workloads"][i];
    EXPECT_EQ(w["status"], "not_run") << w.dump(2);
    EXPECT_EQ(w["ran"], false);
    EXPECT_NE(w["message"].get<std::string>().find("the runner failed on an earlier workload"), std::string::npos) << w.dump(2);
  }
  const auto visible = eval_json("visible");
  ASSERT_EQ(visible["workloads"].size(), 2u) << visible.dump(2);
  EXPECT_EQ(visible["workloads"][1]["status"], "not_run");
}

TEST(MetalBackend, MissingBarrierIsADataRace) {
  const EvalReport r = candidate("race_missing_barrier.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("data_race"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("threadgroup variable 'buf'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("at line 20 (header line 16)"), std::string::npos) << r.message;  // the tree step's store
}

// A mem_threadgroup barrier does not order device memory: the message says which barrier orders it.
TEST(MetalBackend, DeviceReadAfterAThreadgroupOnlyBarrierIsADataRace) {
  const EvalReport r = candidate("race_device_after_threadgroup_barrier.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("device buffer 'y'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("threadgroup_barrier(mem_flags::mem_device)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("only mem_threadgroup does not order device memory"), std::string::npos) << r.message;
}

// Every thread storing its own value to one threadgroup variable is a race (the same value by every thread,
// candidates/honest_same_value_writes.metal, is not); the message says to store a shared result from one thread.
TEST(MetalBackend, DifferentValuesStoredByEveryThreadAreADataRace) {
  const EvalReport r = candidate("race_unreduced_writes.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("threadgroup variable 'row_max'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("they stored different values"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("if (thread_index_in_threadgroup == 0)"), std::string::npos) << r.message;
}

// candidates/honest_*.metal: common honest styles (MLX's two-level reductions, float4 loads, grid-stride loops,
// device passes ordered by mem_device barriers, threadgroup atomics, program-scope constant tables, the same
// reduction result stored by every thread; simdgroup_matrix and steel-style GEMMs, split-K atomics, attention with an
// online softmax, scans with the state in registers or one lane per state) must pass. honest_<task>_<style>.metal is
// checked on the built-in task's visible workloads, any other on tiny_softmax.
namespace {
const std::vector<std::string> kHonestTasks = {"attention_bf16", "attention", "mamba_mlx_lm", "matmul", "rmsnorm",
                                               "selective_scan", "softmax"};

Task honest_task(const std::string& file) {
  for (const auto& name : kHonestTasks)
    if (file.rfind("honest_" + name + "_", 0) == 0) return resolve_task(name);
  return tiny();
}

std::vector<std::string> honest_candidates() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(kDir + "/candidates"))
    if (entry.path().filename().string().rfind("honest_", 0) == 0) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}
class MetalHonest : public ::testing::TestWithParam<std::string> {};
}  // namespace

TEST_P(MetalHonest, Passes) {
  auto backend = make_backend("metal");
  EvalOptions visible = options();
  visible.workloads = evaluator::WorkloadSet::visible;
  const EvalReport r =
      Evaluator(honest_task(GetParam()), *backend, visible).evaluate(read_file(kDir + "/candidates/" + GetParam()));
  EXPECT_EQ(r.status, Status::passed) << GetParam() << ": " << r.message << "\n" << r.log;
}

INSTANTIATE_TEST_SUITE_P(Metal, MetalHonest, ::testing::ValuesIn(honest_candidates()), [](const auto& info) {
  return std::filesystem::path(info.param).stem().string();
});

TEST(MetalBackend, BarrierInsideABranchIsBarrierDivergence) {
  const EvalReport r = candidate("barrier_divergence.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("barrier_divergence"), std::string::npos) << r.message;
  // The barriers are named at their candidate-file lines: the one in the branch, and the one after the loop where
  // the threads that left it wait.
  EXPECT_NE(r.message.find("(line 15 (header line 11) and line 11 (header line 7))"), std::string::npos) << r.message;
}

TEST(MetalBackend, TooLargeThreadgroupIsARuntimeError) {
  const EvalReport r = candidate("threadgroup_too_large.metal");
  ASSERT_EQ(r.status, Status::runtime_error) << r.message;
  EXPECT_NE(r.message.find("1024"), std::string::npos) << r.message;
}

TEST(MetalBackend, WrongAnswer) {
  const EvalReport r = candidate("wrong_answer.metal");
  EXPECT_EQ(r.status, Status::wrong_answer) << r.message;
}

TEST(MetalBackend, CompileErrorNamesTheFileAndBodyLine) {
  const EvalReport r = candidate("compile_error.metal");
  ASSERT_EQ(r.status, Status::compile_error) << r.message;
  EXPECT_NE(r.message.find("line 37 (body line 10)"), std::string::npos) << r.message << "\n" << r.log;
  EXPECT_NE(r.message.find("sum"), std::string::npos) << r.message;
}

TEST(MetalBackend, DoubleIsRejectedByTheRules) {
  const EvalReport r = candidate("uses_double.metal");
  ASSERT_EQ(r.status, Status::rejected) << r.message;
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].rule, "double");
  EXPECT_NE(r.message.find("line 35"), std::string::npos) << r.message;
}

// The library metalsim built is checked whatever spelling reached the compiler: built without the text rules, as a
// spelling they missed would be, a load-time constructor and a libc import are refused, each named.
TEST(MetalBackend, BuiltLibraryRunsNoLoadTimeCodeAndImportsNoHostFunction) {
  auto backend = make_backend("metal");
  const auto constructor = backend->build(tiny(), read_file(kDir + "/candidates/library_constructor.metal"));
  EXPECT_FALSE(constructor.ok);
  EXPECT_NE(constructor.log.find("runs `at_load()` when it is loaded"), std::string::npos) << constructor.log;
  const auto host_import = backend->build(tiny(), read_file(kDir + "/candidates/library_host_import.metal"));
  EXPECT_FALSE(host_import.ok);
  EXPECT_NE(host_import.log.find("uses `getpid`"), std::string::npos) << host_import.log;
}

// MSL has no double: a task with an f64 tensor in its metal entry is refused before any candidate is built.
TEST(MetalBackend, TaskWithAnF64TensorIsRefusedBeforeAnyBuild) {
  Task task = tiny();
  task.outputs.front().dtype = DType::f64;
  auto backend = make_backend("metal");
  try {
    Evaluator(task, *backend, options());
    FAIL() << "an f64 output was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tensor '" + task.outputs.front().name + "' is f64"), std::string::npos) << e.what();
  }
  task.outputs.front().dtype = DType::f32;
  EXPECT_FALSE(backend->task_unsupported(task));
}

// Arguments are names in the kernel's signature: one that Metal reserves (its `half` type, an address space) is refused
// before any candidate is built, naming it.
TEST(MetalBackend, TaskWithAnArgumentNamedAsAMetalKeywordIsRefused) {
  auto backend = make_backend("metal");
  auto output_named = [](const std::string& name) {
    Task task = tiny();
    for (auto& [backend_name, entry] : task.entries) std::replace(entry.args.begin(), entry.args.end(), task.outputs.front().name, name);
    task.outputs.front().name = name;
    return task;
  };
  for (const std::string reserved : {"half", "device", "kernel"}) {
    const auto why = backend->task_unsupported(output_named(reserved));
    ASSERT_TRUE(why) << reserved;
    EXPECT_NE(why->find("'" + reserved + "' names a kernel argument, but Metal reserves the word"), std::string::npos) << *why;
  }
  EXPECT_FALSE(backend->task_unsupported(output_named("halfway")));
}

TEST(MetalBackend, MissingDirectiveIsACompileError) {
  const Task task = tiny();
  auto backend = make_backend("metal");
  const EvalReport r = Evaluator(task, *backend, options()).evaluate("// threadgroup: 32, 1, 1\ny[0] = x[0];\n");
  ASSERT_EQ(r.status, Status::compile_error);
  EXPECT_NE(r.message.find("grid"), std::string::npos) << r.message;
}

// A misspelt directive would read as a prose comment and a repeated one would override the first without a word:
// each is a compile error naming its line, while prose comments (capitalised, or no directive's near-miss) stay prose.
TEST(MetalBackend, MisspeltOrRepeatedDirectivesAreCompileErrorsWithTheirLine) {
  const Task task = tiny();
  auto backend = make_backend("metal");
  Evaluator evaluator(task, *backend, options());
  const auto refused = [&](const std::string& source, const std::string& expected) {
    const EvalReport r = evaluator.evaluate(source);
    EXPECT_EQ(r.status, Status::compile_error) << source;
    EXPECT_NE(r.message.find(expected), std::string::npos) << r.message;
  };
  const std::string body = "y[0] = x[0];\n";
  refused("// grid: 1, 1, 1\n// threadgroup: 1, 1, 1\n// atomic_output: true\n" + body,
          "line 3: 'atomic_output:' is no directive; did you mean 'atomic_outputs:'?");
  refused("// gird: 1, 1, 1\n// grid: 1, 1, 1\n// threadgroup: 1, 1, 1\n" + body, "line 1: 'gird:' is no directive");
  refused("// grid: 1, 1, 1\n// threadgroup: 1, 1, 1\n// grid: 2, 1, 1\n" + body, "line 3: a second 'grid' directive");
  const EvalReport prose = evaluator.evaluate(
      "// Note: one thread copies one element.\n// note: prose in lower case\n// grid: 1, 1, 1\n// threadgroup: 1, 1, 1\n" + body);
  EXPECT_NE(prose.status, Status::compile_error) << prose.message;
}

TEST(MetalBackend, UnknownNameInGridIsACompileErrorWithItsLine) {
  const Task task = tiny();
  auto backend = make_backend("metal");
  const EvalReport r =
      Evaluator(task, *backend, options()).evaluate("// grid: 32 * rowz, 1, 1\n// threadgroup: 32, 1, 1\ny[0] = x[0];\n");
  ASSERT_EQ(r.status, Status::compile_error);
  EXPECT_NE(r.message.find("line 1: grid"), std::string::npos) << r.message;
}

TEST(MetalBackend, CliEvaluatesTheSoftmaxSeedWithoutTiming) {
  CommandOptions o;
  o.timeout = std::chrono::minutes(10);
  o.max_output_bytes = 1 << 20;
  const std::string seed = (builtin_tasks_dir() / "softmax/seeds/metal.metal").string();
  const auto json = run_command({KSEARCH_EXECUTABLE, "eval", "--task", "softmax", "--backend", "metal", seed, "--json",
                                "--call-timeout", "120"}, o);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output.substr(json.output.find('{')));
  EXPECT_EQ(j["status"], "passed");
  EXPECT_EQ(j["timed"], false);
  EXPECT_NE(j["log"].get<std::string>().find("no timing on this host"), std::string::npos) << j.dump(2);
  const auto table = run_command({KSEARCH_EXECUTABLE, "eval", "--task", "softmax", "--backend", "metal", seed,
                                 "--call-timeout", "120"}, o);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("no timing on this backend/host: correctness only"), std::string::npos) << table.output;
}

// tests/metal/adversarial/: candidates that use the host compilation behind metalsim to do what a Metal kernel
// cannot (system calls, host files, state kept between calls, the emulator's checks switched off, crashing the
// compiler or ksearch); each names the status (`// expect:`) and a part of the message (`// expect-message:`).
namespace {
struct MetalAttack {
  std::string name, source, expect, message;
};
void PrintTo(const MetalAttack& a, std::ostream* os) { *os << a.name; }
std::vector<MetalAttack> metal_attacks() {
  std::vector<MetalAttack> out;
  for (const auto& entry : std::filesystem::directory_iterator(kDir + "/adversarial")) {
    MetalAttack a{entry.path().stem().string(), read_file(entry.path()), "", ""};
    std::smatch m;
    if (std::regex_search(a.source, m, std::regex(R"(// expect: (\w+))"))) a.expect = m[1];
    if (std::regex_search(a.source, m, std::regex(R"(// expect-message: (.+))"))) a.message = m[1];
    out.push_back(a);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}
class MetalAdversarial : public ::testing::TestWithParam<MetalAttack> {};
}  // namespace

TEST_P(MetalAdversarial, IsRefusedWithItsReason) {
  const MetalAttack& a = GetParam();
  ASSERT_FALSE(a.expect.empty() || a.message.empty()) << a.name << " lacks its // expect: or // expect-message: line";
  auto backend = make_backend("metal");
  const EvalReport r = Evaluator(tiny(), *backend, options()).evaluate(a.source);
  EXPECT_EQ(status_name(r.status), a.expect) << a.name << ": " << r.message << "\n" << r.log;
  EXPECT_NE((r.message + r.log).find(a.message), std::string::npos) << a.name << ": " << r.message << "\n" << r.log;
}

INSTANTIATE_TEST_SUITE_P(Metal, MetalAdversarial, ::testing::ValuesIn(metal_attacks()),
                         [](const auto& info) { return info.param.name; });
