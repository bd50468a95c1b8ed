// GPU tests of the cuda backend: seeds, device references and the adversarial suite through the
// evaluator. Skipped (reported as skipped, never as passed) where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <future>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/device_reference.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/inputs.hpp"
#include "tasks/registry.hpp"
#include "test_common.hpp"

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::backends::Ceilings;
using ksearch::backends::make_backend;
using ksearch::evaluator::DeviceReference;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadSet;
using ksearch::evaluator::verification_marker;
using ksearch::tasks::ReferenceOutputs;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::generate_inputs;
using ksearch::tasks::list_builtin_tasks;
using ksearch::tasks::resolve_task;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Backend> gpu_backend() {
  auto backend = make_backend("cuda");
  std::string why;
  if (!backend->available(&why)) return nullptr;
  return backend;
}

EvalOptions quick_options() {
  EvalOptions o;
  o.workloads = WorkloadSet::visible;
  o.compare_to_seed = false;
  o.target_seconds = 0.05;
  o.max_reps = 10;
  o.call_timeout = std::chrono::milliseconds(8000);
  return o;
}

}  // namespace

TEST(CudaGpu, SeedsPassEveryWorkload) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  for (const auto& task : list_builtin_tasks()) {
    if (!task.entries.count("cuda")) continue;
    EvalOptions options = quick_options();
    options.workloads = WorkloadSet::all;
    options.time = false;
    Evaluator evaluator(task, *backend, options);
    const EvalReport r = evaluator.evaluate(read_file(task.entry("cuda").seed));
    EXPECT_EQ(status_name(r.status), "passed") << task.name << ": " << r.message << "\n" << r.log;
  }
}

TEST(CudaGpu, TimedSeedIsWithinTheRoofline) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  const Task task = resolve_task("softmax");
  Evaluator evaluator(task, *backend, quick_options());
  const EvalReport r = evaluator.evaluate(read_file(task.entry("cuda").seed));
  ASSERT_EQ(status_name(r.status), "passed") << r.message;
  for (const auto& w : r.workloads) {
    EXPECT_GT(w.timing.samples, 0) << w.name;
    EXPECT_GT(w.timing.median, 0) << w.name;
    EXPECT_LE(w.roofline_fraction, 1.0) << w.name;
  }
  const Ceilings c = backend->ceilings();
  EXPECT_GT(c.bandwidth_bytes_per_s, 1e11);
  EXPECT_GT(c.flops_per_s, 1e12);
}

// Every built-in template family at its defaults passes every workload, held-out included (the large ones against the
// device references): the search starts each family there, and its verdict comes from the held-out ones (other state
// sizes and head dims, which take the families' general kernels). Builds run in parallel first; evaluations reuse them.
TEST(CudaGpu, TemplateFamiliesPassEveryWorkloadAtTheirDefaults) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  auto provider = proposers::builtin::provider_for("cuda");
  ASSERT_TRUE(provider);
  backend->profile();  // initialized before the builds run on several threads
  struct Case {
    Task task;
    std::string family, source;
  };
  std::vector<Case> cases;
  for (const auto& task : list_builtin_tasks()) {
    if (!task.entries.count("cuda")) continue;
    for (const auto& family : provider->families(task))
      cases.push_back({task, family.name, provider->render(task, family.name, family.defaults())});
  }
  std::vector<std::future<BuildResult>> builds;
  for (const auto& c : cases)
    builds.push_back(std::async(std::launch::async, [&backend, &c] { return backend->build(c.task, c.source); }));
  for (size_t i = 0; i < cases.size(); ++i) {
    const BuildResult build = builds[i].get();
    ASSERT_TRUE(build.ok) << cases[i].task.name << "/" << cases[i].family << ":\n" << build.log;
    EvalOptions options = quick_options();
    options.workloads = WorkloadSet::all;
    options.time = false;
    const EvalReport r = Evaluator(cases[i].task, *backend, options).evaluate(cases[i].source);
    EXPECT_EQ(status_name(r.status), "passed") << cases[i].task.name << "/" << cases[i].family << ": " << r.message;
  }
  EXPECT_GE(cases.size(), 10u);
}

namespace {

using proposers::builtin::Family;
using proposers::builtin::KnobValues;

// attention_bf16's workloads on cuda, held-out ones included: the decodes (lq = 1) or the prefills.
Task attention_workloads(bool decode) {
  Task task = resolve_task("attention_bf16");
  std::erase_if(task.workloads, [&](const Workload& w) { return (w.axes.at("lq") == 1) != decode || !w.runs_on("cuda"); });
  return task;
}

// The cuda family `family_name` at every knob combination that `combinations` gives renders, builds and passes every
// workload left in `task` (the evaluator's trials call it repeatedly on the same buffers); a failure names the
// knobs whose names start with `shown`.
void expect_every_combination_passes(Backend& backend, const Task& task, const std::string& family_name,
                                     const std::function<std::vector<KnobValues>(const Family&)>& combinations,
                                     const std::string& shown) {
  auto provider = proposers::builtin::provider_for("cuda");
  ASSERT_TRUE(provider);
  backend.profile();
  const auto families = provider->families(task);
  const auto family = std::find_if(families.begin(), families.end(), [&](const auto& f) { return f.name == family_name; });
  ASSERT_NE(family, families.end());
  const std::vector<KnobValues> combos = combinations(*family);
  ASSERT_GE(combos.size(), 5u);
  std::vector<std::string> sources;
  std::vector<std::future<BuildResult>> builds;
  for (const auto& combo : combos) sources.push_back(provider->render(task, family_name, combo));
  for (const auto& source : sources)
    builds.push_back(std::async(std::launch::async, [&backend, &task, &source] { return backend.build(task, source); }));
  for (size_t i = 0; i < combos.size(); ++i) {
    std::string name = family_name;
    for (const auto& [k, v] : combos[i])
      if (k.starts_with(shown)) name += " " + k + "=" + std::to_string(v);
    const BuildResult build = builds[i].get();
    ASSERT_TRUE(build.ok) << name << ":\n" << build.log;
    EvalOptions options = quick_options();
    options.workloads = WorkloadSet::all;
    options.time = false;
    const EvalReport r = Evaluator(task, backend, options).evaluate(sources[i]);
    EXPECT_EQ(status_name(r.status), "passed") << name << ": " << r.message;
  }
}

}  // namespace

// The attention_bf16 decode (templates/cuda/attention_bf16/decode_split.cuh, shared by the families) at every
// combination of its DEC_* knobs passes every decode workload, held-out ones included (GQA, batch > 1, a key
// count off the tile size, head size 96 through the fallback).
TEST(CudaGpu, AttentionDecodePassesAtEveryCombinationOfItsKnobs) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  const Task task = attention_workloads(true);
  ASSERT_GE(task.workloads.size(), 4u);
  expect_every_combination_passes(*backend, task, "flash_pipelined", [](const Family& family) {
    std::vector<KnobValues> combos = {family.defaults()};
    for (const auto& knob : family.knobs) {
      if (!knob.name.starts_with("DEC_")) continue;
      std::vector<KnobValues> grown;
      for (const auto& combo : combos)
        for (int64_t v : knob.values) {
          grown.push_back(combo);
          grown.back()[knob.name] = v;
        }
      combos = std::move(grown);
    }
    return combos;
  }, "DEC_");
}

namespace {

// The defaults, then each other value of each knob whose name does not start with `skipped`, the rest at their
// defaults, with `with` added to the combinations that set a knob it names (knob -> the other knobs to set).
std::vector<KnobValues> each_value_of_each_knob(const Family& family, const std::string& skipped,
                                                const std::map<std::string, KnobValues>& with = {}) {
  std::vector<KnobValues> combos = {family.defaults()};
  for (const auto& knob : family.knobs) {
    if (!skipped.empty() && knob.name.starts_with(skipped)) continue;
    for (int64_t v : knob.values) {
      if (v == knob.default_value) continue;
      combos.push_back(family.defaults());
      combos.back()[knob.name] = v;
      if (const auto extra = with.find(knob.name); extra != with.end())
        for (const auto& [k, value] : extra->second) combos.back()[k] = value;
    }
  }
  return combos;
}

}  // namespace

// flash_wgmma's prefill (head sizes 64 and 128 on wgmma, others through the rows loop) at each value of each of its
// prefill knobs, the others at their defaults, passes every prefill workload, held-out ones included (causal and
// not, GQA, ragged lengths, a chunk of queries at the end of a longer context, head size 64).
TEST(CudaGpu, WgmmaPrefillPassesAtEveryValueOfEachKnob) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  const Task task = attention_workloads(false);
  ASSERT_GE(task.workloads.size(), 8u);
  expect_every_combination_passes(*backend, task, "flash_wgmma", [](const Family& family) {
    return each_value_of_each_knob(family, "DEC_");
  }, "");
}

// With q drawn 8 times wider, a row's scores keep setting new maxima along the keys (about 11 log2 units of spread),
// so flash_wgmma's speculative softmax (SPEC 1) falls back to the exact maxima on many tiles, and its sums often pass
// the bound while no maximum moved; every prefill workload still passes, at both tile widths and with three
// consumer warpgroups. A few keys then carry a row's weight, so P's rounding to bf16 no longer averages
// out: SPEC 0 too errs up to 0.007 on 1-2 of 16M elements (H200), over the task's 0.005 + 2% (a wrong rescale would
// err by about |v|, 1), hence 0.02.
TEST(CudaGpu, WgmmaSpeculativeSoftmaxPassesWhereTheMaximaKeepRising) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  Task task = attention_workloads(false);
  const auto q = std::find_if(task.inputs.begin(), task.inputs.end(), [](const auto& t) { return t.name == "q"; });
  ASSERT_NE(q, task.inputs.end());
  q->dist.b *= 8;
  task.tolerances.at(DType::bf16).atol = 0.02;
  expect_every_combination_passes(*backend, task, "flash_wgmma", [](const Family& family) {
    std::vector<KnobValues> combos;
    for (int64_t spec : {0, 1})
      for (int64_t keys : {64, 128}) {
        combos.push_back(family.defaults());
        combos.back()["SPEC"] = spec;
        combos.back()["BKV"] = keys;
      }
    combos.push_back(family.defaults());
    combos.back()["SPEC"] = 1;
    combos.back()["WGS"] = 3;
    return combos;
  }, "");
}

// The selective scan's lanes_single_pass at each value of each knob passes every cuda workload, held-out ones
// included (other state sizes through the fallback, groups, the fixed layout, optional tensors absent, odd
// lengths, thin grids split into time chunks). Lanes per channel below 16 apply only on grids with MINW warps per
// SM, so those values are tried with MINW = 0; the block-wide B/C staging is tried at every depth and width.
TEST(CudaGpu, LanesScanPassesAtEveryValueOfEachKnob) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  Task task = resolve_task("selective_scan");
  std::erase_if(task.workloads, [](const Workload& w) { return !w.runs_on("cuda"); });
  ASSERT_GE(task.workloads.size(), 12u);
  expect_every_combination_passes(*backend, task, "lanes_single_pass", [](const Family& family) {
    return each_value_of_each_knob(family, "", {{"LPC", {{"MINW", 0}}}});
  }, "");
}

// softmax's 8192 x 8192 workload is checked against the device reference (reference.cu), which is
// verified against reference.cpp on the smaller workloads first (the marker is removed so that it runs).
TEST(CudaGpu, LargeWorkloadUsesTheVerifiedDeviceReference) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  const Task task = resolve_task("softmax");
  const fs::path marker = verification_marker(task, task.device_references.at("cuda"));
  fs::remove(marker);
  EvalOptions options = quick_options();
  options.time = false;
  const EvalReport r = Evaluator(task, *backend, options).evaluate(read_file(task.entry("cuda").seed));
  ASSERT_EQ(status_name(r.status), "passed") << r.message << "\n" << r.log;
  for (const auto& w : r.workloads)
    EXPECT_EQ(w.reference, w.name == "r8192_c8192" ? "device" : "cpu") << w.name;
  ASSERT_TRUE(fs::exists(marker));
  const auto record = nlohmann::json::parse(read_file(marker));
  std::vector<std::string> verified;
  for (const auto& check : record.at("checks")) {
    verified.push_back(check.at("workload"));
    EXPECT_LT(check.at("max_rel_err").get<double>(), 1e-5) << check.dump();
  }
  EXPECT_EQ(verified, (std::vector<std::string>{"r512_c1024", "r2048_c4096", "r64_c32000"}));
}

// Every cuda device reference agrees with its task's CPU reference (verified here: the markers are
// removed) and computes the task's largest cuda workload quickly. The time printed includes staging
// and reading the outputs back; later runs read the outputs from the reference cache instead.
TEST(CudaGpu, DeviceReferencesAgreeWithTheCpuReferencesAndAreQuick) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  constexpr uint64_t kSeed = 7;
  int references = 0;
  for (const auto& task : list_builtin_tasks()) {
    const auto it = task.device_references.find("cuda");
    if (it == task.device_references.end()) continue;
    ++references;
    fs::remove(verification_marker(task, it->second));
    DeviceReference reference(task, *backend, it->second);
    try {
      for (const auto& check : reference.verify().checks)
        std::printf("%-16s verified on %-40s max abs err %.3g, max rel err %.3g\n", task.name.c_str(),
                    check.workload.c_str(), check.max_abs_err, check.max_rel_err);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const Workload* largest = nullptr;
    for (const auto& w : task.workloads)
      if (w.runs_on("cuda") && (!largest || task.reference_cost(w) > task.reference_cost(*largest))) largest = &w;
    const auto inputs = generate_inputs(task, *largest, kSeed);
    const auto start = std::chrono::steady_clock::now();
    const ReferenceOutputs outputs = reference.outputs(*largest, inputs);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-16s device reference on %-40s %.2f s\n", task.name.c_str(), largest->name.c_str(), seconds);
    EXPECT_LT(seconds, 30.0) << task.name;
    EXPECT_FALSE(outputs[0].empty()) << task.name;
  }
  EXPECT_GE(references, 5);
}

// Every honest kernel of tests/cuda/honest/ passes every workload of its task, held-out ones included: no defense
// refuses honest code (those still refused by a rule their header names are CudaHost's business).
TEST(CudaGpu, HonestKernelsPassEveryWorkload) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  for (const auto& file : cuda_test::honest_files()) {
    const std::string source = read_file(file);
    if (!cuda_test::header_status(source, "refused-today").empty()) continue;
    EvalOptions options = quick_options();
    options.workloads = WorkloadSet::all;
    options.time = false;
    const EvalReport r = Evaluator(resolve_task(cuda_test::header_status(source, "task")), *backend, options).evaluate(source);
    EXPECT_EQ(status_name(r.status), "passed") << file.filename() << ": " << r.message << "\n" << r.log;
    std::printf("honest %-40s -> %-13s %s\n", file.filename().c_str(), std::string(status_name(r.status)).c_str(),
                r.message.substr(0, 150).c_str());
  }
}

// Each adversarial source names the status it must get; a runner killed by one case must not
// affect the next (a new runner is started per evaluation).
TEST(CudaGpu, AdversarialSuite) {
  auto backend = gpu_backend();
  if (!backend) GTEST_SKIP() << "no GPU here";
  const Task task = resolve_task("softmax");
  for (const auto& file : cuda_test::adversarial_files()) {
    const std::string source = read_file(file);
    Evaluator evaluator(task, *backend, quick_options());
    const EvalReport r = evaluator.evaluate(source);
    EXPECT_EQ(status_name(r.status), cuda_test::header_status(source, "expect")) << file.filename() << ": " << r.message;
    const std::string message = cuda_test::header_text(source, "expect-message");
    EXPECT_NE(r.message.find(message), std::string::npos) << file.filename() << ": " << r.message;
    std::printf("adversarial %-22s -> %-13s %s\n", file.filename().c_str(), std::string(status_name(r.status)).c_str(),
                r.message.substr(0, 150).c_str());
    const std::string under_memcheck = cuda_test::header_status(source, "expect-memcheck");
    if (!under_memcheck.empty()) {  // as a run's best is checked (Search's final phase)
      const std::optional<EvalReport> checked = evaluator.memcheck(source);
      ASSERT_TRUE(checked) << "the cuda backend has no memory checker";
      EXPECT_EQ(status_name(checked->status), under_memcheck) << file.filename() << " under memcheck: " << checked->message;
      std::printf("adversarial %-22s -> %-13s %s (memcheck)\n", file.filename().c_str(),
                  std::string(status_name(checked->status)).c_str(), checked->message.substr(0, 150).c_str());
    }
    const std::string without_rules = cuda_test::header_status(source, "expect-without-rules");
    if (without_rules.empty()) continue;
    EvalOptions o = quick_options();
    o.enforce_rules = false;
    const EvalReport bare = Evaluator(task, *backend, o).evaluate(source);
    EXPECT_EQ(status_name(bare.status), without_rules) << file.filename() << " without rules: " << bare.message;
    EXPECT_NE(bare.message.find(message), std::string::npos) << file.filename() << " without rules: " << bare.message;
    std::printf("adversarial %-22s -> %-13s %s (rules off)\n", file.filename().c_str(),
                std::string(status_name(bare.status)).c_str(), bare.message.substr(0, 150).c_str());
  }
  // The GPU is still usable afterwards, and the honest seed passes the memory checker.
  Evaluator evaluator(task, *backend, quick_options());
  const std::string seed = read_file(task.entry("cuda").seed);
  EXPECT_EQ(status_name(evaluator.evaluate(seed).status), "passed");
  const std::optional<EvalReport> checked = evaluator.memcheck(seed);
  ASSERT_TRUE(checked);
  EXPECT_EQ(status_name(checked->status), "passed") << checked->message << "\n" << checked->log;
}
