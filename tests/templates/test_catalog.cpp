// The template catalog: every cpu family compiles in place (the file as written, with the candidates'
// flags) and serves its built-in task; renders are self-contained; malformed family files are
// rejected with an error naming the file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "backends/cpu/cpu_tools.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "proposers/builtin/catalog.hpp"
#include "strategies/world_model/select.hpp"
#include "tasks/registry.hpp"

using ksearch::tasks::Task;
using ksearch::tasks::TensorSpec;
using ksearch::tasks::resolve_task;

namespace fs = std::filesystem;

namespace ksearch {
namespace {

TEST(TemplateCatalog, CpuFamiliesCompileInPlaceAndServeTheirTask) {
  auto provider = proposers::builtin::provider_for("cpu");
  ASSERT_TRUE(provider);
  const fs::path out = cache_subdir("templates-tests") / ("in-place-" + std::to_string(getpid()) + ".o");
  int compiled = 0;
  for (const std::string& name : provider->tasks()) {
    const Task task = resolve_task(name);
    const auto families = provider->families(task);
    EXPECT_FALSE(families.empty()) << "no family in templates/cpu/" << name << " serves the built-in task";
    for (const auto& f : families) {
      EXPECT_EQ(f.description.find('\n'), std::string::npos) << f.name << ": the wrapped paragraph is one line";
      std::vector<std::string> command = {"g++"};
      for (const auto& flag : cpu::candidate_flags()) command.push_back(flag);
      command.insert(command.end(), {"-c", f.source.string(), "-o", out.string()});
      const CommandResult r = run_command(command);
      EXPECT_TRUE(r.ok()) << f.source << ":\n" << r.output;
      ++compiled;
    }
  }
  fs::remove(out);
  EXPECT_GE(compiled, 11);
}

// A family rated above the world model's default difficulty cap is never selected by a default search: the
// built-in proposer would carry a family that `ksearch run` cannot reach.
TEST(TemplateCatalog, EveryFamilyIsWithinTheDefaultSearchsDifficultyCap) {
  const int cap = world_model::SelectOptions{}.difficulty_cap;
  int families = 0;
  for (const char* backend : {"cpu", "cuda", "metal"}) {
    auto provider = proposers::builtin::provider_for(backend);
    if (!provider) continue;
    for (const std::string& name : provider->tasks())
      for (const auto& f : provider->families(resolve_task(name))) {
        EXPECT_LE(f.difficulty, cap) << backend << "/" << name << "/" << f.name;
        ++families;
      }
  }
  EXPECT_GE(families, 30);
}

TEST(TemplateCatalog, RendersAreSelfContainedWithKnobValues) {
  auto provider = proposers::builtin::provider_for("cpu");
  ASSERT_TRUE(provider);
  const Task task = resolve_task("softmax");
  const std::string source = provider->render(task, "online_fused", {{"unroll", 8}, {"vector_bits", 256}});
  EXPECT_EQ(source.find("#include \""), std::string::npos) << source;
  EXPECT_NE(source.find("#define UNROLL 8\n"), std::string::npos);
  EXPECT_NE(source.find("#define VECTOR_BITS 256\n"), std::string::npos);
  EXPECT_NE(source.find("#define EXP_DEGREE 5\n"), std::string::npos);  // a default
  EXPECT_NE(source.find("inline vf v_exp("), std::string::npos);        // common/vector.h, inlined
  EXPECT_NE(source.find("extern \"C\" void softmax("), std::string::npos);  // softmax/row_loop.h
  EXPECT_EQ(source.find("#pragma once"), std::string::npos);
}

// A backend folder of its own with one task folder, written per test.
class MalformedFamily : public testing::Test {
 protected:
  void SetUp() override {
    root_ = cache_subdir("templates-tests") / ("malformed-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "cpu" / "softmax");
    task_.name = "softmax";
    task_.entries["cpu"].args = {"x", "y", "rows", "cols"};
    task_.inputs = {TensorSpec{"x"}};
    task_.outputs = {TensorSpec{"y"}};
    write("softmax/fam.cpp", "#define UNROLL 4\n#include \"../common/helper.h\"\nextern \"C\" void softmax() {}\n");
    write("common/helper.h", "#pragma once\ninline int helper() { return UNROLL; }\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / "cpu" / path).parent_path());
    std::ofstream(root_ / "cpu" / path) << text;
  }
  static std::string family(const std::string& knob_lines, const std::string& extra = "") {
    return "title = \"t\"\nsource = \"fam.cpp\"\ndifficulty = 2\nexpected_gain = 3.0\ndescription = \"d\"\n" + extra +
           "[serves]\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\ntensor_dtype = \"f32\"\n" + knob_lines;
  }
  static std::string with(std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
  }
  static constexpr const char* kUnroll = "[[knobs]]\nname = \"unroll\"\ndescription = \"u\"\nvalues = [2, 4]\ndefault = 4\n";

  // The error message of loading the families, "" when they load.
  std::string error() {
    try {
      proposers::builtin::TemplateProvider("cpu", root_ / "cpu").families(task_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path root_;
  Task task_;
};

TEST_F(MalformedFamily, AWellFormedFamilyLoadsAndRenders) {
  write("softmax/fam.toml", family(kUnroll));
  const proposers::builtin::TemplateProvider provider("cpu", root_ / "cpu");
  ASSERT_EQ(provider.families(task_).size(), 1u);
  const std::string source = provider.render(task_, "fam", {{"unroll", 2}});
  EXPECT_NE(source.find("#define UNROLL 2\n"), std::string::npos) << source;
  EXPECT_NE(source.find("inline int helper()"), std::string::npos) << source;
  EXPECT_THROW(provider.render(task_, "fam", {{"unroll", 3}}), Error);
  EXPECT_THROW(provider.render(task_, "fam", {{"no_such_knob", 1}}), Error);
  EXPECT_THROW(provider.render(task_, "other", {}), Error);
}

// A metal knob that the launch geometry uses is a template directive: it is checked and set like a #define.
TEST_F(MalformedFamily, MetalTemplateDirectivesAreKnobs) {
  write("softmax/fam.toml", family(kUnroll));
  write("softmax/fam.cpp", "// grid: 32 * rows, 1, 1\n// threadgroup: 32 * UNROLL, 1, 1\n// template: UNROLL = 4\n"
                           "// template: N = cols\n// --- body ---\ny[0] = UNROLL;\n");
  const proposers::builtin::TemplateProvider provider("cpu", root_ / "cpu");
  const std::string source = provider.render(task_, "fam", {{"unroll", 2}});
  EXPECT_NE(source.find("// template: UNROLL = 2\n"), std::string::npos) << source;
  EXPECT_NE(source.find("// template: N = cols\n"), std::string::npos) << source;  // not a knob: unchanged

  write("softmax/fam.cpp", "// template: UNROLL = 8\n// --- body ---\n");
  EXPECT_NE(error().find("defines UNROLL as '8'"), std::string::npos) << error();
  write("softmax/fam.cpp", "// template: UNROLL = 4\n#define UNROLL 4\n");
  EXPECT_NE(error().find("(found 2)"), std::string::npos) << error();
}

TEST_F(MalformedFamily, ErrorsNameTheFileAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"source = \"fam.cpp\"\ndifficulty = 2\nexpected_gain = 3.0\ndescription = \"d\"\n[serves]\nargs = []\n"
       "tensor_dtype = \"f32\"\n",
       "field 'title'"},
      {family("[[knobs]]\nname = \"unroll\"\ndescription = \"u\"\nvalues = [2, 8]\ndefault = 4\n"), "knobs[0].default"},
      {family("[[knobs]]\nname = \"unroll\"\ndescription = \"u\"\nvalues = [2, 8]\ndefault = 8\n"), "defines UNROLL as '4'"},
      {family("[[knobs]]\nname = \"unroll\"\ndescription = \"u\"\nvalues = \"4\"\ndefault = 4\n"), "knobs[0].values"},
      {family("[[knobs]]\nname = \"threads\"\n"), "knobs[0]"},
      {family("[[knobs]]\nname = \"stages\"\ndescription = \"s\"\nvalues = [1]\ndefault = 1\n"), "#define STAGES 1"},
      {with(family(kUnroll), "difficulty = 2", "difficulty = 9"), "field 'difficulty'"},
      {with(family(kUnroll), "fam.cpp", "missing.cpp"), "field 'source'"},
      {with(family(kUnroll), "\"f32\"", "\"f33\""), "serves.tensor_dtype"},
      {"title = \"t\"\nsource = ", "TOML syntax error"},
      {family(kUnroll, "titel = \"t\"\n"), "field 'titel': unknown key"},
      {family("[[knobs]]\nname = \"unroll\"\ndescription = \"u\"\nvalues = [2, 4]\ndefault = 4\nstep = 2\n"),
       "knobs[0].step"},
  };
  for (const auto& [toml, field] : cases) {
    write("softmax/fam.toml", toml);
    const std::string message = error();
    EXPECT_NE(message.find("fam.toml"), std::string::npos) << toml << "\n=> " << message;
    EXPECT_NE(message.find(field), std::string::npos) << toml << "\n=> " << message;
  }
}

TEST_F(MalformedFamily, IncludesOutsideTheBackendFolderAreRejected) {
  write("softmax/fam.toml", family(kUnroll));
  write("softmax/fam.cpp", "#define UNROLL 4\n#include \"../../elsewhere.h\"\n");
  std::ofstream(root_ / "elsewhere.h") << "int x;\n";
  const proposers::builtin::TemplateProvider provider("cpu", root_ / "cpu");
  try {
    provider.render(task_, "fam", {});
    ADD_FAILURE() << "rendered an include outside the backend folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fam.cpp:2"), std::string::npos) << e.what();
  }
}

TEST_F(MalformedFamily, AnotherDtypeOrSignatureIsNotServed) {
  write("softmax/fam.toml", family(kUnroll));
  const proposers::builtin::TemplateProvider provider("cpu", root_ / "cpu");
  Task bf16 = task_;
  bf16.inputs[0].dtype = DType::bf16;
  EXPECT_TRUE(provider.families(bf16).empty());
  Task other = task_;
  other.entries["cpu"].args = {"x", "y", "n"};
  EXPECT_TRUE(provider.families(other).empty());
  EXPECT_EQ(provider.families(task_).size(), 1u);
}

}  // namespace
}  // namespace ksearch
