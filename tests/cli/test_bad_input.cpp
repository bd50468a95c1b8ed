// Bad input to the everyday commands: a clear message and exit 2 (usage) or 1 (a candidate that fails), never an
// abort (exit 3) or a success.
#include <fstream>


#include "run_fixture.hpp"

using namespace ksearch::test;

class BadInput : public TempDirTest {};

TEST_F(BadInput, AnUnknownCommandIsNamed) {
  EXPECT_EQ(run_ksearch("frobnicate", dir_, dir_ / "out.txt"), 2);
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("unknown command 'frobnicate'"), std::string::npos);
}

TEST_F(BadInput, ADirectoryIsNotACandidate) {
  std::filesystem::create_directories(dir_ / "kernel.cpp");
  EXPECT_EQ(run_ksearch("eval --no-timing --task " + kTinySoftmax.string() + " kernel.cpp", dir_, dir_ / "out.txt"), 2);
  EXPECT_NE(read_file(dir_ / "out.txt.err").find("is a directory, not a file"), std::string::npos);
}

TEST_F(BadInput, OptionValuesOutOfRangeAreUsageErrors) {
  std::ofstream(dir_ / "kernel.cpp") << "int x;\n";
  EXPECT_EQ(run_ksearch("eval --call-timeout -1 --task " + kTinySoftmax.string() + " kernel.cpp", dir_, dir_ / "out.txt"), 2);
  EXPECT_EQ(run_ksearch("eval --call-timeout nan --task " + kTinySoftmax.string() + " kernel.cpp", dir_, dir_ / "out.txt"), 2);
}

// Bytes that are not UTF-8 (a Latin-1 comment, a binary file) are written as U+FFFD in the JSON report instead of
// aborting the command: the candidate's own failure is what is reported.
TEST_F(BadInput, TextThatIsNotUtf8IsReportedNotFatal) {
  std::ofstream(dir_ / "kernel.cpp", std::ios::binary) << "// caf\xe9 \xff\xfe\nthis is not C++\n";
  EXPECT_EQ(run_ksearch("eval --json --no-timing --task " + kTinySoftmax.string() + " kernel.cpp", dir_, dir_ / "out.json"), 1)
      << read_file(dir_ / "out.json.err");
  const nlohmann::json report = nlohmann::json::parse(read_file(dir_ / "out.json"));
  EXPECT_EQ(report.at("status"), "compile_error");
}
