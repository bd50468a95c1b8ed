// The CUDA -> Metal translator (docs/TRANSLATE.md). Every kernel of the corpus (corpus/<task>/*.cu,
// one file per idiom) is translated and must pass the metal backend (metalsim, every check on) on
// its task's visible and held-out workloads; every untranslatable construct (untranslatable/*.cu)
// is reported at its line with its reason; `ksearch port` reports both in JSON with its exit code.
// Without libclang every test is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/backend.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/registry.hpp"
#include "translate/translate.hpp"

using namespace ksearch;

namespace {

const std::string kDir = KSEARCH_TRANSLATE_TEST_DIR;

std::vector<std::string> files_under(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kDir + "/" + folder))
    if (e.path().extension() == ".cu") out.push_back(std::filesystem::relative(e.path(), kDir + "/" + folder).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string test_name(const std::string& relative) {
  std::string s = relative.substr(0, relative.size() - 3);
  std::replace_if(s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return s;
}

std::string problems_text(const translate::Translation& t) {
  std::string s;
  for (const auto& p : t.problems) s += p.where() + ": " + p.construct + ": " + p.reason + "\n";
  for (const auto& k : t.kernels)
    for (const auto& p : k.problems) s += k.name + ": " + p.where() + ": " + p.construct + ": " + p.reason + "\n";
  return s;
}

Task corpus_task(const std::string& name) {
  Task task = resolve_task(kDir + "/tasks/" + name);
  translate::add_metal_entry_from_cuda(task);
  return task;
}

EvalReport evaluate_port(const translate::Translation& t, const Task& task) {
  auto backend = make_backend("metal");
  EvalOptions options;
  options.time = false;
  options.compare_to_seed = false;
  options.call_timeout = std::chrono::seconds(120);
  return Evaluator(task, *backend, options).evaluate(t.candidate);
}

void expect_ports_and_passes(const std::string& file, const Task& task) {
  const translate::Translation t = translate::translate_file(file, task);
  ASSERT_TRUE(t.complete()) << problems_text(t) << t.candidate;
  const auto launched = std::count_if(t.kernels.begin(), t.kernels.end(), [](const auto& k) { return k.launched; });
  EXPECT_EQ(launched, 1);
  const EvalReport r = evaluate_port(t, task);
  EXPECT_EQ(r.status, Status::passed) << r.message << "\n" << r.log << "\n" << t.candidate;
  EXPECT_EQ(r.workloads.size(), task.workloads.size());  // held-out ones included
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, PortsAndPassesMetalsim) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  const std::string relative = GetParam();
  expect_ports_and_passes(kDir + "/corpus/" + relative, corpus_task(std::filesystem::path(relative).parent_path().string()));
}

INSTANTIATE_TEST_SUITE_P(Translate, Corpus, ::testing::ValuesIn(files_under("corpus")),
                         [](const auto& info) { return test_name(info.param); });

// The built-in tasks' cuda seeds, on the small corpus tasks with the same entry (docs/TRANSLATE.md
// has the table for every built-in task at full size).
class BuiltinSeed : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinSeed, PortsAndPassesOnTheSmallTask) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  expect_ports_and_passes((builtin_tasks_dir() / GetParam() / "seeds/cuda.cu").string(), corpus_task(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Translate, BuiltinSeed, ::testing::Values("softmax", "rmsnorm", "matmul"));

// Every cuda template family of the built-in expert, rendered at its defaults for the small tasks:
// it ports and passes, or it ports and exceeds a Metal resource limit that metalsim names (32 KiB of
// threadgroup memory: the repair step's work), or the translator names a known untranslatable
// construct (never a parse error or an unmapped CUDA function). Each outcome is printed
// (docs/TRANSLATE.md's table).
TEST(BuiltinTemplates, EachCudaFamilyPortsOrNamesWhatIsUntranslatable) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  for (const std::string name : {"softmax", "rmsnorm", "matmul"}) {
    const Task task = corpus_task(name);
    auto provider = builtin::provider_for("cuda");
    ASSERT_NE(provider, nullptr);
    for (const auto& family : provider->families(task)) {
      SCOPED_TRACE(name + "/" + family.name);
      const auto file = std::filesystem::temp_directory_path() /
                        ("ksearch-family-" + std::to_string(getpid()) + "-" + name + "-" + family.name + ".cu");
      write_file_atomic(file, provider->render(task, family.name, family.defaults()));
      const translate::Translation t = translate::translate_file(file, task);
      if (t.complete()) {
        const EvalReport r = evaluate_port(t, task);
        std::cout << name << "/" << family.name << ": ported, " << status_name(r.status) << " " << r.message << "\n";
        if (r.status != Status::passed)
          EXPECT_NE(r.message.find("exceeds Metal's"), std::string::npos) << r.message << "\n" << t.candidate;
      } else {
        std::cout << name << "/" << family.name << ": not translated:\n" << problems_text(t);
        std::vector<translate::Problem> all = t.problems;
        for (const auto& k : t.kernels) all.insert(all.end(), k.problems.begin(), k.problems.end());
        for (const auto& p : all) {
          EXPECT_NE(p.construct, "parse error") << p.reason;
          EXPECT_EQ(p.reason.find("no Metal mapping"), std::string::npos) << p.reason;
        }
      }
      std::filesystem::remove(file);
    }
  }
}

// Each untranslatable file names the construct and the line the translator must report.
struct Expected {
  std::string file, construct;
  int line;
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.file << ": " << e.construct << " at line " << e.line; }

class Untranslatable : public ::testing::TestWithParam<Expected> {};

TEST_P(Untranslatable, IsReportedWithItsLineAndReason) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  const Expected e = GetParam();
  const translate::Translation t = translate::translate_file(kDir + "/untranslatable/" + e.file, corpus_task("rowsum"));
  EXPECT_FALSE(t.complete());
  std::vector<translate::Problem> all = t.problems;
  for (const auto& k : t.kernels) all.insert(all.end(), k.problems.begin(), k.problems.end());
  const bool found = std::any_of(all.begin(), all.end(), [&](const translate::Problem& p) {
    return p.construct.find(e.construct) != std::string::npos && p.line == e.line && !p.reason.empty() &&
           p.file.find(e.file) != std::string::npos;
  });
  EXPECT_TRUE(found) << "expected '" << e.construct << "' at line " << e.line << ", got:\n" << problems_text(t);
}

INSTANTIATE_TEST_SUITE_P(Translate, Untranslatable,
                         ::testing::Values(Expected{"mma_sync.cu", "mma.sync", 7}, Expected{"ldmatrix.cu", "ldmatrix", 7},
                                           Expected{"cp_async.cu", "cp.async", 6},
                                           Expected{"pipeline.cu", "__pipeline_memcpy_async", 6},
                                           Expected{"texture.cu", "tex1Dfetch", 5},
                                           Expected{"syncthreads_count.cu", "__syncthreads_count", 5},
                                           Expected{"atomic64.cu", "atomicAdd", 6},
                                           Expected{"grid_sync.cu", "grid_group::sync", 7},
                                           Expected{"dynamic_parallelism.cu", "kernel launch in device code", 7},
                                           Expected{"multi_kernel.cu", "second kernel launch", 13}),
                         [](const auto& info) { return test_name(info.param.file); });

CommandResult port(const std::vector<std::string>& args) {
  CommandOptions o;
  o.timeout = std::chrono::minutes(10);
  o.max_output_bytes = 1 << 20;
  std::vector<std::string> argv = {KSEARCH_EXECUTABLE, "port"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, o);
}

// `ksearch port FILE --task rowsum --json` into a temporary file; the JSON and the candidate written.
struct PortResult {
  int exit_code;
  nlohmann::json json;
  std::string metal;
};

PortResult port_json(const std::string& file) {
  const auto out = std::filesystem::temp_directory_path() / ("ksearch-port-" + std::to_string(getpid()) + ".metal");
  const auto r = port({kDir + "/" + file, "--task", kDir + "/tasks/rowsum", "--out", out.string(), "--json"});
  PortResult p{r.exit_code, nlohmann::json::parse(r.output.substr(r.output.find('{'))), read_file(out)};
  std::filesystem::remove(out);
  return p;
}

TEST(TranslateCli, PortWritesTheCandidateAndReportsPassedInJson) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  const PortResult r = port_json("corpus/rowsum/warp_shfl_down.cu");
  ASSERT_EQ(r.exit_code, 0) << r.json.dump(2);
  EXPECT_EQ(r.json["status"], "passed");
  EXPECT_EQ(r.json["translation"]["complete"], true);
  EXPECT_EQ(r.json["translation"]["kernels"][0]["name"], "rowsum_warp");
  EXPECT_EQ(r.json["translation"]["kernels"][0]["translated"]["__shfl_down_sync"], 1);
  EXPECT_NE(r.metal.find("simd_shuffle_down"), std::string::npos) << r.metal;
  EXPECT_NE(r.metal.find("// grid: "), std::string::npos) << r.metal;
}

TEST(TranslateCli, UntranslatableKernelFailsWithTheConstructAndLine) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  const PortResult r = port_json("untranslatable/mma_sync.cu");
  EXPECT_EQ(r.exit_code, 1) << r.json.dump(2);
  EXPECT_EQ(r.json["status"], "untranslated");
  EXPECT_EQ(r.json["translation"]["complete"], false);
  EXPECT_FALSE(r.json.contains("evaluation"));  // a partial translation is written, not evaluated
  const auto& problem = r.json["translation"]["kernels"][0]["untranslated"][0];
  EXPECT_EQ(problem["construct"], "mma.sync");
  EXPECT_NE(problem["where"].get<std::string>().find("mma_sync.cu:7:"), std::string::npos) << problem.dump();
}

TEST(TranslateCli, TaskWithoutACudaEntryIsBadInput) {
  std::string why;
  if (!translate::available(&why)) GTEST_SKIP() << why;
  const auto r = port({kDir + "/corpus/axpy/basic.cu", "--task", kDir + "/../metal/tasks/tiny_softmax"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("has no [entry.cuda]"), std::string::npos) << r.output;
}

}  // namespace
