// The ksearch executable as a user runs it: exit codes, messages, JSON, a task added from files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "core/process.hpp"

using namespace ksearch;
namespace fs = std::filesystem;

namespace {
CommandResult ksearch_cli(std::vector<std::string> args) {
  args.insert(args.begin(), KSEARCH_EXECUTABLE);
  CommandOptions o;
  o.timeout = std::chrono::minutes(5);
  o.max_output_bytes = 1 << 20;
  return run_command(args, o);
}
std::string data(const std::string& path) { return std::string(KSEARCH_TEST_DATA) + "/" + path; }
nlohmann::json last_json(const std::string& output) {
  return nlohmann::json::parse(output.substr(output.find('{')));
}
}  // namespace

TEST(Cli, TaskAddedFromFilesWorksEndToEnd) {
  auto r = ksearch_cli({"eval", "--task", data("tasks/saxpy"), "--backend", "cpu", data("tasks/saxpy/seeds/cpu.cpp"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = last_json(r.output);
  EXPECT_EQ(j["status"], "passed");
  ASSERT_EQ(j["workloads"].size(), 3u);
  for (const auto& w : j["workloads"]) {
    for (const char* key : {"name", "status", "max_abs_err", "max_rel_err", "median_ms", "spread"})
      EXPECT_TRUE(w.contains(key)) << key;
    EXPECT_GT(w["median_ms"].get<double>(), 0);
  }
  EXPECT_TRUE(j.contains("speedup_vs_seed"));
  EXPECT_GT(j["roofline_fraction"].get<double>(), 0);
}

// float16 in, bfloat16 out, a bool mask and a single-element int32 count, float/bool/f64 params: the seed passes every
// workload, held-out ones included, and a kernel that never writes a true mask element fails (its bytes keep the poison).
TEST(Cli, TaskWithHalfBoolAndSingleElementOutputsEvaluatesEndToEnd) {
  const std::string task = data("tasks/mixed_dtypes");
  auto r = ksearch_cli({"eval", "--task", task, "--backend", "cpu", "--workloads", "all", task + "/seeds/cpu.cpp", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = last_json(r.output);
  ASSERT_EQ(j["workloads"].size(), 4u);
  for (const auto& w : j["workloads"]) EXPECT_EQ(w["status"], "passed") << w.dump();

  std::ifstream in(task + "/seeds/cpu.cpp");
  std::string source(std::istreambuf_iterator<char>(in), {});
  const std::string write = "mask[i] = (v > thr) != invert;";
  ASSERT_NE(source.find(write), std::string::npos);
  source.replace(source.find(write), write.size(), "if ((v > thr) == invert) mask[i] = false;");
  const fs::path lazy = fs::temp_directory_path() / "ksearch-mixed-dtypes-lazy.cpp";
  std::ofstream(lazy) << source;
  auto wrong = ksearch_cli({"eval", "--task", task, "--backend", "cpu", lazy.string(), "--json"});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_EQ(last_json(wrong.output)["status"], "wrong_answer");
  EXPECT_NE(wrong.output.find("output 'mask' element"), std::string::npos) << wrong.output;
}

TEST(Cli, TasksListingShowsWorkloadsHeldOutAndSignatures) {
  auto r = ksearch_cli({"tasks", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  bool saw_held_out = false;
  for (const auto& t : j) {
    if (!t["backends"].contains("cpu")) continue;
    EXPECT_NE(t["backends"]["cpu"]["signature"].get<std::string>().find("extern \"C\""), std::string::npos);
    for (const auto& w : t["workloads"]) saw_held_out = saw_held_out || w["held_out"].get<bool>();
  }
  EXPECT_TRUE(saw_held_out);
  auto text = ksearch_cli({"tasks"});
  EXPECT_NE(text.output.find("(held out)"), std::string::npos);

  // Named tasks only, built-in or from a folder.
  auto named = ksearch_cli({"tasks", "rmsnorm", data("tasks/saxpy"), "--json"});
  ASSERT_EQ(named.exit_code, 0) << named.output;
  const auto n = nlohmann::json::parse(named.output);
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0]["name"], "rmsnorm");
  EXPECT_EQ(n[1]["name"], "saxpy");
  auto unknown = ksearch_cli({"tasks", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown task 'nope'"), std::string::npos) << unknown.output;
}

TEST(Cli, BadInputGetsAClearMessageAndExitCode2) {
  auto unknown_task = ksearch_cli({"eval", "--task", "nope", data("tasks/saxpy/seeds/cpu.cpp")});
  EXPECT_EQ(unknown_task.exit_code, 2);
  EXPECT_NE(unknown_task.output.find("unknown task 'nope'"), std::string::npos) << unknown_task.output;
  auto unknown_backend = ksearch_cli({"eval", "--task", "softmax", "--backend", "fpga", data("tasks/saxpy/seeds/cpu.cpp")});
  EXPECT_EQ(unknown_backend.exit_code, 2);
  EXPECT_NE(unknown_backend.output.find("unknown backend 'fpga'"), std::string::npos) << unknown_backend.output;
  auto missing = ksearch_cli({"eval", "--task", "softmax", "/no/such/file.cpp"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("not found"), std::string::npos) << missing.output;

  const fs::path dir = fs::temp_directory_path() / "ksearch-cli-malformed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "task.toml") << "[task]\nname = \"broken\"\n[axes]\nn = \"x\"\n[[inputs]]\nname = 3\n";
  auto malformed = ksearch_cli({"eval", "--task", (dir / "task.toml").string(), data("tasks/saxpy/seeds/cpu.cpp")});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.output.find("task.toml:"), std::string::npos) << malformed.output;

  // Numbers are checked with messages a user reads (not the whole range of a double).
  auto not_a_number = ksearch_cli({"run", "--task", "softmax", "--rounds", "abc"});
  EXPECT_EQ(not_a_number.exit_code, 2);
  EXPECT_NE(not_a_number.output.find("'abc' is not a number"), std::string::npos) << not_a_number.output;
  EXPECT_LT(not_a_number.output.size(), 200u) << not_a_number.output;
  auto negative = ksearch_cli({"run", "--task", "softmax", "--minutes", "-1"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.output.find("must be 0 or more, got -1"), std::string::npos) << negative.output;
}

TEST(Cli, VersionIsPrinted) {
  auto version = ksearch_cli({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.output.rfind("ksearch " KSEARCH_VERSION, 0), 0u) << version.output;
}

TEST(Cli, FailingCandidateExitsWith1AndSaysWhy) {
  const fs::path file = fs::temp_directory_path() / "ksearch-cli-crash.cpp";
  std::ofstream(file) << "#include <cstdint>\nextern \"C\" void saxpy(const float*, const float*, float* y, int64_t, float) {"
                         " volatile float* p = nullptr; y[0] = *p; }\n";
  auto r = ksearch_cli({"eval", "--task", data("tasks/saxpy"), file.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("runtime_error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("segmentation fault"), std::string::npos) << r.output;
}
