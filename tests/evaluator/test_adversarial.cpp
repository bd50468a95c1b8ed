// Runs every candidate of tests/adversarial/cpu with the rules on and off and checks the status
// each header line promises (see tests/adversarial/cpu/README.md).
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "tasks/registry.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::evaluator::EvalOptions;
using ksearch::evaluator::EvalReport;
using ksearch::evaluator::Evaluator;
using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name;
  std::string source;
  std::string expect, expect_without_rules;
  std::string task = "tiny_softmax";  // `// task: NAME`: a task of tests/data/tasks
  bool expect_no_speedup = false;     // `// expect-no-speedup`: a neutralized cheat is timed doing real work
  std::string expect_message;         // `// expect-message: TEXT`: in the report's message, both ways
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(KSEARCH_ADVERSARIAL_DIR)) {
    if (entry.path().extension() != ".cpp") continue;
    Case c;
    c.name = entry.path().stem().string();
    c.source = read_file(entry.path());
    std::smatch m;
    if (std::regex_search(c.source, m, std::regex(R"(// expect: (\w+))"))) c.expect = m[1];
    if (std::regex_search(c.source, m, std::regex(R"(// expect-without-rules: (\w+))"))) c.expect_without_rules = m[1];
    if (std::regex_search(c.source, m, std::regex(R"(// task: (\w+))"))) c.task = m[1];
    c.expect_no_speedup = c.source.find("// expect-no-speedup") != std::string::npos;
    if (std::regex_search(c.source, m, std::regex(R"(// expect-message: (.+))"))) c.expect_message = m[1];
    cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

class Adversarial : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    std::ofstream("/tmp/ksearch-adversarial-secret") << "the inputs' seeds";
    fs::remove("/tmp/ksearch-adversarial-written");
    sched_getaffinity(0, sizeof own_cpus, &own_cpus);
    own_priority = getpriority(PRIO_PROCESS, 0);
  }
  // This process is the runners' parent, which several candidates attack.
  static void TearDownTestSuite() {
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof cpus, &cpus);
    EXPECT_TRUE(CPU_EQUAL(&cpus, &own_cpus)) << "a candidate changed its parent's CPU affinity";
    EXPECT_EQ(getpriority(PRIO_PROCESS, 0), own_priority) << "a candidate changed its parent's priority";
  }
  static inline cpu_set_t own_cpus;
  static inline int own_priority = 0;
  static const Task& task(const std::string& name) {
    static std::map<std::string, Task> tasks;
    if (!tasks.count(name)) tasks.emplace(name, resolve_task(std::string(KSEARCH_TEST_DATA) + "/tasks/" + name));
    return tasks.at(name);
  }
  static Backend& backend() {
    static auto cpu = make_backend("cpu");
    return *cpu;
  }
  static EvalOptions options(bool enforce_rules) {
    EvalOptions o;
    o.enforce_rules = enforce_rules;
    o.target_seconds = 0.05;
    o.max_reps = 10;
    o.call_timeout = std::chrono::seconds(3);
    return o;
  }
  EvalReport run(bool enforce_rules) {
    return Evaluator(task(GetParam().task), backend(), options(enforce_rules)).evaluate(GetParam().source);
  }
  // A cheat that is neutralized computes for real: it may not look much faster than the honest,
  // naive seed timed in the same way just before it (a replay would be 10x faster; tiny calls are noisy).
  void expect_no_speedup(const EvalReport& r) {
    EvalOptions o = options(true);
    o.compare_to_seed = false;
    const Task& t = task(GetParam().task);
    const EvalReport seed = Evaluator(t, backend(), o).evaluate(read_file(t.entry("cpu").seed));
    ASSERT_EQ(seed.status, Status::passed) << seed.message;
    for (size_t i = 0; i < r.workloads.size(); ++i)
      EXPECT_GT(r.workloads[i].timing.median, seed.workloads[i].timing.median / 3)
          << GetParam().name << " on " << r.workloads[i].name << ": a speedup over the seed the cheat should not have";
  }
};

TEST_P(Adversarial, StatusWithRules) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.expect.empty()) << c.name << " lacks an '// expect:' line";
  const EvalReport r = run(true);
  EXPECT_EQ(status_name(r.status), c.expect) << c.name << ": " << r.message << "\n" << r.log;
  EXPECT_FALSE(r.message.empty() && r.status != Status::passed) << "a failure must say why";
  EXPECT_NE(r.message.find(c.expect_message), std::string::npos) << c.name << ": " << r.message;
  if (c.expect_no_speedup && r.status == Status::passed) expect_no_speedup(r);
}

TEST_P(Adversarial, StatusWithRuntimeDefensesAlone) {
  const Case& c = GetParam();
  ASSERT_FALSE(c.expect_without_rules.empty()) << c.name << " lacks an '// expect-without-rules:' line";
  const EvalReport r = run(false);
  EXPECT_EQ(status_name(r.status), c.expect_without_rules) << c.name << ": " << r.message << "\n" << r.log;
  EXPECT_NE(r.message.find(c.expect_message), std::string::npos) << c.name << ": " << r.message;
  if (r.status == Status::passed)
    for (const auto& w : r.workloads) EXPECT_GT(w.timing.median, 0) << c.name << ": the timer was fooled";
  if (c.expect_no_speedup && r.status == Status::passed) expect_no_speedup(r);
  EXPECT_FALSE(fs::exists("/tmp/ksearch-adversarial-written")) << "a candidate wrote a file";
}

INSTANTIATE_TEST_SUITE_P(Cpu, Adversarial, ::testing::ValuesIn(load_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
