// Every metal template family of every built-in task with a metal entry: at its defaults and with each knob
// at its first, second and last allowed value, on a copy of the task with small odd-sized workloads (metalsim
// emulates every thread with its checks on, so the tasks' own workloads would take minutes). Each render must
// pass the metal rules, compile in metalsim and match the reference with no metalsim finding (bounds, races,
// uninitialized threadgroup reads, barrier divergence).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "family_cases.hpp"
#include "proposers/builtin/catalog.hpp"
#include "store/run_store.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

namespace ksearch {
namespace {

const std::vector<std::string> kTasks = {"softmax", "rmsnorm", "selective_scan", "matmul", "attention", "attention_bf16"};

class MetalTemplate : public testing::TestWithParam<FamilyCase> {};

TEST_P(MetalTemplate, PassesRulesBuildsInMetalsimAndMatchesReference) {
  const FamilyCase& c = GetParam();
  if (!c.load_error.empty()) GTEST_SKIP() << c.load_error;
  std::string why;
  if (!make_backend("metal")->available(&why)) GTEST_SKIP() << why;
  expect_family_passes(c, "metal");
}

INSTANTIATE_TEST_SUITE_P(Families, MetalTemplate, testing::ValuesIn(family_cases("metal", kTasks, true)),
                         [](const auto& info) { return family_case_name(info.param); });

TEST(MetalTemplates, EveryTaskWithAMetalEntryHasFamilies) {
  for (const std::string& name : kTasks) {
    const Task task = resolve_task(name);
    ASSERT_TRUE(task.entries.count("metal")) << name;
    const auto families = proposers::builtin::families_for(task, "metal");
    EXPECT_GE(families.size(), 2u) << name;
    for (const auto& f : families) {
      EXPECT_FALSE(f.title.empty()) << f.name;
      EXPECT_GE(f.description.size(), 80u) << f.name;
    }
  }
}

// Knobs of the launch geometry are template directives: a render sets them, and the body sees the value.
TEST(MetalTemplates, RendersSetTemplateDirectives) {
  const Task task = resolve_task("softmax");
  const std::string source = proposers::builtin::provider_for("metal")->render(task, "simd_online", {{"R", 8}, {"VEC", 1}});
  EXPECT_NE(source.find("// template: R = 8\n"), std::string::npos) << source;
  EXPECT_NE(source.find("// template: VEC = 1\n"), std::string::npos) << source;
  EXPECT_NE(source.find("inline void online_add("), std::string::npos) << source;  // online.h, inlined
  EXPECT_EQ(source.find("#include \""), std::string::npos) << source;
}

// `ksearch run --task softmax --backend metal` with the built-in proposer: the world model's actions are the
// metal families, and a few rounds find passing candidates of several of them (correctness only: no timing
// without an Apple GPU). On the small copy of the task, so that metalsim takes seconds.
TEST(MetalTemplates, BuiltinSearchFindsPassingFamilies) {
  std::string why;
  if (!make_backend("metal")->available(&why)) GTEST_SKIP() << why;
  const Task task = small_task("softmax");
  const auto dir = cache_subdir("templates-tests") / ("metal-search-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  CommandOptions options;
  options.timeout = std::chrono::minutes(10);
  const CommandResult run = run_command({KSEARCH_EXECUTABLE, "run", "--task", task.file.string(), "--backend", "metal", "--rounds",
                                         "3", "--parallel", "2", "--finalists", "0", "--json", "--out", dir.string()},
                                        options);
  ASSERT_TRUE(run.ok()) << run.output;
  // The JSON summary is the last thing printed (progress lines go to stderr before it).
  const auto summary = nlohmann::json::parse(run.output.substr(run.output.rfind("\n{") + 1));
  EXPECT_EQ(summary.at("outcome"), "finished") << summary.dump(2);
  EXPECT_EQ(summary.at("proposer"), "builtin");
  EXPECT_TRUE(summary.at("best").is_object()) << summary.dump(2);  // a passing candidate

  std::set<std::string> passing_families;
  for (const auto& c : store::RunStore::open(dir).candidates())
    if (c.status == "passed" && c.payload.contains("family")) passing_families.insert(c.payload["family"].get<std::string>());
  std::set<std::string> metal_families;
  for (const auto& f : proposers::builtin::families_for(task, "metal")) metal_families.insert(f.name);
  EXPECT_GE(passing_families.size(), 2u);
  for (const auto& f : passing_families) EXPECT_TRUE(metal_families.count(f)) << f;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ksearch
