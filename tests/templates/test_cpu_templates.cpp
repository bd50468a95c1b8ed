// Every cpu template family of every built-in task, rendered at its defaults and at three other knob
// combinations (each knob at its first, second and last allowed value): the source must pass the cpu
// rules, compile, and match the reference on all of the task's cpu workloads, held-out ones included.
#include <gtest/gtest.h>

#include <memory>

#include "backends/backend.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/registry.hpp"

namespace ksearch {
namespace {

struct Case {
  std::string task, family, combo;
  builtin::KnobValues knobs;
  std::string load_error;  // the task file did not load (skipped with this message)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.task << "/" << c.family << "/" << c.combo;
  for (const auto& [name, value] : c.knobs) *os << " " << name << "=" << value;
}

const std::vector<std::string> kTasks = {"softmax", "rmsnorm", "matmul", "attention", "selective_scan"};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const std::string& name : kTasks) {
    Task task;
    try {
      task = resolve_task(name);
    } catch (const std::exception& e) {
      out.push_back({name, "any", "load", {}, e.what()});
      continue;
    }
    for (const builtin::Family& f : builtin::families_for(task, "cpu")) {
      out.push_back({task.name, f.name, "defaults", f.defaults()});
      builtin::KnobValues first, second, last;
      for (const auto& k : f.knobs) {
        first[k.name] = k.values.front();
        second[k.name] = k.values[k.values.size() > 1 ? 1 : 0];
        last[k.name] = k.values.back();
      }
      out.push_back({task.name, f.name, "first", first});
      out.push_back({task.name, f.name, "second", second});
      out.push_back({task.name, f.name, "last", last});
    }
  }
  return out;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.task + "_" + info.param.family + "_" + info.param.combo;
}

class CpuTemplate : public testing::TestWithParam<Case> {};

TEST_P(CpuTemplate, PassesRulesBuildsAndMatchesReference) {
  const Case& c = GetParam();
  if (!c.load_error.empty()) GTEST_SKIP() << c.load_error;
  const Task task = resolve_task(c.task);
  auto backend = make_backend("cpu");
  const std::string source = builtin::provider_for("cpu")->render(task, c.family, c.knobs);

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

INSTANTIATE_TEST_SUITE_P(Families, CpuTemplate, testing::ValuesIn(cases()), case_name);

TEST(CpuTemplates, EveryBuiltinTaskHasFamilies) {
  for (const std::string& name : kTasks) {
    Task task;
    try {
      task = resolve_task(name);
    } catch (const std::exception&) {
      continue;  // reported by the Families cases
    }
    const auto families = builtin::families_for(task, "cpu");
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
  auto provider = builtin::provider_for("cpu");
  ASSERT_TRUE(provider);
  EXPECT_ANY_THROW(provider->render(task, "no_such_family", {}));
  EXPECT_ANY_THROW(provider->render(task, "online_fused", {{"no_such_knob", 1}}));
  EXPECT_ANY_THROW(provider->render(task, "online_fused", {{"unroll", 3}}));
}

}  // namespace
}  // namespace ksearch
