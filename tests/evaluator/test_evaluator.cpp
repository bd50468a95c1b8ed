#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/reference.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::Ceilings;
using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadSet;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::list_builtin_tasks;
using ksearch::tasks::resolve_task;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {
EvalOptions quick_options() {
  EvalOptions o;
  o.target_seconds = 0.05;
  o.max_reps = 12;
  o.call_timeout = std::chrono::seconds(10);
  return o;
}
Task tiny() { return resolve_task(std::string(KSEARCH_TEST_DATA) + "/tasks/tiny_softmax"); }
}  // namespace

TEST(Evaluator, SeedPassesWithTimingSpeedupAndRoofline) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  Evaluator evaluator(task, *backend, quick_options());
  const EvalReport r = evaluator.evaluate(read_file(task.entry("cpu").seed));
  ASSERT_EQ(r.status, Status::passed) << r.message << "\n" << r.log;
  ASSERT_EQ(r.workloads.size(), 3u);
  for (const auto& w : r.workloads) {
    EXPECT_GE(w.timing.samples, 5) << w.name;
    EXPECT_GT(w.timing.median, 0) << w.name;
    EXPECT_GT(w.roofline_fraction, 0) << w.name;
    EXPECT_LE(w.timing.p10, w.timing.median);
    EXPECT_LE(w.timing.median, w.timing.p90);
    EXPECT_GT(w.seed_ms, 0);
  }
  EXPECT_GT(r.speedup_vs_seed, 0.3);
  EXPECT_LT(r.speedup_vs_seed, 3.0);  // the seed against itself
  EXPECT_NE(r.sandbox.find("landlock"), std::string::npos) << r.sandbox;
  // The JSON form round-trips.
  const EvalReport back = EvalReport::from_json(r.to_json());
  EXPECT_EQ(back.workloads.size(), r.workloads.size());
  EXPECT_EQ(back.workloads[0].timing.median, r.workloads[0].timing.median);
}

// Macros that double their argument at every level make the preprocessor run out of memory: the report says so
// (the tool's own line) instead of blaming a file the candidate included.
TEST(Evaluator, APreprocessorThatRunsOutOfMemoryIsNamedAsTheCause) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  const EvalReport r = Evaluator(task, *backend, quick_options())
                           .evaluate("#include <cstdint>\n#define A(x) x x\n#define B(x) A(A(A(A(A(A(A(A(x))))))))\n"
                                     "#define C(x) B(B(B(B(x))))\n"
                                     "extern \"C\" void softmax(const float* x, float* y, int64_t r, int64_t c) { C(y[0] = 1;) }\n");
  EXPECT_EQ(r.status, Status::compile_error);
  EXPECT_NE(r.log.find("out of memory"), std::string::npos) << r.message << "\n" << r.log;
}

// The entry may leave const out of an input pointer (as much real code does; an input it changed would be caught after
// the call) and is called as it declares itself; another type or another number of parameters stops the build with a
// message naming the task's signature, not the compiler's complaint about two C functions of one name.
TEST(Evaluator, TheEntryMayDropConstFromPointersAndResizeIntegersButNotChangeItsSignature) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  const std::string body =
      "{\n  for (int64_t r = 0; r < rows; ++r) {\n    float m = x[r * cols], s = 0;\n"
      "    for (int64_t c = 1; c < cols; ++c) m = std::max(m, x[r * cols + c]);\n"
      "    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);\n"
      "    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;\n  }\n}\n";
  const std::string headers = "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n";
  EvalOptions o = quick_options();
  o.time = false;
  const EvalReport plain = Evaluator(task, *backend, o)
                               .evaluate(headers + "extern \"C\" void softmax(float* x, float* y, int64_t rows, int64_t cols) " + body);
  EXPECT_EQ(plain.status, Status::passed) << plain.message << "\n" << plain.log;
  // An integer may be declared narrower, as real code declares `int n`: its value is checked to fit at the call.
  const EvalReport narrowed = Evaluator(task, *backend, o)
                                  .evaluate(headers + "extern \"C\" void softmax(const float* x, float* y, int rows, int64_t cols) " + body);
  EXPECT_EQ(narrowed.status, Status::passed) << narrowed.message << "\n" << narrowed.log;
  const EvalReport too_narrow = Evaluator(task, *backend, o)
                                    .evaluate(headers + "extern \"C\" void softmax(const float* x, float* y, int64_t rows, int8_t cols) " + body);
  EXPECT_NE(too_narrow.status, Status::passed);  // cols = 256: the call traps instead of running with 0
  EXPECT_NE(too_narrow.log.find("cannot hold the value 256"), std::string::npos) << too_narrow.message << "\n" << too_narrow.log;
  const EvalReport floating = Evaluator(task, *backend, o)
                                  .evaluate(headers + "extern \"C\" void softmax(const float* x, float* y, double rows, int64_t cols) " + body);
  EXPECT_EQ(floating.status, Status::compile_error);
  EXPECT_NE(floating.log.find("another type than the task's signature"), std::string::npos) << floating.log;
  const EvalReport shorter = Evaluator(task, *backend, o)
                                 .evaluate(headers + "extern \"C\" void softmax(const float* x, float* y, int64_t rows) {\n"
                                                     "  const int64_t cols = 64;\n" + body.substr(2));
  EXPECT_EQ(shorter.status, Status::compile_error);
  EXPECT_NE(shorter.log.find("another number of parameters"), std::string::npos) << shorter.log;
}

// The seed's timings are cached per workload and per what generates its inputs: a workload changed in memory (here
// 16 times larger) is timed again instead of being compared with the file's timing (which times the seed on every
// workload again, in one sitting), and an unchanged task reads its timings back.
TEST(Evaluator, SeedTimingsFollowTheWorkloadNotOnlyItsName) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  EvalOptions o = quick_options();
  o.seed_timings_dir = fs::temp_directory_path() / fmt::format("ksearch-seed-timings-{}", getpid());
  fs::remove_all(o.seed_timings_dir);
  const std::string seed = read_file(task.entry("cpu").seed);
  auto seed_ms = [&](const Task& t) {
    const EvalReport r = Evaluator(t, *backend, o).evaluate(seed);
    EXPECT_EQ(r.status, Status::passed) << r.message;
    std::map<std::string, double> by_name;
    for (const auto& w : r.workloads) by_name[w.name] = w.seed_ms;
    return by_name;
  };
  auto stored_entries = [&] {
    std::vector<std::string> keys;
    for (const auto& entry : fs::directory_iterator(o.seed_timings_dir)) {
      const auto stored = nlohmann::json::parse(read_file(entry.path()));
      for (const auto& [k, v] : stored.items()) keys.push_back(k);
    }
    return keys;
  };
  const auto first = seed_ms(task);
  ASSERT_EQ(stored_entries().size(), first.size());
  EXPECT_EQ(seed_ms(task), first);  // read back: the very same numbers
  Task larger = task;
  Workload& changed = larger.workloads.front();
  for (auto& [axis, size] : changed.axes) size *= 4;
  const auto second = seed_ms(larger);
  EXPECT_EQ(stored_entries().size(), first.size() + 1);  // the changed workload stored beside the file's
  EXPECT_GT(second.at(changed.name), 2 * first.at(changed.name));
  fs::remove_all(o.seed_timings_dir);
}

// The roofline is the largest of the memory, FLOP and transcendental times, and names which one.
TEST(Evaluator, RooflineTakesTheSlowestCeilingIncludingTranscendentals) {
  Task task = tiny();
  auto backend = make_backend("cpu");
  const Ceilings c = backend->ceilings();
  ASSERT_GT(c.transcendentals_per_s, 0) << c.method;
  EvalOptions o = quick_options();
  o.workloads = WorkloadSet::visible;
  const std::string seed = read_file(task.entry("cpu").seed);
  for (const auto& w : Evaluator(task, *backend, o).evaluate(seed).workloads) EXPECT_EQ(w.roofline_bound, "memory") << w.name;
  task.transcendentals_expr = "1000 * rows * cols";  // far more exps than the bytes' time allows
  const EvalReport r = Evaluator(task, *backend, o).evaluate(seed);
  ASSERT_EQ(r.status, Status::passed) << r.message;
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.roofline_bound, "transcendental") << w.name;
    EXPECT_NEAR(w.roofline_ms, 1000 * task.transcendentals(task.workload(w.name)) / c.transcendentals_per_s, 1e-9 + 1e-6 * w.roofline_ms);
  }
  EXPECT_EQ(EvalReport::from_json(r.to_json()).workloads[0].roofline_bound, "transcendental");
}

// Ceilings measured beside other load read low, and a low ceiling makes an honest kernel look implausibly fast:
// a kernel beating them has the ceilings measured again, each keeping the larger value, before anything is
// rejected.
TEST(Evaluator, AKernelBeatingLowCeilingsHasThemMeasuredAgainNotRejected) {
  // This machine's ceilings file from the suite's cache (measured once for all tests), starved into a cache of
  // this test's own, as if its probe had hardly had the CPU.
  const double measured_flops = make_backend("cpu")->ceilings().flops_per_s;
  std::optional<fs::path> measured_file;
  for (const auto& entry : fs::directory_iterator(cache_subdir("ceilings")))
    if (entry.path().filename().string().starts_with("cpu-") &&
        nlohmann::json::parse(read_file(entry.path()), nullptr, false).value("flops_per_s", 0.0) == measured_flops)
      measured_file = entry.path();
  ASSERT_TRUE(measured_file);
  nlohmann::json stale = nlohmann::json::parse(read_file(*measured_file));
  stale["flops_per_s"] = stale["bandwidth_bytes_per_s"] = stale["exp_per_s"] = 1e6;
  // The suite's file may have been measured again already, by an earlier test's kernel that beat it.
  const int measurements = stale.value("measurements", 1) + 1;
  const fs::path private_cache = fs::temp_directory_path() / fmt::format("ksearch-ceilings-test-{}", getpid());
  fs::remove_all(private_cache);
  const std::string previous = std::getenv("KSEARCH_CACHE_DIR") ? std::getenv("KSEARCH_CACHE_DIR") : "";
  setenv("KSEARCH_CACHE_DIR", private_cache.c_str(), 1);
  const std::vector<fs::path> files{cache_subdir("ceilings") / measured_file->filename()};
  write_file_atomic(files[0], stale.dump());

  const Task task = tiny();
  auto backend = make_backend("cpu");
  EvalOptions o = quick_options();
  o.compare_to_seed = false;
  const EvalReport r = Evaluator(task, *backend, o).evaluate(read_file(task.entry("cpu").seed));
  EXPECT_EQ(r.status, Status::passed) << r.message;
  EXPECT_GT(r.phase_seconds.count("ceilings"), 0u);
  const nlohmann::json merged = nlohmann::json::parse(read_file(files[0]));
  EXPECT_EQ(merged.value("measurements", 0), measurements);
  EXPECT_GT(merged.value("flops_per_s", 0.0), 0.2 * measured_flops);
  EXPECT_DOUBLE_EQ(backend->ceilings().flops_per_s, merged.value("flops_per_s", 0.0));
  EXPECT_NE(backend->ceilings().method.find(fmt::format("the largest of {} measurements", measurements)), std::string::npos);
  backend->remeasure_ceilings();  // at most once per backend: this returns what the evaluation measured
  EXPECT_EQ(nlohmann::json::parse(read_file(files[0])).value("measurements", 0), measurements);

  // Measured again mid-run, the ceilings do not time the seed a second time (in another sitting, under another
  // file). A failing candidate has the seed timed beside it while the ceilings are still the starved ones; the
  // seed's own evaluation beats them and has them measured again; the next evaluation reads the same timings.
  write_file_atomic(files[0], stale.dump());
  auto starved_backend = make_backend("cpu");
  o.compare_to_seed = true;
  o.seed_timings_dir = private_cache / "seed-timings";
  auto seed_timing_files = [&] { return std::distance(fs::directory_iterator(o.seed_timings_dir), fs::directory_iterator()); };
  const EvalReport wrong = Evaluator(task, *starved_backend, o)
                               .evaluate("#include <cstdint>\nextern \"C\" void softmax(const float*, float*, int64_t, int64_t) {}\n");
  EXPECT_NE(wrong.status, Status::passed);
  EXPECT_EQ(seed_timing_files(), 1);
  EXPECT_GT(starved_backend->ceilings().flops_per_s, 0.2 * measured_flops);
  const EvalReport compared = Evaluator(task, *starved_backend, o).evaluate(read_file(task.entry("cpu").seed));
  EXPECT_EQ(compared.status, Status::passed) << compared.message;
  EXPECT_EQ(seed_timing_files(), 1);
  for (const auto& w : compared.workloads) EXPECT_GT(w.seed_ms, 0) << w.name;
  setenv("KSEARCH_CACHE_DIR", previous.c_str(), 1);
  fs::remove_all(private_cache);
}

// The checked repetitions' mixes are drawn afresh for each evaluation: from the machine's secret pool they were the
// same in every evaluation, and a candidate that printed fingerprints of its inputs learned which ones could be
// checked (checked_input_fingerprints, a red-team probe). Their references are never cached: only the trials' and the
// re-check's inputs, drawn from the pool, leave a reference file, whatever the number of checks.
TEST(Evaluator, CheckedRepetitionsAreDrawnAfreshAndTheirReferencesNotCached) {
  const fs::path private_cache = fs::temp_directory_path() / fmt::format("ksearch-fresh-checks-test-{}", getpid());
  fs::remove_all(private_cache);
  const std::string previous = std::getenv("KSEARCH_CACHE_DIR") ? std::getenv("KSEARCH_CACHE_DIR") : "";
  setenv("KSEARCH_CACHE_DIR", private_cache.c_str(), 1);
  const Task task = tiny();
  auto backend = make_backend("cpu");
  EvalOptions o = quick_options();
  o.compare_to_seed = false;
  o.min_reps = 8;  // every one of them could be checked
  const EvalReport r = Evaluator(task, *backend, o).evaluate(read_file(task.entry("cpu").seed));
  ASSERT_EQ(r.status, Status::passed) << r.message;
  const fs::path references = private_cache / "references" / task.name;
  const auto cached = std::distance(fs::directory_iterator(references), fs::directory_iterator());
  // per workload: the trials' inputs (the first two are the mix sources) and the re-check's
  EXPECT_LE(cached, long(r.workloads.size()) * (o.trials + 1));
  EXPECT_GE(cached, long(r.workloads.size()) * o.trials);
  setenv("KSEARCH_CACHE_DIR", previous.c_str(), 1);
  fs::remove_all(private_cache);
}

TEST(Evaluator, WorkloadSetsSeparateVisibleAndHeldOut) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  EvalOptions o = quick_options();
  o.time = false;
  o.workloads = WorkloadSet::held_out;
  const EvalReport held = Evaluator(task, *backend, o).evaluate(read_file(task.entry("cpu").seed));
  ASSERT_EQ(held.workloads.size(), 1u);
  EXPECT_TRUE(held.workloads[0].held_out);
  o.workloads = WorkloadSet::visible;
  const EvalReport visible = Evaluator(task, *backend, o).evaluate(read_file(task.entry("cpu").seed));
  EXPECT_EQ(visible.workloads.size(), 2u);
  EXPECT_FALSE(visible.timed);
}

TEST(Evaluator, FasterCandidateShowsSpeedup) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  // One exp per element instead of two, as an inlined polynomial instead of a libm call: about 3x the
  // seed where it ran alone, so the check holds on a loaded machine too. (No OpenMP: thread wake-ups
  // dominate rows this small.) The agent-mode test submits the same kernel.
  const std::string fast = read_file(fs::path(KSEARCH_TEST_DATA) / "../llm_proposer/agent/write_code.cpp");
  const EvalReport r = Evaluator(task, *backend, quick_options()).evaluate(fast);
  ASSERT_EQ(r.status, Status::passed) << r.message << r.log;
  EXPECT_GT(r.speedup_vs_seed, 1.5) << r.to_json().dump(1);
}

// What an evaluation cost, by phase: every step of a timed evaluation is counted once, so the phases
// add up to no more than the evaluation's wall time.
TEST(Evaluator, PhaseSecondsCoverEachStepOnce) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  const auto start = std::chrono::steady_clock::now();
  const EvalReport r = Evaluator(task, *backend, quick_options()).evaluate(read_file(task.entry("cpu").seed));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, Status::passed) << r.message;
  double sum = 0;
  for (const char* phase : {"checks", "build", "start", "lock_wait", "inputs", "reference", "staging", "calls", "compare", "flush"}) {
    ASSERT_TRUE(r.phase_seconds.count(phase)) << phase << " missing from " << r.to_json()["phase_seconds"].dump();
    EXPECT_GE(r.phase_seconds.at(phase), 0) << phase;
    sum += r.phase_seconds.at(phase);
  }
  EXPECT_GT(r.phase_seconds.at("calls"), 0);
  EXPECT_LE(sum, wall + 1e-3) << r.to_json()["phase_seconds"].dump();
  EXPECT_EQ(EvalReport::from_json(r.to_json()).phase_seconds, r.phase_seconds);
}

// The acceptance criterion of the evaluator issue: every built-in task's cpu seed passes, held-out included.
TEST(Evaluator, EveryBuiltinCpuSeedPasses) {
  auto backend = make_backend("cpu");
  EvalOptions o = quick_options();
  o.time = false;
  o.call_timeout = std::chrono::seconds(120);
  for (const Task& task : list_builtin_tasks()) {
    if (!task.entries.count("cpu")) continue;  // e.g. a GPU-only dtype variant
    const EvalReport r = Evaluator(task, *backend, o).evaluate(read_file(task.entry("cpu").seed));
    EXPECT_EQ(r.status, Status::passed) << task.name << ": " << r.message << "\n" << r.log;
  }
}

// A runner that dies on one workload leaves the later ones not run: their status says so (never passed, in
// the JSON too), with the reason, and the crash is the evaluation's status.
TEST(Evaluator, WorkloadsAfterARunnerCrashAreNotRun) {
  const Task task = tiny();
  auto backend = make_backend("cpu");
  const std::string crashes_on_long_rows = R"(
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (cols == 1000) y = reinterpret_cast<float*>(uintptr_t(16));
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
})";
  EvalOptions o = quick_options();
  o.time = false;
  const EvalReport r = Evaluator(task, *backend, o).evaluate(crashes_on_long_rows);
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].status, Status::passed) << r.workloads[0].message;
  EXPECT_EQ(r.workloads[1].status, Status::runtime_error) << r.workloads[1].message;
  EXPECT_EQ(r.workloads[2].status, Status::not_run);
  EXPECT_FALSE(r.workloads[2].ran);
  EXPECT_NE(r.workloads[2].message.find("not run"), std::string::npos) << r.workloads[2].message;
  EXPECT_EQ(r.status, Status::runtime_error);
  EXPECT_NE(r.message.find("r16_c1000"), std::string::npos) << r.message;
  const nlohmann::json j = r.to_json();
  EXPECT_EQ(j["workloads"][2]["status"], "not_run") << j.dump(1);
  EXPECT_EQ(EvalReport::from_json(j).workloads[2].status, Status::not_run);
}

namespace {

// The tiny task with its seed where it is and a reference of its own, in a folder of its own.
Task tiny_task_with_reference(const std::string& folder, const std::string& reference) {
  const fs::path dir = fs::temp_directory_path() / folder;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path tiny_dir = fs::path(KSEARCH_TEST_DATA) / "tasks/tiny_softmax";
  const std::string softmax = (tiny_dir / "../../../../tasks/softmax").lexically_normal().string();
  std::string toml = read_file(tiny_dir / "task.toml");
  toml.replace(toml.find("../../../../tasks/softmax/seeds"), std::strlen("../../../../tasks/softmax"), softmax);
  toml.replace(toml.find("../../../../tasks/softmax/reference.cpp"), std::strlen("../../../../tasks/softmax/reference.cpp"), "reference.cpp");
  std::ofstream(dir / "task.toml") << toml;
  std::ofstream(dir / "reference.cpp") << reference;
  return resolve_task(dir.string());
}

}  // namespace

// A task whose reference does not compile is the task's error: no candidate is blamed for it.
TEST(Evaluator, ABrokenReferenceIsTheTasksError) {
  const Task task = tiny_task_with_reference(
      "ksearch-broken-reference", "extern \"C\" void ks_reference(const ks_reference_args* a) { syntax error }\n");
  auto backend = make_backend("cpu");
  try {
    Evaluator evaluator(task, *backend, quick_options());
    FAIL() << "a broken reference was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the reference of task 'tiny_softmax'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not compile"), std::string::npos) << e.what();
  }
  fs::remove_all(task.dir);
}

// Nor is one that crashes on a workload: the evaluation ends with the reference's error, not a failed candidate.
TEST(Evaluator, ACrashingReferenceIsTheTasksError) {
  const Task task = tiny_task_with_reference(
      "ksearch-crashing-reference",
      "#include \"ksearch/reference.h\"\nextern \"C\" void ks_reference(const ks_reference_args*) { volatile int* p = nullptr; *p = 1; }\n");
  auto backend = make_backend("cpu");
  Evaluator evaluator(task, *backend, quick_options());
  try {
    evaluator.evaluate(read_file(task.entry("cpu").seed));
    FAIL() << "a crashing reference gave an evaluation";
  } catch (const ksearch::tasks::ReferenceError& e) {
    EXPECT_NE(std::string(e.what()).find("the reference of task 'tiny_softmax' crashed (signal 11"), std::string::npos) << e.what();
  }
  fs::remove_all(task.dir);
}
