#include "family_cases.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;
using ksearch::tasks::resolve_task;

namespace ksearch {

namespace {

// Small attention workloads (the fp32 and bf16 tasks share them): GQA, causal with lq = lk and lq < lk,
// decode, head dims that are no multiple of 32.
const char* const kSmallAttention = R"([[workloads]]
name = "prefill_gqa_causal"
axes = { b = 1, hq = 4, hkv = 2, lq = 37, lk = 37, d = 40 }
params = { causal = 1 }
[[workloads]]
name = "causal_lq_lt_lk"
axes = { b = 1, hq = 2, hkv = 1, lq = 9, lk = 41, d = 16 }
params = { causal = 1 }
[[workloads]]
name = "noncausal_d64_large_scores"
axes = { b = 2, hq = 2, hkv = 2, lq = 5, lk = 50, d = 64 }
params = { q_std = 20.0 }
[[workloads]]
name = "decode_causal"
axes = { b = 2, hq = 3, hkv = 1, lq = 1, lk = 70, d = 24 }
params = { causal = 1 }
[[workloads]]
name = "tiny_constant_inputs"
axes = { b = 1, hq = 1, hkv = 1, lq = 1, lk = 3, d = 2 }
)";

// Small workloads per task (TOML), replacing the task's own in the copy.
const std::map<std::string, std::string> kSmallWorkloads = {
    {"softmax", R"([[workloads]]
name = "r7_c1003_shift100"
axes = { rows = 7, cols = 1003 }
params = { shift = 100.0 }
[[workloads]]
name = "r3_c17_shift-200"
axes = { rows = 3, cols = 17 }
params = { shift = -200.0 }
[[workloads]]
name = "r33_c4096"
axes = { rows = 33, cols = 4096 }
[[workloads]]
name = "r1_c4_constant"
axes = { rows = 1, cols = 4 }
)"},
    {"rmsnorm", R"([[workloads]]
name = "r7_c1003"
axes = { rows = 7, cols = 1003 }
[[workloads]]
name = "r3_c17_eps1e-3"
axes = { rows = 3, cols = 17 }
params = { eps = 1e-3 }
[[workloads]]
name = "r33_c4096"
axes = { rows = 33, cols = 4096 }
[[workloads]]
name = "r1_c4_constant"
axes = { rows = 1, cols = 4 }
)"},
    {"matmul", R"([[workloads]]
name = "m37_n53_k29"
axes = { m = 37, n = 53, k = 29 }
[[workloads]]
name = "m1_n16_k7"
axes = { m = 1, n = 16, k = 7 }
[[workloads]]
name = "m41_n300_k600"
axes = { m = 41, n = 300, k = 600 }
[[workloads]]
name = "m2_n3_k2_constant"
axes = { m = 2, n = 3, k = 2 }
)"},
    {"attention", kSmallAttention},
    {"attention_bf16", kSmallAttention},
    {"selective_scan", R"([[workloads]]
name = "variable_b2_d40_l75"
axes = { b = 2, d = 40, l = 75, n = 16, g = 1 }
absent = ["last_state"]
[[workloads]]
name = "grouped_b1_d36_l50_g3_state"
axes = { b = 1, d = 36, l = 50, n = 16, g = 3 }
params = { delta_softplus = 0 }
absent = ["delta_bias"]
[[workloads]]
name = "fixed_b1_d20_l33_plain"
axes = { b = 1, d = 20, l = 33, n = 16, g = 1 }
params = { bc_layout = 0, delta_softplus = 0 }
shapes = { B = ["d", "n"], C = ["d", "n"] }
absent = ["D", "z", "delta_bias"]
[[workloads]]
name = "n20_b1_d9_l21_state"
axes = { b = 1, d = 9, l = 21, n = 20, g = 1 }
[[workloads]]
name = "b1_d2_l3_n3_constant"
axes = { b = 1, d = 2, l = 3, n = 3, g = 1 }
)"},
};

}  // namespace

// In the cache, in a folder of this process's own, removed at exit, since ctest runs the cases of one task in
// parallel processes.
Task small_task(const std::string& name) {
  struct RemovedAtExit {
    std::filesystem::path dir;
    ~RemovedAtExit() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  };
  static const RemovedAtExit process_dir{cache_subdir("templates-tests") / std::to_string(getpid())};
  const Task task = resolve_task(name);
  const auto dir = process_dir.dir / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy(task.dir, dir, std::filesystem::copy_options::recursive);
  // A reference in another task's folder (attention_bf16: ../attention/reference.cpp) keeps its relative place.
  const auto reference = std::filesystem::relative(task.reference_source, task.dir);
  if (!reference.empty() && *reference.begin() == "..") {
    std::filesystem::create_directories((dir / reference).parent_path());
    std::filesystem::copy_file(task.reference_source, dir / reference, std::filesystem::copy_options::overwrite_existing);
  }
  std::istringstream in(read_file(task.file));
  std::string text, line;
  bool dropping = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') dropping = line.rfind("[cost]", 0) == 0 || line.rfind("[[workloads]]", 0) == 0;
    if (!dropping) text += line + "\n";
  }
  text += "[cost]\nflops = \"1\"\nbytes = \"1\"\n" + kSmallWorkloads.at(name);
  write_file_atomic(dir / task.file.filename(), text);
  return load_task(dir / task.file.filename());
}


void PrintTo(const FamilyCase& c, std::ostream* os) {
  *os << c.task << "/" << c.family << "/" << c.combo;
  for (const auto& [name, value] : c.knobs) *os << " " << name << "=" << value;
}

std::string family_case_name(const FamilyCase& c) { return c.task + "_" + c.family + "_" + c.combo; }

std::vector<FamilyCase> family_cases(const std::string& backend, const std::vector<std::string>& tasks,
                                     bool defaults_small) {
  std::vector<FamilyCase> out;
  for (const std::string& name : tasks) {
    Task task;
    try {
      task = resolve_task(name);
    } catch (const std::exception& e) {
      out.push_back({name, "any", "load", {}, e.what()});
      continue;
    }
    for (const proposers::builtin::Family& f : proposers::builtin::families_for(task, backend)) {
      out.push_back({task.name, f.name, "defaults", f.defaults(), "", defaults_small});
      proposers::builtin::KnobValues first, second, last;
      for (const auto& k : f.knobs) {
        first[k.name] = k.values.front();
        second[k.name] = k.values[k.values.size() > 1 ? 1 : 0];
        last[k.name] = k.values.back();
      }
      out.push_back({task.name, f.name, "first", first, "", true});
      out.push_back({task.name, f.name, "second", second, "", true});
      out.push_back({task.name, f.name, "last", last, "", true});
    }
  }
  return out;
}

void expect_family_passes(const FamilyCase& c, const std::string& backend_name) {
  const Task task = c.small ? small_task(c.task) : resolve_task(c.task);
  auto backend = make_backend(backend_name);
  const std::string source = proposers::builtin::provider_for(backend_name)->render(task, c.family, c.knobs);

  const auto violations = backend->profile().rules.check(source);
  for (const auto& v : violations) ADD_FAILURE() << "rule " << v.rule << " line " << v.line << ": " << v.message;
  ASSERT_TRUE(violations.empty());

  EvalOptions options;
  options.time = false;
  options.compare_to_seed = false;
  Evaluator evaluator(task, *backend, options);
  const EvalReport report = evaluator.evaluate(source);
  EXPECT_EQ(report.status, Status::passed) << report.message << "\n" << report.log;
  for (const auto& w : report.workloads)
    EXPECT_EQ(w.status, Status::passed) << w.name << ": " << w.message;
  EXPECT_FALSE(report.workloads.empty());
}

}  // namespace ksearch
