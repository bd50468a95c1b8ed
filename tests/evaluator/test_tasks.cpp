#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "tasks/inputs.hpp"
#include "tasks/registry.hpp"
#include "tasks/signature.hpp"

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

// Writes a task folder with `task_toml` as its task file and softmax's reference and seed.
fs::path write_task(const std::string& name, const std::string& task_toml) {
  const fs::path dir = fs::temp_directory_path() / ("ksearch-task-test-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "seeds");
  const fs::path softmax = fs::path(KSEARCH_TEST_DATA) / "../../tasks/softmax";
  fs::copy_file(softmax / "reference.cpp", dir / "reference.cpp");
  fs::copy_file(softmax / "seeds/cpu.cpp", dir / "seeds/cpu.cpp");
  std::ofstream(dir / "task.toml") << task_toml;
  return dir / "task.toml";
}

std::string tiny_text() {
  std::ifstream in(fs::path(KSEARCH_TEST_DATA) / "tasks/tiny_softmax/task.toml");
  std::string text(std::istreambuf_iterator<char>(in), {});
  // The copy written by write_task holds the reference and seed itself.
  const std::string relative = "../../../../tasks/softmax/";
  for (size_t pos; (pos = text.find(relative)) != std::string::npos;) text.erase(pos, relative.size());
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return pos == std::string::npos ? text : text.replace(pos, from.size(), to);
}

std::string load_error(const std::string& toml) {
  try {
    load_task(write_task("bad", toml));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Tasks, BuiltinTasksLoadAndDeclareEveryRequiredField) {
  const auto tasks = list_builtin_tasks();
  std::set<std::string> names;
  for (const auto& t : tasks) {
    names.insert(t.name);
    if (!t.entries.count("cpu")) continue;  // a GPU-only variant (e.g. a bf16 task)
    EXPECT_FALSE(t.workloads_for("cpu", false).empty()) << t.name;
    EXPECT_FALSE(t.workloads_for("cpu", true).empty()) << t.name << " needs held-out workloads";
    EXPECT_TRUE(fs::exists(t.entry("cpu").seed)) << t.name;
    for (const auto& w : t.workloads) {
      EXPECT_GT(t.bytes(w), 0) << t.name << " " << w.name;
      EXPECT_GT(t.flops(w), 0) << t.name << " " << w.name;
    }
  }
  for (const char* required : {"softmax", "rmsnorm", "matmul", "attention", "selective_scan"})
    EXPECT_TRUE(names.count(required)) << required;
}

TEST(Tasks, SelectiveScanCoversTheSeedWorkloadsAndLayouts) {
  const Task t = resolve_task("selective_scan");
  for (const char* name : {"mamba_b1_d768_l512", "mamba_b1_d768_l2048", "mamba_b1_d768_l4096", "mamba_b1_d2048_l1024",
                           "mamba_b4_d768_l4096", "mamba_b4_d768_l1024"})
    EXPECT_NO_THROW(t.workload(name)) << name;
  const auto& fixed = t.workload("fixed_b2_d192_l128_plain");
  EXPECT_EQ(*t.shape_of(*t.find_tensor("B"), fixed), (std::vector<int64_t>{192, 16}));
  EXPECT_FALSE(t.shape_of(*t.find_tensor("z"), fixed).has_value());
  const auto& grouped = t.workload("grouped_b2_d256_l256_g4_state");
  EXPECT_EQ(*t.shape_of(*t.find_tensor("B"), grouped), (std::vector<int64_t>{2, 4, 16, 256}));
  EXPECT_TRUE(t.shape_of(*t.find_tensor("last_state"), grouped).has_value());
}

TEST(Tasks, InputsAreDeterministicPerSeedAndNonDegenerate) {
  const Task t = resolve_task("selective_scan");
  const auto& w = t.workload("fixed_b2_d192_l128_plain");
  auto a = generate_inputs(t, w, 42), b = generate_inputs(t, w, 42), c = generate_inputs(t, w, 43);
  EXPECT_EQ(a[0].bytes, b[0].bytes);
  EXPECT_NE(a[0].bytes, c[0].bytes);
  for (const auto& tensor : a) {
    if (!tensor.present) continue;
    double lo = 1e300, hi = -1e300;
    for (size_t i = 0; i < tensor.elements(); ++i) {
      const double v = load_as_double(tensor.bytes.data(), i, tensor.spec->dtype);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LT(lo, hi) << tensor.spec->name;
    if (tensor.spec->name == "A") EXPECT_LT(hi, 0) << "A must be negative";
    if (tensor.spec->name == "delta") EXPECT_GT(lo, 0) << "delta must be positive";
  }
}

TEST(Tasks, EntrySignatureAndShim) {
  const Task t = resolve_task("rmsnorm");
  EXPECT_EQ(entry_prototype(t, "cpu"),
            "extern \"C\" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps)");
  const std::string shim = entry_shim(t, "cpu");
  EXPECT_NE(shim.find("rmsnorm((const float*)ptrs[0], (const float*)ptrs[1], (float*)ptrs[2], (int64_t)ints[0], (int64_t)ints[1], (float)floats[0])"),
            std::string::npos)
      << shim;
}

TEST(Tasks, MalformedFilesNameFileLineAndField) {
  std::string text = tiny_text();
  // TOML syntax error.
  EXPECT_NE(load_error(text + "\n[[workloads]\n").find("TOML syntax error"), std::string::npos);
  // Unknown dtype, with its line.
  const std::string e1 = load_error(replaced(text, "dtype = \"f32\"", "dtype = \"f33\""));
  EXPECT_NE(e1.find("task.toml:"), std::string::npos) << e1;
  EXPECT_NE(e1.find("inputs(x).dtype"), std::string::npos) << e1;
  EXPECT_NE(e1.find("f33"), std::string::npos) << e1;
  // A workload naming an unknown axis.
  const std::string e2 = load_error(replaced(text, "rows = 64, cols = 256", "rows = 64, colz = 256"));
  EXPECT_NE(e2.find("workloads(r64_c256).axes.colz"), std::string::npos) << e2;
  // An entry argument that is nothing of the task.
  EXPECT_NE(load_error(replaced(text, "args = [\"x\", \"y\", \"rows\", \"cols\"]", "args = [\"x\", \"y\", \"rows\", \"width\"]")).find("'width' is not a tensor, axis or param"), std::string::npos);
  // A missing reference file.
  EXPECT_NE(load_error(replaced(text, "reference.cpp", "missing.cpp")).find("reference.source"), std::string::npos);
  // A cost expression naming an unknown value.
  EXPECT_NE(load_error(replaced(text, "5 * rows * cols", "5 * rows * colz")).find("cost.flops"), std::string::npos);
  EXPECT_THROW(resolve_task("no_such_task"), Error);
}
