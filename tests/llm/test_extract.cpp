// Code and JSON extraction from model answers.
#include <gtest/gtest.h>

#include "llm/extract.hpp"

using namespace ksearch::llm;

TEST(ExtractCode, FenceWithLanguageAndProse) {
  std::string text =
      "Here is the optimized kernel:\n\n```cuda\n__global__ void k(float* x) {\n  x[0] = 1;\n}\n```\n\nIt uses "
      "fewer registers.";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].language, "cuda");
  EXPECT_FALSE(blocks[0].filename);
  EXPECT_EQ(blocks[0].code, "__global__ void k(float* x) {\n  x[0] = 1;\n}");
  EXPECT_TRUE(blocks[0].complete);
}

TEST(ExtractCode, FenceWithoutLanguage) {
  auto blocks = extract_code_blocks("```\nint main() {}\n```");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].language);
  EXPECT_EQ(blocks[0].code, "int main() {}");
}

TEST(ExtractCode, LanguageAliasesAndFilenamesInInfoString) {
  auto blocks = extract_code_blocks(
      "```c++\nA\n```\n```cu:kernel.cu\nB\n```\n```kernel_impl.cuh\nC\n```\n```python title=\"ref.py\"\nD\n```\n");
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].language, "cpp");
  EXPECT_EQ(blocks[1].language, "cuda");
  EXPECT_EQ(blocks[1].filename, "kernel.cu");
  EXPECT_EQ(blocks[2].filename, "kernel_impl.cuh");
  EXPECT_EQ(blocks[2].language, "cuda");  // from the extension
  EXPECT_EQ(blocks[3].filename, "ref.py");
  EXPECT_EQ(blocks[3].language, "python");
  EXPECT_EQ(blocks[3].code, "D");
}

TEST(ExtractCode, SeveralFilesNamedAboveFences) {
  std::string text =
      "I split it in two files.\n\n**kernel.cu**\n```cuda\n#include \"kernel.h\"\n```\n\n"
      "File: kernel.h\n```cpp\n#pragma once\n```\n\n### `launch.cpp`\n```\nvoid launch();\n```\nDone.";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].filename, "kernel.cu");
  EXPECT_EQ(blocks[0].code, "#include \"kernel.h\"");
  EXPECT_EQ(blocks[1].filename, "kernel.h");
  EXPECT_EQ(blocks[1].language, "cpp");
  EXPECT_EQ(blocks[2].filename, "launch.cpp");
  EXPECT_EQ(blocks[2].language, "cpp");
}

TEST(ExtractCode, ProseLineAboveIsNotAFilename) {
  auto blocks = extract_code_blocks("Now consider the following change to reduce bank conflicts:\n```cuda\nx\n```");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].filename);
}

TEST(ExtractCode, LongerFenceContainsShorterOne) {
  std::string text = "````markdown\nExample:\n```cuda\ninner\n```\n````\n";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].language, "markdown");
  EXPECT_EQ(blocks[0].code, "Example:\n```cuda\ninner\n```");
}

TEST(ExtractCode, TildeFenceAndIndentedFence) {
  auto blocks = extract_code_blocks("~~~cpp\nA\n~~~\n  ```cuda\n  B\n  ```\n");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].code, "A");
  EXPECT_EQ(blocks[1].language, "cuda");
  EXPECT_EQ(blocks[1].code, "  B");
}

TEST(ExtractCode, UnclosedFenceIsIncomplete) {
  auto blocks = extract_code_blocks("Sure:\n```cuda\n__global__ void k() {\n  int i =");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].complete);
  EXPECT_EQ(blocks[0].code, "__global__ void k() {\n  int i =");
}

TEST(ExtractCode, XmlTags) {
  std::string text =
      "Plan done.\n<kernel>\n__global__ void a() {}\n</kernel>\nAnd the host side:\n"
      "<file name=\"host.cpp\">\nint main() { return 0; }\n</file>\n"
      "<code language=\"python\">print(1)</code>";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].code, "__global__ void a() {}");
  EXPECT_FALSE(blocks[0].filename);
  EXPECT_EQ(blocks[1].filename, "host.cpp");
  EXPECT_EQ(blocks[1].language, "cpp");
  EXPECT_EQ(blocks[1].code, "int main() { return 0; }");
  EXPECT_EQ(blocks[2].language, "python");
  EXPECT_EQ(blocks[2].code, "print(1)");
}

TEST(ExtractCode, FenceInsideTagIsUnwrapped) {
  std::string text = "<file path='src/k.metal'>\n```metal\nkernel void k() {}\n```\n</file>";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].filename, "src/k.metal");
  EXPECT_EQ(blocks[0].language, "metal");
  EXPECT_EQ(blocks[0].code, "kernel void k() {}");
}

TEST(ExtractCode, TagLikeTextInCodeIsNotATag) {
  std::string text = "```cpp\n#include <filesystem>\n#include <codecvt>\nstd::vector<kernel_t> v;\n```";
  auto blocks = extract_code_blocks(text);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_NE(blocks[0].code.find("<filesystem>"), std::string::npos);
}

TEST(ExtractCode, UnclosedTagIsIncomplete) {
  auto blocks = extract_code_blocks("<kernel>\n__global__ void k() {");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].complete);
  EXPECT_EQ(blocks[0].code, "__global__ void k() {");
}

// Degenerate answers (a model repeating one character) put 200 KB into a fence's info string or a tag's attributes:
// read as text that names no file, not as a crash.
TEST(ExtractCode, DegenerateInfoStringsAndTagsAreReadWithoutCrashing) {
  const std::string run(200000, 'a');
  auto fenced = extract_code_blocks("```" + run + ".cu\nint k;\n```\n");
  ASSERT_EQ(fenced.size(), 1u);
  EXPECT_FALSE(fenced[0].filename);
  EXPECT_EQ(fenced[0].code, "int k;");
  auto tagged = extract_code_blocks("<code name=\"" + run + "\">\nint k;\n</code>");
  ASSERT_EQ(tagged.size(), 1u);
  EXPECT_FALSE(tagged[0].filename);
  EXPECT_EQ(tagged[0].code, "int k;");
}

TEST(ExtractCode, NoCode) {
  EXPECT_TRUE(extract_code_blocks("I cannot do that. Use `nvcc` instead.").empty());
  EXPECT_FALSE(extract_code("no code here").has_value());
}

TEST(ExtractCode, PicksPreferredLanguageThenLongestComplete) {
  std::string text = "```bash\nnvcc -O3 kernel.cu -o k && ./k --with --a --long --command --line\n```\n"
                     "```cuda\nshort();\n```\n```cuda\nlonger_kernel_body();\n```\n";
  auto any = extract_code(text);
  ASSERT_TRUE(any);
  EXPECT_EQ(any->language, "bash");
  auto cuda = extract_code(text, {"cu"});
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->code, "longer_kernel_body();");
  auto incomplete_last = extract_code("```cuda\nok();\n```\n```cuda\nmuch_longer_but_cut_off(", {"cuda"});
  ASSERT_TRUE(incomplete_last);
  EXPECT_EQ(incomplete_last->code, "ok();");
}

TEST(ExtractJson, FromFence) {
  auto j = extract_json("Here is the edit script:\n```json\n{\"ops\": [{\"op\": \"insert\"}]}\n```\nThanks.");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["ops"][0]["op"], "insert");
}

TEST(ExtractJson, BareObjectWithProseAndBraces) {
  auto j = extract_json("Thinking {not json} ... final: {\"a\": \"}{\", \"b\": {\"c\": [1, 2]}} trailing }");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["a"], "}{");
  EXPECT_EQ((*j)["b"]["c"][1], 2);
}

TEST(ExtractJson, SkipsNonJsonFences) {
  auto j = extract_json("```cpp\nint x = {1};\n```\n```\n{\"ok\": true}\n```");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["ok"], true);
}

TEST(ExtractJson, EscapedQuotesAndTruncation) {
  auto j = extract_json(R"({"msg": "say \"hi\" {", "n": 1})");
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["n"], 1);
  EXPECT_FALSE(extract_json("{\"ops\": [{\"op\": \"ins").has_value());
  EXPECT_FALSE(extract_json("[1, 2, 3]").has_value());  // objects only
  EXPECT_FALSE(extract_json("").has_value());
}
