// Candidates that hard-code what the visible workloads show (tests/adversarial/held_out, see its README)
// pass the visible workloads of their real task and fail its held-out ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::evaluator::WorkloadSet;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name, source, task, expect_visible, expect_held_out;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string header(const std::string& source, const std::string& key) {
  std::smatch m;
  return std::regex_search(source, m, std::regex("// " + key + ": ([\\w|]+)")) ? std::string(m[1]) : "";
}

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(KSEARCH_HELD_OUT_DIR)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string source = read_file(entry.path());
    cases.push_back({entry.path().stem().string(), source, header(source, "task"), header(source, "expect-visible"),
                     header(source, "expect-held-out")});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

EvalReport evaluate(const Case& c, WorkloadSet workloads) {
  static auto backend = make_backend("cpu");
  const Task task = resolve_task(c.task);
  EvalOptions o;
  o.workloads = workloads;
  o.time = false;
  o.compare_to_seed = false;
  return Evaluator(task, *backend, o).evaluate(c.source);
}

class HardCodedVisibleShape : public ::testing::TestWithParam<Case> {};

TEST_P(HardCodedVisibleShape, PassesTheVisibleWorkloadsAndFailsTheHeldOutOnes) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.task.empty() || c.expect_visible.empty() || c.expect_held_out.empty())
      << c.name << " lacks a '// task:', '// expect-visible:' or '// expect-held-out:' line";
  const EvalReport visible = evaluate(c, WorkloadSet::visible);
  EXPECT_EQ(status_name(visible.status), c.expect_visible) << c.name << ": " << visible.message << "\n" << visible.log;
  const EvalReport held_out = evaluate(c, WorkloadSet::held_out);
  const std::string status(status_name(held_out.status));
  EXPECT_TRUE(std::regex_match(status, std::regex(c.expect_held_out)))
      << c.name << ": " << status << " (expected " << c.expect_held_out << "): " << held_out.message;
  for (const auto& w : held_out.workloads) EXPECT_TRUE(w.held_out) << w.name;
}

INSTANTIATE_TEST_SUITE_P(Tasks, HardCodedVisibleShape, ::testing::ValuesIn(load_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
