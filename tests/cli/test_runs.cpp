// `ksearch runs`: lists runs with their status (running = lock held), compares runs of a task per
// workload, and leaves the run folders exactly as they were.
#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "run_fixture.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ksearch;
using namespace ksearch::test;

namespace {

class RunsCommand : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    make_fixture_run(dir_ / "runs/a", {});
    make_fixture_run(dir_ / "runs/b", {.proposer = "llm", .strategy = "annealing", .speedup = 4.0, .finished = false});
    make_fixture_run(dir_ / "elsewhere/c", {.task = "saxpy"});
  }

  json run_json(const std::string& args) {
    EXPECT_EQ(run_ksearch("runs " + args + " --json", dir_, dir_ / "out.json"), 0) << read_file(dir_ / "out.json.err");
    return json::parse(read_file(dir_ / "out.json"));
  }
};

std::map<std::string, json> by_folder_name(const json& list) {
  std::map<std::string, json> rows;
  for (const auto& row : list) rows[fs::path(row["run_dir"].get<std::string>()).filename()] = row;
  return rows;
}

// Every file below `dir` with a hash of its bytes.
std::map<std::string, size_t> snapshot(const fs::path& dir) {
  std::map<std::string, size_t> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files[entry.path().string()] = std::hash<std::string>{}(read_file(entry.path()));
  return files;
}

TEST_F(RunsCommand, ListsTheDefaultFolderAndTheFoldersGiven) {
  auto rows = by_folder_name(run_json(""));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows["a"]["task"], "tiny_softmax");
  EXPECT_EQ(rows["a"]["backend"], "cpu");
  EXPECT_EQ(rows["a"]["proposer"], "builtin");
  EXPECT_EQ(rows["a"]["strategy"], "world_model");
  EXPECT_EQ(rows["a"]["status"], "finished");
  EXPECT_EQ(rows["a"]["rounds"], 4);
  EXPECT_EQ(rows["a"]["candidates"], 2);
  EXPECT_DOUBLE_EQ(rows["a"]["best"]["speedup_vs_seed"].get<double>(), 2.0);
  EXPECT_EQ(rows["a"]["best"]["held_out_passed"], true);
  EXPECT_EQ(rows["b"]["status"], "interrupted");
  EXPECT_EQ(rows["b"]["proposer"], "llm");
  EXPECT_EQ(rows["b"]["strategy"], "annealing");
  EXPECT_GT(rows["b"]["updated_at"].get<double>(), 0);
  EXPECT_GE(rows["b"]["updated_at"].get<double>(), rows["b"]["started_at"].get<double>());

  rows = by_folder_name(run_json("elsewhere runs/a"));  // ./runs/a is listed once
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows["c"]["task"], "saxpy");
  EXPECT_EQ(by_folder_name(run_json("elsewhere/c")).size(), 3u);  // a run folder itself

  ASSERT_EQ(run_ksearch("runs", dir_, dir_ / "table.txt"), 0);
  const std::string table = read_file(dir_ / "table.txt");
  EXPECT_NE(table.find("llm/annealing"), std::string::npos) << table;
  EXPECT_NE(table.find("4.00x"), std::string::npos) << table;
  EXPECT_NE(table.find("finished"), std::string::npos) << table;
}

TEST_F(RunsCommand, StatusFollowsTheLockAndThePendingRequestAndNothingIsWritten) {
  {
    auto writer = store::RunStore::open(dir_ / "runs/b", store::RunStore::Access::write);
    const auto rows = by_folder_name(run_json(""));
    EXPECT_EQ(rows.at("b")["status"], "running");
    EXPECT_EQ(rows.at("b")["writer_pid"], ::getpid());
    EXPECT_TRUE(rows.at("a")["writer_pid"].is_null());
  }
  EXPECT_EQ(by_folder_name(run_json("")).at("b")["status"], "interrupted");  // the claim went with the writer
  {  // agent mode: a request waits for its answer
    auto writer = store::RunStore::open(dir_ / "runs/b", store::RunStore::Access::write);
    writer.issue_request("write_code", {{"round", 1}});
  }
  const auto before = snapshot(dir_ / "runs");
  EXPECT_EQ(by_folder_name(run_json("")).at("b")["status"], "waiting");
  ASSERT_EQ(run_ksearch("runs --compare", dir_, dir_ / "compare.txt"), 0);
  EXPECT_EQ(snapshot(dir_ / "runs"), before) << "listing and comparing runs changed a run folder";
}

TEST_F(RunsCommand, CompareSetsRunsOfATaskSideBySidePerWorkload) {
  const json tables = run_json("elsewhere --compare");
  ASSERT_EQ(tables.size(), 2u);  // saxpy, tiny_softmax
  const json& softmax = tables[1];
  EXPECT_EQ(softmax["task"], "tiny_softmax");
  EXPECT_EQ(softmax["workloads"], json({"held_r5_c777", "r16_c1000", "r64_c256"}));
  ASSERT_EQ(softmax["runs"].size(), 2u);
  const json& a = softmax["runs"][0];
  const json& b = softmax["runs"][1];
  EXPECT_DOUBLE_EQ(a["workloads"]["r64_c256"]["speedup_vs_seed"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(a["workloads"]["r64_c256"]["median_ms"].get<double>(), 0.02);
  EXPECT_EQ(a["workloads"]["held_r5_c777"]["held_out"], true);
  EXPECT_DOUBLE_EQ(a["workloads"]["held_r5_c777"]["speedup_vs_seed"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(b["workloads"]["r16_c1000"]["speedup_vs_seed"].get<double>(), 4.0);
  EXPECT_FALSE(b["workloads"].contains("held_r5_c777"));  // b stopped before its held-out check

  ASSERT_EQ(run_ksearch("runs --compare", dir_, dir_ / "compare.txt"), 0);
  const std::string text = read_file(dir_ / "compare.txt");
  EXPECT_NE(text.find("task tiny_softmax"), std::string::npos) << text;
  EXPECT_NE(text.find("held_r5_c777 (held-out)"), std::string::npos) << text;
  EXPECT_NE(text.find("0.0200 ms 2.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("0.0100 ms 4.00x"), std::string::npos) << text;
}

TEST_F(RunsCommand, BadFoldersAreClearErrors) {
  EXPECT_EQ(run_ksearch("runs missing", dir_, dir_ / "out.txt"), 2);
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("missing is not a folder"), std::string::npos);
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(run_ksearch("runs --compare .", dir_ / "empty", dir_ / "out.txt"), 2);
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("no runs to compare"), std::string::npos);
  // A run.db that is not a run is skipped with a warning naming it; the other runs are listed.
  fs::create_directories(dir_ / "runs/broken");
  { std::ofstream(dir_ / "runs/broken/run.db") << "not a database, just text that is long enough to have a header......"; }
  EXPECT_EQ(by_folder_name(run_json("")).size(), 2u);
  EXPECT_NE(read_file(dir_ / "out.json.err").find("runs/broken"), std::string::npos);
}

}  // namespace
