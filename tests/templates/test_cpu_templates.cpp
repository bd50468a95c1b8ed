// Every cpu template family of every built-in task: at its defaults on the task's own cpu workloads
// (held-out ones included), and at three other knob combinations (each knob at its first, second and
// last allowed value) on a copy of the task with small odd-sized workloads (tails, sizes that no block
// size divides, panels deeper than KC, GQA, causal with lq < lk, fixed/grouped B/C, n != 16). Each render
// must pass the cpu rules, compile and match the reference.
#include <gtest/gtest.h>

#include <algorithm>

#include "family_cases.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/registry.hpp"

using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

namespace ksearch {
namespace {

const std::vector<std::string> kTasks = {"softmax", "rmsnorm", "matmul", "attention", "selective_scan"};

class CpuTemplate : public testing::TestWithParam<FamilyCase> {};

TEST_P(CpuTemplate, PassesRulesBuildsAndMatchesReference) {
  const FamilyCase& c = GetParam();
  if (!c.load_error.empty()) GTEST_SKIP() << c.load_error;
  expect_family_passes(c, "cpu");
}

INSTANTIATE_TEST_SUITE_P(Families, CpuTemplate, testing::ValuesIn(family_cases("cpu", kTasks, false)),
                         [](const auto& info) { return family_case_name(info.param); });

TEST(CpuTemplates, EveryBuiltinTaskHasFamilies) {
  for (const std::string& name : kTasks) {
    Task task;
    try {
      task = resolve_task(name);
    } catch (const std::exception&) {
      continue;  // reported by the Families cases
    }
    const auto families = proposers::builtin::families_for(task, "cpu");
    EXPECT_GE(families.size(), 2u) << task.name;
    for (const auto& f : families) {
      EXPECT_FALSE(f.title.empty()) << f.name;
      EXPECT_GE(f.description.size(), 80u) << f.name;
      EXPECT_TRUE(f.difficulty >= 1 && f.difficulty <= 5) << f.name;
      for (const auto& k : f.knobs)
        EXPECT_NE(std::find(k.values.begin(), k.values.end(), k.default_value), k.values.end()) << f.name << "." << k.name;
    }
  }
}

TEST(CpuTemplates, RejectsUnknownFamilyKnobAndValue) {
  const Task task = resolve_task("softmax");
  auto provider = proposers::builtin::provider_for("cpu");
  ASSERT_TRUE(provider);
  EXPECT_ANY_THROW(provider->render(task, "no_such_family", {}));
  EXPECT_ANY_THROW(provider->render(task, "online_fused", {{"no_such_knob", 1}}));
  EXPECT_ANY_THROW(provider->render(task, "online_fused", {{"unroll", 3}}));
}

}  // namespace
}  // namespace ksearch
