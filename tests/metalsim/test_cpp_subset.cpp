// C++ that Metal leaves out (lambdas, recursion, goto, virtual, RTTI, new/delete, exceptions, noexcept, register,
// thread_local; corpus/cpp_subset), pointers or references converted between address spaces (corpus/address_spaces) and
// what Metal's type rules refuse (implicit vector conversions, float atomic min/max, threadgroup variables outside the
// kernel or initialized, bool reductions and struct shuffles in SIMD-group functions; corpus/type_rules) are compile
// errors naming the line; honest look-alikes compile and run. One kernel per file: the header up to
// `// --- body ---`, the body after it; the first line says what to expect, `// expect: passes` (the kernel doubles
// `a` into `o`) or `// expect: <body|header> line <n>: <message start>`.
#include <filesystem>
#include <regex>

#include "helpers.hpp"

using namespace mstest;

namespace {

// "folder/file.metal" for each kernel of the folder.
std::vector<std::string> corpus_files(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(METALSIM_CORPUS_DIR) + "/" + folder))
    out.push_back(folder + "/" + entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

KernelSpec subset_kernel(const std::string& file) {
  const std::string text = corpus(file);
  const std::string marker = "// --- body ---\n";
  const std::size_t split = text.find(marker);
  EXPECT_NE(split, std::string::npos) << file << " has no body marker";
  KernelSpec s;
  s.name = std::filesystem::path(file).stem().string();
  s.inputs = {tensor("a", Dtype::float32, {16})};
  s.outputs = {tensor("o", Dtype::float32, {16})};
  s.header = text.substr(0, split);
  s.source = split == std::string::npos ? text : text.substr(split + marker.size());
  s.grid = {16, 1, 1};
  s.threadgroup = {16, 1, 1};
  return s;
}

class MetalsimCppSubset : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(MetalsimCppSubset, MatchesItsExpectation) {
  const KernelSpec s = subset_kernel(GetParam());
  const std::string expect = s.header.substr(0, s.header.find('\n'));
  CompileResult c = compile(s, copts());
  if (expect == "// expect: passes") {
    ASSERT_TRUE(c.ok) << c.log;
    std::vector<float> a(16), o(16, -1.0f);
    for (int i = 0; i < 16; ++i) a[i] = 0.5f * i - 3.0f;
    std::vector<Buffer> in{buf(s.inputs[0], a)}, out{buf(s.outputs[0], o)};
    RunResult r = run(c.so_path, s, in, out);
    ASSERT_TRUE(r.ok) << describe(r);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(o[i], 2 * a[i]) << i;
    return;
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_match(expect, m, std::regex(R"(// expect: (body|header) line (\d+): (.*))"))) << expect;
  ASSERT_FALSE(c.ok) << "compiled, but Metal has no such construct";
  bool found = false;
  for (const auto& msg : c.messages)
    found |= msg.severity == "error" && msg.file == m[1] && msg.line == std::stoi(m[2]) && msg.message.rfind(m[3], 0) == 0;
  EXPECT_TRUE(found) << "expected " << m[1] << " line " << m[2] << ": " << m[3] << "\n" << c.log;
}

const auto kStem = [](const auto& info) { return std::filesystem::path(info.param).stem().string(); };
INSTANTIATE_TEST_SUITE_P(Metalsim, MetalsimCppSubset, ::testing::ValuesIn(corpus_files("cpp_subset")), kStem);
INSTANTIATE_TEST_SUITE_P(AddressSpaces, MetalsimCppSubset, ::testing::ValuesIn(corpus_files("address_spaces")), kStem);
INSTANTIATE_TEST_SUITE_P(TypeRules, MetalsimCppSubset, ::testing::ValuesIn(corpus_files("type_rules")), kStem);
