// `ksearch run --config FILE` and `--dump-config`: flags from a TOML file, the command line winning,
// unknown keys refused by name, and the dump read back to the same flags.
#include <gtest/gtest.h>

#include "run_fixture.hpp"

namespace fs = std::filesystem;
using namespace ksearch::test;

namespace {

class SearchConfig : public TempDirTest {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // `ksearch ARGS`: exit code; stdout in out(), stderr in err().
  int ksearch(const std::string& args) { return run_ksearch(args, dir_, dir_ / "out.txt"); }
  std::string out() { return read_file(dir_ / "out.txt"); }
  std::string err() { return read_file(dir_ / "out.txt.err"); }
};

const char* kSearchToml = R"(# a search configuration
task = "tiny_softmax"
backend = "cpu"
rounds = 12
parallel = 3
strategy = "annealing"
strategy-option = ["t_start=0.5", "seed=7"]
seed-eval = true
)";

TEST_F(SearchConfig, FileFillsTheFlagsAndTheCommandLineWins) {
  write("search.toml", kSearchToml);
  ASSERT_EQ(ksearch("run --config search.toml --rounds 7 --dump-config"), 0) << err();
  const std::string dump = out();
  EXPECT_NE(dump.find("task=\"tiny_softmax\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("rounds=7"), std::string::npos) << "the command line wins:\n" << dump;
  EXPECT_NE(dump.find("parallel=3"), std::string::npos) << dump;
  EXPECT_NE(dump.find("strategy=\"annealing\""), std::string::npos) << dump;
  EXPECT_NE(dump.find("strategy-option=[\"t_start=0.5\", \"seed=7\"]"), std::string::npos) << dump;
  EXPECT_NE(dump.find("seed-eval=true"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("config="), std::string::npos) << "--config itself is not a key:\n" << dump;

  // The dump is a configuration file that gives the same flags back.
  write("dumped.toml", dump);
  ASSERT_EQ(ksearch("run --config dumped.toml --dump-config"), 0) << err();
  EXPECT_EQ(out(), dump);
}

TEST_F(SearchConfig, DumpWithoutAFileShowsTheDefaults) {
  ASSERT_EQ(ksearch("run --dump-config --backend cuda"), 0) << err();
  EXPECT_NE(out().find("backend=\"cuda\""), std::string::npos) << out();
  EXPECT_NE(out().find("proposer=\"builtin\""), std::string::npos) << out();
  EXPECT_NE(out().find("# Rounds: proposals of up to --parallel candidates each"), std::string::npos) << "each key has its flag's description:\n" << out();
}

TEST_F(SearchConfig, ARequiredFlagMayComeFromTheFile) {
  // The task named in the file reaches the run: it is looked up (and not found) instead of --task being missing.
  write("search.toml", "task = \"no_such_task_xyz\"\n");
  EXPECT_EQ(ksearch("run --config search.toml"), 2);
  EXPECT_NE(err().find("no_such_task_xyz"), std::string::npos) << err();
  EXPECT_EQ(err().find("--task is required"), std::string::npos) << err();
}

// A real one-round search (the cpu backend, a task whose seed has knobs) set up by the file alone.
TEST_F(SearchConfig, ARunTakesItsSettingsFromTheFile) {
  write("search.toml", std::string("task = \"") + KSEARCH_TINY_EXP_TASK + "\"\nrounds = 1\nfinalists = 0\nout = \"runs/exp\"\n"
                       "strategy = \"annealing\"\nstrategy-option = [\"seed=7\"]\njson = true\n");
  ASSERT_EQ(ksearch("run --config search.toml"), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out()).at("strategy"), "annealing") << "--json came from the file";
  ASSERT_EQ(ksearch("runs --json"), 0) << err();
  const auto runs = nlohmann::json::parse(out());
  ASSERT_EQ(runs.size(), 1u) << out();
  EXPECT_EQ(runs[0]["task"], "tiny_exp");
  EXPECT_EQ(runs[0]["strategy"], "annealing");
  EXPECT_EQ(runs[0]["rounds_budget"], 1);
  EXPECT_EQ(runs[0]["status"], "finished");
}

TEST_F(SearchConfig, BadFilesAreErrorsNamingTheKey) {
  write("typo.toml", "task = \"tiny_softmax\"\nroundz = 3\n");
  EXPECT_EQ(ksearch("run --config typo.toml --dump-config"), 2);
  EXPECT_NE(err().find("unknown key 'roundz'"), std::string::npos) << err();

  write("section.toml", "[search]\nrounds = 3\n");
  EXPECT_EQ(ksearch("run --config section.toml --dump-config"), 2);
  EXPECT_NE(err().find("unknown key 'search.rounds'"), std::string::npos) << err();
  write("empty_section.toml", "rounds = 3\n[search]\n");
  EXPECT_EQ(ksearch("run --config empty_section.toml --dump-config"), 2);
  EXPECT_NE(err().find("section [search]"), std::string::npos) << err();

  write("value.toml", "rounds = \"many\"\n");
  EXPECT_EQ(ksearch("run --config value.toml --dump-config"), 2);
  EXPECT_NE(err().find("rounds"), std::string::npos) << err();

  EXPECT_EQ(ksearch("run --config missing.toml --dump-config"), 2);
  EXPECT_NE(err().find("missing.toml"), std::string::npos) << err();
}

}  // namespace
