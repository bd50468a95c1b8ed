#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "tasks/inputs.hpp"
#include "tasks/reference.hpp"
#include "tasks/registry.hpp"
#include "tasks/signature.hpp"

using ksearch::tasks::DeviceReferenceSpec;
using ksearch::tasks::HostTensor;
using ksearch::tasks::ReferenceError;
using ksearch::tasks::Task;
using ksearch::tasks::Workload;
using ksearch::tasks::entry_prototype;
using ksearch::tasks::entry_file;
using ksearch::tasks::generate_inputs;
using ksearch::tasks::list_builtin_tasks;
using ksearch::tasks::load_task;
using ksearch::tasks::mix_inputs;
using ksearch::tasks::reference_outputs;
using ksearch::tasks::resolve_task;
using ksearch::tasks::workload_byte_limit;

using namespace ksearch;
namespace fs = std::filesystem;

namespace {

// Writes a task folder with `task_toml` as its task file and softmax's seed and reference (or `reference`).
fs::path write_task(const std::string& name, const std::string& task_toml, const std::string& reference = "") {
  // A folder per process: ctest runs this file's tests side by side, several of them writing a task named "bad".
  const fs::path dir = fs::temp_directory_path() / ("ksearch-task-test-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "seeds");
  const fs::path softmax = fs::path(KSEARCH_TEST_DATA) / "../../tasks/softmax";
  if (reference.empty()) fs::copy_file(softmax / "reference.cpp", dir / "reference.cpp");
  else std::ofstream(dir / "reference.cpp") << reference;
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

// A metal run of a task with only [entry.cuda] is a port's (`ksearch run --from`): exports, jobs and resumes load the
// task as it evaluated it, with the cuda entry's arguments as its metal entry; other runs load the file as it is.
TEST(Tasks, APortsRunLoadsTheCudaEntryAsItsMetalEntry) {
  const std::string file = std::string(KSEARCH_TEST_DATA) + "/../translate/tasks/softmax/task.toml";
  const Task as_written = ksearch::tasks::load_task(file);
  ASSERT_FALSE(as_written.entries.count("metal"));
  EXPECT_FALSE(ksearch::tasks::load_run_task(file, "cuda").entries.count("metal"));
  const Task ported = ksearch::tasks::load_run_task(file, "metal");
  ASSERT_TRUE(ported.entries.count("metal"));
  EXPECT_EQ(ported.entry("metal").backend, "metal");
  EXPECT_EQ(ported.entry("metal").args, as_written.entry("cuda").args);
  EXPECT_TRUE(ported.entry("metal").seed.empty());
}

// On every backend of every built-in task, the held-out workloads go beyond the visible ones, so that a kernel
// which hard-codes what it saw fails the final verdict: each axis and each float param (an eps) takes a value
// there that no visible workload has; every value of an integer param (an option: a mask, a layout) and every
// optional tensor's presence or absence that a visible workload uses is used there too.
TEST(Tasks, HeldOutWorkloadsVaryEveryAxisBeyondTheVisibleOnes) {
  for (const auto& task : list_builtin_tasks())
    for (const auto& [backend, entry] : task.entries) {
      const auto visible = task.workloads_for(backend, false), held_out = task.workloads_for(backend, true);
      const std::string where = task.name + " on " + backend;
      ASSERT_FALSE(held_out.empty()) << where;
      auto values = [&](const std::vector<const Workload*>& workloads, const std::string& name) {
        std::set<double> out;
        for (const Workload* w : workloads) out.insert(task.bindings(*w).at(name));
        return out;
      };
      auto has_new_value = [&](const std::string& name) {
        const auto seen = values(visible, name);
        for (double v : values(held_out, name))
          if (!seen.count(v)) return true;
        return false;
      };
      auto covers_visible_values = [&](const std::string& name) {
        const auto tested = values(held_out, name);
        for (double v : values(visible, name))
          if (!tested.count(v)) return false;
        return true;
      };
      for (const auto& [axis, _] : task.axes)
        EXPECT_TRUE(has_new_value(axis)) << where << ": no held-out workload has a value of axis '" << axis
                                         << "' that no visible workload has";
      for (const auto& p : task.params) {
        if (p.dtype == DType::f32 || p.dtype == DType::f64)
          EXPECT_TRUE(has_new_value(p.name)) << where << ": no held-out workload gives param '" << p.name
                                             << "' a value that no visible workload gives it";
        else
          EXPECT_TRUE(covers_visible_values(p.name)) << where << ": a value of option '" << p.name
                                                     << "' used by a visible workload is used by no held-out one";
      }
      for (const auto* list : {&task.inputs, &task.outputs})
        for (const auto& t : *list)
          if (t.optional)
            EXPECT_TRUE(covers_visible_values("has_" + t.name))
                << where << ": optional tensor '" << t.name << "' is present (or absent) in a visible workload but in no held-out one";
    }
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

// generation_spec (what the reference and seed-timing caches add to the file's hash) changes with everything that
// changes a workload's inputs, and only with that.
TEST(Tasks, GenerationSpecFollowsEverythingThatShapesTheInputs) {
  const Task t = resolve_task("selective_scan");
  const Workload& w = t.workload("fixed_b2_d192_l128_plain");
  const std::string spec = t.generation_spec(w);
  EXPECT_EQ(Task(t).generation_spec(w), spec);
  EXPECT_NE(t.generation_spec(t.workload("grouped_b2_d256_l256_g4_state")), spec);
  auto differs = [&](auto change) {
    Task copy = t;
    Workload changed = w;
    change(copy, changed);
    return copy.generation_spec(changed) != spec;
  };
  EXPECT_TRUE(differs([](Task& c, Workload&) { c.inputs.front().dist.b *= 8; }));
  EXPECT_TRUE(differs([](Task& c, Workload&) { c.inputs.front().dist.kind = "uniform"; }));
  EXPECT_TRUE(differs([](Task& c, Workload&) { c.inputs.front().dtype = ksearch::DType::f64; }));
  EXPECT_TRUE(differs([](Task&, Workload& c) { c.axes["l"] += 1; }));
  EXPECT_TRUE(differs([](Task&, Workload& c) { c.params["delta_softplus"] = 1; }));
  EXPECT_TRUE(differs([](Task&, Workload& c) { c.absent.erase("z"); }));
  EXPECT_TRUE(differs([](Task&, Workload& c) { c.shapes["B"] = {"n", "d"}; }));
  EXPECT_FALSE(differs([](Task&, Workload& c) { c.held_out = true; }));  // where it is shown, not what it is
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

// Large tensors are drawn in independently seeded chunks on several threads: still one value per seed,
// no chunk repeating another, and the task's distribution overall.
TEST(Tasks, LargeInputsAreDrawnInDistinctChunksFromTheDistribution) {
  const Task t = resolve_task("softmax");
  const auto& w = t.workload("r2048_c4096");  // 8M elements: 32 chunks
  const auto a = generate_inputs(t, w, 5), b = generate_inputs(t, w, 5);
  ASSERT_EQ(a[0].bytes, b[0].bytes);
  const size_t chunk_bytes = (size_t(1) << 18) * sizeof(float);
  ASSERT_GT(a[0].bytes.size(), 2 * chunk_bytes);
  EXPECT_NE(std::memcmp(a[0].bytes.data(), a[0].bytes.data() + chunk_bytes, chunk_bytes), 0);
  double sum = 0, sum_sq = 0;
  const size_t n = a[0].elements();
  for (size_t i = 0; i < n; ++i) {
    const double v = load_as_double(a[0].bytes.data(), i, DType::f32);
    sum += v;
    sum_sq += v * v;
  }
  const double mean = sum / double(n), std_dev = std::sqrt(sum_sq / double(n) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.01);     // normal(0, 4): the mean of 8M draws is within 0.0014 at 1 sigma
  EXPECT_NEAR(std_dev, 4.0, 0.01);
}

// The timed repetitions' inputs: every element of a mix comes from one of the two sources, each source element at most
// once, from a place its own place does not tell (no rotation of a source explains more than a few elements, and
// neighbours rarely come from neighbours); a mix is new content each time and keeps the distribution.
TEST(Tasks, MixedInputsTakeEachElementFromOneSourceAtAnUnpredictablePlaceAndKeepTheDistribution) {
  const Task t = resolve_task("selective_scan");
  const auto& w = t.workload("fixed_b2_d192_l128_plain");
  const auto a = generate_inputs(t, w, 1), b = generate_inputs(t, w, 2);
  const auto mixed = mix_inputs(a, b, 7), again = mix_inputs(a, b, 7), other = mix_inputs(a, b, 8);
  for (size_t k = 0; k < a.size(); ++k) {
    if (!a[k].present) continue;
    EXPECT_EQ(mixed[k].bytes, again[k].bytes) << a[k].spec->name;
    const size_t n = a[k].elements(), width = dtype_size(a[k].spec->dtype);
    if (n < 64) continue;
    EXPECT_NE(mixed[k].bytes, other[k].bytes) << a[k].spec->name;
    EXPECT_NE(mixed[k].bytes, a[k].bytes) << a[k].spec->name;
    EXPECT_NE(mixed[k].bytes, b[k].bytes) << a[k].spec->name;
    auto value = [&](const HostTensor& x, size_t i) { return std::string(reinterpret_cast<const char*>(x.bytes.data()) + i * width, width); };
    // Where each value stands in each source (a value drawn twice stands at several places).
    std::unordered_map<std::string, std::vector<size_t>> in_a, in_b;
    for (size_t i = 0; i < n; ++i) {
      in_a[value(a[k], i)].push_back(i);
      in_b[value(b[k], i)].push_back(i);
    }
    std::vector<int> uses_a(n), uses_b(n);
    std::vector<std::optional<size_t>> source_a(n);  // the place in a of an element found there only once
    size_t from_a = 0;
    for (size_t i = 0; i < n; ++i) {
      const auto fa = in_a.find(value(mixed[k], i)), fb = in_b.find(value(mixed[k], i));
      ASSERT_TRUE(fa != in_a.end() || fb != in_b.end()) << a[k].spec->name << " element " << i;
      if (fa != in_a.end() && fa->second.size() == 1 && fb == in_b.end()) {
        source_a[i] = fa->second[0];
        ++uses_a[fa->second[0]];
      }
      if (fb != in_b.end() && fb->second.size() == 1 && fa == in_a.end()) ++uses_b[fb->second[0]];
      from_a += fa != in_a.end();
    }
    EXPECT_LE(*std::max_element(uses_a.begin(), uses_a.end()), 1) << a[k].spec->name;
    EXPECT_LE(*std::max_element(uses_b.begin(), uses_b.end()), 1) << a[k].spec->name;
    EXPECT_GT(from_a, n / 4) << a[k].spec->name;
    EXPECT_LT(from_a, 3 * n / 4) << a[k].spec->name;
    // The commonest rotation explains about one element per tile (a random permutation's fixed points), and an
    // element's neighbour taken from the same source comes from the neighbouring place about as rarely.
    std::unordered_map<size_t, size_t> rotations;
    size_t neighbours = 0, pairs = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!source_a[i]) continue;
      ++rotations[(*source_a[i] + n - i) % n];
      if (i + 1 < n && source_a[i + 1]) {
        ++pairs;
        neighbours += *source_a[i + 1] == *source_a[i] + 1;
      }
    }
    size_t commonest = 0;
    for (const auto& [rotation, count] : rotations) commonest = std::max(commonest, count);
    EXPECT_LE(commonest, 8 + n / 1024) << a[k].spec->name;
    EXPECT_LE(neighbours, 8 + pairs / 256) << a[k].spec->name;
  }
  // The distribution survives: softmax's normal(0, 4) logits, mixed.
  const Task softmax = resolve_task("softmax");
  const auto& big = softmax.workload("r2048_c4096");
  const auto m = mix_inputs(generate_inputs(softmax, big, 3), generate_inputs(softmax, big, 4), 9);
  double sum = 0, sum_sq = 0;
  const size_t n = m[0].elements();
  for (size_t i = 0; i < n; ++i) {
    const double v = load_as_double(m[0].bytes.data(), i, DType::f32);
    sum += v;
    sum_sq += v * v;
  }
  const double mean = sum / double(n), std_dev = std::sqrt(sum_sq / double(n) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std_dev, 4.0, 0.01);
}

TEST(Tasks, EntrySignatureAndShim) {
  const Task t = resolve_task("rmsnorm");
  EXPECT_EQ(entry_prototype(t, "cpu"),
            "extern \"C\" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps)");
  const std::string shim = entry_file(t, "cpu", "candidate.cpp");
  EXPECT_NE(shim.find("ksearch_shim::call(rmsnorm, (const float*)ptrs[0], (const float*)ptrs[1], (float*)ptrs[2], (int64_t)ints[0], "
                      "(int64_t)ints[1], (float)floats[0])"),
            std::string::npos)
      << shim;
  // The candidate's macros are undefined after it, all but the entry function's name (which the candidate may define
  // through a macro); the headers the shim needs come first.
  const size_t candidate = shim.find("#include \"candidate.cpp\"\n");
  ASSERT_NE(candidate, std::string::npos) << shim;
  EXPECT_LT(shim.find("#include <type_traits>"), candidate);
  for (const char* word : {"ksearch_entry", "ksearch_shim", "static_assert", "const_cast", "ptrs", "void", "fprintf"})
    EXPECT_GT(shim.find("#undef " + std::string(word) + "\n"), candidate) << word;
  EXPECT_EQ(shim.find("#undef rmsnorm\n"), std::string::npos);
}

// The prototype's C types leave dtypes and shapes out (an f16 and a bf16 tensor are both uint16_t): the argument table
// of the brief and the export says them.
TEST(Tasks, ArgumentTableStatesDtypesShapesAndRawHalfBits) {
  const Task task = load_task(fs::path(KSEARCH_TEST_DATA) / "tasks/mixed_dtypes/task.toml");
  const std::string table = ksearch::tasks::argument_table(task, "cpu", {}, "// ");
  for (const char* line : {"// x        f16[rows, cols] input, IEEE binary16 bits in uint16_t\n",
                           "// y        bf16[rows, cols] output, bfloat16 bits (a float's upper half) in uint16_t\n",
                           "// mask     bool[rows * cols] output\n", "// count    i32[1] output\n", "// cols     size: row length\n",
                           "// invert   bool parameter, default 0\n", "// scale    f64 parameter, default 0.5\n"})
    EXPECT_NE(table.find(line), std::string::npos) << line << " in\n" << table;
  ksearch::tasks::CallConvention typed;
  typed.f16_type = "__half";
  typed.bf16_type = "__nv_bfloat16";
  EXPECT_EQ(ksearch::tasks::argument_table(task, "cpu", typed, "").find("bits"), std::string::npos);
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
  EXPECT_NE(load_error(replaced(text, "bytes = \"8 * rows * cols\"", "bytes = \"8 * rows * cols\"\ntranscendentals = \"rowz\""))
                .find("cost.transcendentals"),
            std::string::npos);
  // Misspelt keys are errors, not silently ignored: a typo'd held_out would make held-out workloads visible.
  const std::string e3 = load_error(replaced(text, "held_out = true", "held_ot = true"));
  EXPECT_NE(e3.find("task.toml:"), std::string::npos) << e3;
  EXPECT_NE(e3.find("workloads(held_r5_c777).held_ot"), std::string::npos) << e3;
  EXPECT_NE(e3.find("unknown key"), std::string::npos) << e3;
  EXPECT_NE(load_error(text + "\n[costs]\nflops = \"1\"\n").find("'costs': unknown key"), std::string::npos);
  EXPECT_NE(load_error(replaced(text, "mean = 0.0", "mean = 0.0, sdt = 1.0")).find("inputs(x).dist.sdt"), std::string::npos);
  EXPECT_NE(load_error(replaced(text, "held_out = true", "held_out = \"yes\"")).find("expected true or false"), std::string::npos);
  EXPECT_THROW(resolve_task("no_such_task"), Error);
}

// A draw outside what the input's dtype holds would reach reference and candidate wrapped or infinite; integer
// and bool inputs without a dist draw from their small range instead of a rounded normal.
TEST(Tasks, DistributionsMustFitTheInputsDtype) {
  const std::string text = tiny_text();
  const auto with = [&](const std::string& dtype, const std::string& dist) {
    return replaced(replaced(text, "dtype = \"f32\"", "dtype = \"" + dtype + "\""),
                    "dist = { kind = \"normal\", mean = 0.0, std = 4.0 }", dist);
  };
  const std::string wraps = load_error(with("u8", "dist = { kind = \"randint\", lo = 0, hi = 300 }"));
  EXPECT_NE(wraps.find("inputs(x).dist"), std::string::npos) << wraps;
  EXPECT_NE(wraps.find("outside what u8 holds ([0, 255])"), std::string::npos) << wraps;
  EXPECT_NE(wraps.find("wrapped"), std::string::npos) << wraps;
  EXPECT_NE(load_error(with("i32", "dist = { kind = \"uniform\", lo = -1e10, hi = 0 }")).find("outside what i32 holds"),
            std::string::npos);
  const std::string overflows = load_error(with("f16", "dist = { kind = \"normal\", mean = 0.0, std = 20000.0 }"));
  EXPECT_NE(overflows.find("mean +- 6 std"), std::string::npos) << overflows;
  EXPECT_NE(overflows.find("as infinities"), std::string::npos) << overflows;
  EXPECT_NE(load_error(with("i32", "dist = { kind = \"neg_log_uniform\", lo = 1.0, hi = 1e12 }")).find("[-1000000000000, -1]"),
            std::string::npos);
  // A bool input rounds its draw: uniform over [0, 1) is a fair coin too, and no draw is out of its range.
  EXPECT_EQ(load_error(with("bool", "dist = { kind = \"uniform\", lo = 0.0, hi = 1.0 }")), "");
  EXPECT_EQ(load_error(with("bool", "dist = { kind = \"normal\", mean = 0.0, std = 1.0 }")), "");
  EXPECT_EQ(load_error(with("i32", "dist = { kind = \"randint\", lo = -2147483648, hi = 2147483647 }")), "");
  EXPECT_EQ(load_error(with("f16", "dist = { kind = \"normal\", mean = 0.0, std = 4.0 }")), "");

  for (const auto& [dtype, hi] : {std::pair{std::string("bool"), 1.0}, std::pair{std::string("u8"), 255.0}}) {
    const Task task = load_task(write_task("dist_" + dtype, with(dtype, "")));
    EXPECT_EQ(task.inputs.front().dist.kind, "randint") << dtype;
    EXPECT_EQ(task.inputs.front().dist.a, 0.0) << dtype;
    EXPECT_EQ(task.inputs.front().dist.b, hi) << dtype;
    // Both ends drawn: a bool input is neither all true nor all false.
    const auto inputs = generate_inputs(task, task.workloads.front(), 7);
    double lo_seen = hi, hi_seen = 0;
    for (size_t i = 0; i < inputs.front().elements(); ++i) {
      const double v = load_as_double(inputs.front().bytes.data(), i, task.inputs.front().dtype);
      lo_seen = std::min(lo_seen, v), hi_seen = std::max(hi_seen, v);
    }
    EXPECT_EQ(lo_seen, 0.0) << dtype;
    EXPECT_EQ(hi_seen, hi) << dtype;
  }
  const Task coin = load_task(write_task("dist_coin", with("bool", "dist = { kind = \"uniform\", lo = 0.0, hi = 1.0 }")));
  const auto drawn = generate_inputs(coin, coin.workloads.front(), 7).front();
  size_t set = 0;
  for (size_t i = 0; i < drawn.elements(); ++i) set += drawn.bytes[i];
  EXPECT_GT(set, drawn.elements() / 3);
  EXPECT_LT(set, 2 * drawn.elements() / 3);
}

// An index input's bound follows the workload (`hi = "cols - 1"`): each workload draws within its own range, and a
// bound that names nothing or leaves no range on some workload is that field's or that workload's error.
TEST(Tasks, DistributionBoundsMayBeExpressionsOverTheWorkload) {
  const auto with = [&](const std::string& dist) {
    return replaced(replaced(tiny_text(), "dtype = \"f32\"", "dtype = \"i32\""),
                    "dist = { kind = \"normal\", mean = 0.0, std = 4.0 }", dist);
  };
  const Task task = load_task(write_task("dist_expr", with("dist = { kind = \"randint\", lo = 0, hi = \"cols - 1\" }")));
  ASSERT_EQ(task.inputs.front().dist.b_expr, "cols - 1");
  for (const Workload& w : task.workloads) {
    const auto inputs = generate_inputs(task, w, 3);
    double most = 0;
    for (size_t i = 0; i < inputs.front().elements(); ++i) most = std::max(most, load_as_double(inputs.front().bytes.data(), i, DType::i32));
    EXPECT_EQ(most, double(w.axes.at("cols") - 1)) << w.name;  // thousands of draws reach the top of a range of <= 1000
  }
  EXPECT_NE(task.generation_spec(task.workloads[0]), task.generation_spec(task.workloads[1]));

  const std::string unknown = load_error(with("dist = { kind = \"randint\", lo = 0, hi = \"colz - 1\" }"));
  EXPECT_NE(unknown.find("inputs(x).dist"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("colz"), std::string::npos) << unknown;
  const std::string empty = load_error(with("dist = { kind = \"randint\", lo = 0, hi = \"cols - 300\" }"));
  EXPECT_NE(empty.find("workloads(r64_c256)"), std::string::npos) << empty;
  EXPECT_NE(empty.find("the dist of 'x' needs lo < hi (lo 0, hi -44)"), std::string::npos) << empty;
  const std::string wraps = load_error(with("dist = { kind = \"uniform\", lo = 0, hi = \"cols * 1e7\" }"));
  EXPECT_NE(wraps.find("outside what i32 holds"), std::string::npos) << wraps;
}

// A constraint is an expression over axes and params that every workload meets: one that breaks it is an error naming
// the workload, the constraint and the sizes; the argument table states each constraint for the prompts.
TEST(Tasks, ConstraintsHoldOnEveryWorkload) {
  const std::string even = "\n[[constraints]]\ncheck = \"floor(cols / 4) * 4 == cols || cols > 500\"\nsays = \"short rows of whole float4s\"\n";
  const Task task = load_task(write_task("constrained", tiny_text() + even));
  ASSERT_EQ(task.constraints.size(), 1u);
  EXPECT_NE(ksearch::tasks::argument_table(task, "cpu", {}, "// ")
                .find("// every call has short rows of whole float4s (floor(cols / 4) * 4 == cols || cols > 500)\n"),
            std::string::npos);
  const std::string odd = load_error(tiny_text() + even + "\n[[workloads]]\nname = \"odd\"\naxes = { rows = 3, cols = 17 }\n");
  EXPECT_NE(odd.find("'workloads(odd)': breaks the constraint 'short rows of whole float4s' (floor(cols / 4) * 4 == cols || "
                     "cols > 500: cols = 17)"),
            std::string::npos)
      << odd;
  const std::string unknown = load_error(tiny_text() + "\n[[constraints]]\ncheck = \"colz > 0\"\nsays = \"x\"\n");
  EXPECT_NE(unknown.find("constraints[0].check"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("colz"), std::string::npos) << unknown;
  EXPECT_NE(load_error(tiny_text() + "\n[[constraints]]\ncheck = \"cols > 0\"\n").find("says"), std::string::npos);
}

TEST(Tasks, DeviceReferenceIsChosenByCost) {
  const std::string device = "\n[reference.cpu]\nsource = \"seeds/cpu.cpp\"\nabove_flops = 80000\n";
  const fs::path file = write_task("device", tiny_text() + device);
  const Task t = load_task(file);
  ASSERT_EQ(t.device_references.size(), 1u);
  const DeviceReferenceSpec& spec = t.device_references.at("cpu");
  EXPECT_EQ(spec.source, file.parent_path() / "seeds/cpu.cpp");
  EXPECT_EQ(spec.source_hash.size(), 64u);
  EXPECT_EQ(t.device_reference_for("cpu", t.workload("r64_c256")), &spec);      // 81920 flops
  EXPECT_EQ(t.device_reference_for("cpu", t.workload("r16_c1000")), &spec);     // 80000: at the threshold
  EXPECT_EQ(t.device_reference_for("cpu", t.workload("held_r5_c777")), nullptr);  // 19425
  EXPECT_EQ(t.device_reference_for("metal", t.workload("r64_c256")), nullptr);
  // Without flops the bytes decide (8 * rows * cols: 131072, 128000, 31080).
  const Task no_flops = load_task(write_task("device", replaced(tiny_text(), "5 * rows * cols", "0") + device));
  EXPECT_EQ(no_flops.reference_cost(no_flops.workload("r16_c1000")), 128000);
  EXPECT_NE(no_flops.device_reference_for("cpu", no_flops.workload("r16_c1000")), nullptr);
  EXPECT_EQ(no_flops.device_reference_for("cpu", no_flops.workload("held_r5_c777")), nullptr);
  // The threshold's default.
  const Task by_default = load_task(write_task("device", tiny_text() + "\n[reference.cpu]\nsource = \"seeds/cpu.cpp\"\n"));
  EXPECT_EQ(by_default.device_references.at("cpu").above_flops, 1e9);
  EXPECT_TRUE(load_task(write_task("device", tiny_text())).device_references.empty());
}

TEST(Tasks, MalformedDeviceReferenceTablesNameTheField) {
  const std::string text = tiny_text();
  const auto error_with = [&](const std::string& table) { return load_error(text + "\n" + table); };
  const std::string missing = error_with("[reference.cpu]\nabove_flops = 5\n");
  EXPECT_NE(missing.find("task.toml:"), std::string::npos) << missing;
  EXPECT_NE(missing.find("field 'reference.cpu.source': missing"), std::string::npos) << missing;
  const std::string not_found = error_with("[reference.cpu]\nsource = \"nope.cpp\"\n");
  EXPECT_NE(not_found.find("field 'reference.cpu.source': file not found"), std::string::npos) << not_found;
  const std::string not_a_number = error_with("[reference.cpu]\nsource = \"seeds/cpu.cpp\"\nabove_flops = \"big\"\n");
  EXPECT_NE(not_a_number.find("field 'reference.cpu.above_flops': expected a number"), std::string::npos) << not_a_number;
  const std::string negative = error_with("[reference.cpu]\nsource = \"seeds/cpu.cpp\"\nabove_flops = -1\n");
  EXPECT_NE(negative.find("field 'reference.cpu.above_flops': must be at least 0"), std::string::npos) << negative;
  const std::string unknown = error_with("[reference.cpu]\nsource = \"seeds/cpu.cpp\"\nthreshold = 1\n");
  EXPECT_NE(unknown.find("field 'reference.cpu.threshold': unknown field"), std::string::npos) << unknown;
  const std::string no_entry = error_with("[reference.cuda]\nsource = \"seeds/cpu.cpp\"\n");
  EXPECT_NE(no_entry.find("field 'reference.cuda': the task has no [entry.cuda]"), std::string::npos) << no_entry;
  const std::string not_a_table = load_error(replaced(text, "source = \"reference.cpp\"", "source = \"reference.cpp\"\ncpu = \"seeds/cpu.cpp\""));
  EXPECT_NE(not_a_table.find("field 'reference.cpu': expected 'source' or a table"), std::string::npos) << not_a_table;
}

// A dimension is a positive integer on every workload, visible or held out, checked when the file loads: division by
// zero, a negative or fractional size or no dimension at all would otherwise reach the allocation of the tensors.
TEST(Tasks, EveryDimensionOfEveryWorkloadIsAPositiveInteger) {
  const std::string text = tiny_text();
  const auto shape_error = [&](const std::string& shape) {
    return load_error(replaced(text, "shape = [\"rows\", \"cols\"]\ndist", "shape = " + shape + "\ndist"));
  };
  const std::string div0 = shape_error("[\"rows / 0\", \"cols\"]");
  EXPECT_NE(div0.find("task.toml:"), std::string::npos) << div0;
  EXPECT_NE(div0.find("workloads(r64_c256)"), std::string::npos) << div0;
  EXPECT_NE(div0.find("dimension 'rows / 0' of 'x' is inf"), std::string::npos) << div0;
  // Only the held-out workload (5 rows) goes negative: it is checked as well, before any work.
  const std::string negative = shape_error("[\"rows - 10\", \"cols\"]");
  EXPECT_NE(negative.find("workloads(held_r5_c777)"), std::string::npos) << negative;
  EXPECT_NE(negative.find("is -5, not positive"), std::string::npos) << negative;
  EXPECT_NE(shape_error("[\"rows - 64\", \"cols\"]").find("is 0, not positive"), std::string::npos);
  EXPECT_NE(shape_error("[\"rows\", \"cols / 3\"]").find("not an integer"), std::string::npos);
  EXPECT_NE(shape_error("[]").find("inputs(x).shape': needs at least one dimension"), std::string::npos);
  const std::string unknown = shape_error("[\"rowz\", \"cols\"]");
  // A name that is no axis or param (a tensor's included) is an error of the tensor's shape field, with its line.
  EXPECT_NE(unknown.find("task.toml:13: field 'inputs(x).shape': 'rowz': unknown axis or parameter 'rowz'"), std::string::npos) << unknown;
  const std::string tensor = load_error(replaced(text, "shape = [\"rows\", \"cols\"]\n\n[tolerance]", "shape = [\"rows\", \"x\"]\n\n[tolerance]"));
  EXPECT_NE(tensor.find("field 'outputs(y).shape': 'x': unknown axis or parameter 'x'"), std::string::npos) << tensor;
  // A per-workload shape override is checked too.
  const std::string override_error =
      load_error(replaced(text, "axes = { rows = 16, cols = 1000 }", "axes = { rows = 16, cols = 1000 }\nshapes = { y = [\"rows - 17\", \"cols\"] }"));
  EXPECT_NE(override_error.find("dimension 'rows - 17' of 'y' is -1"), std::string::npos) << override_error;
  // Axes: at most 2^53, where doubles stop holding every integer (INT64_MAX used to wrap to INT64_MIN).
  const auto axes_error = [&](const std::string& axes) {
    return load_error(replaced(text, "axes = { rows = 64, cols = 256 }", "axes = { " + axes + " }"));
  };
  EXPECT_NE(axes_error("rows = 9223372036854775807, cols = 2").find("workloads(r64_c256).axes.rows': must be a positive integer of at most 2^53"),
            std::string::npos);
  EXPECT_EQ(axes_error("rows = 9007199254740992, cols = 1").find("at most 2^53"), std::string::npos);  // too big, not invalid
  // 2^32 x 2^32 elements overflow 64 bits; half a terabyte exceeds the byte limit.
  const std::string overflow = axes_error("rows = 4294967296, cols = 4294967296");
  EXPECT_NE(overflow.find("more than 2^64"), std::string::npos) << overflow;
  const std::string huge = axes_error("rows = 500000, cols = 500000");
  EXPECT_NE(huge.find("workload 'r64_c256' needs 5587.9 GiB of tensors, more than the limit"), std::string::npos) << huge;
  // A task changed in memory is checked where its shapes are used.
  Task in_memory = load_task(write_task("shapes", text));
  in_memory.workloads.front().shapes["x"] = {"rows - 100", "cols"};
  EXPECT_THROW(generate_inputs(in_memory, in_memory.workloads.front(), 1), Error);
}

// Every built-in and test task fits the byte limit of the smallest machine that runs the tests (24 GiB: 12 GiB).
TEST(Tasks, EveryTaskFitsTheByteLimitOfA24GiBMachine) {
  EXPECT_GT(workload_byte_limit(), uint64_t(1) << 30);
  std::vector<Task> tasks = list_builtin_tasks();
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(KSEARCH_TEST_DATA) / ".."))
    if (entry.path().filename() == "task.toml" && entry.path().parent_path().parent_path().filename() == "tasks")
      tasks.push_back(load_task(entry.path()));
  EXPECT_GT(tasks.size(), 20u);
  for (const auto& task : tasks)
    for (const auto& w : task.workloads) EXPECT_LE(task.tensor_bytes(w), uint64_t(12) << 30) << task.name << " " << w.name;
}

// Tensors, axes and params share one namespace (entry arguments and expressions name them); every backend needs a
// visible workload to optimize on.
TEST(Tasks, NamesAreDistinctAndEveryBackendHasAVisibleWorkload) {
  const std::string text = tiny_text();
  const std::string second_input =
      load_error(replaced(text, "[[outputs]]", "[[inputs]]\nname = \"x\"\ndtype = \"f32\"\nshape = [\"rows\"]\n\n[[outputs]]"));
  EXPECT_NE(second_input.find("field 'inputs(x)': 'x' is already the name of an input"), std::string::npos) << second_input;
  const std::string output = load_error(replaced(text, "name = \"y\"", "name = \"x\""));
  EXPECT_NE(output.find("field 'outputs(x)': 'x' is already the name of an input"), std::string::npos) << output;
  const std::string axis = load_error(replaced(text, "name = \"x\"", "name = \"rows\""));
  EXPECT_NE(axis.find("field 'inputs(rows)': 'rows' is already the name of an axis"), std::string::npos) << axis;
  const std::string param =
      load_error(replaced(text, "[[inputs]]", "[[params]]\nname = \"cols\"\ndtype = \"i32\"\n\n[[inputs]]"));
  EXPECT_NE(param.find("field 'params(cols)': 'cols' is already the name of an axis"), std::string::npos) << param;
  std::string held = text;
  for (const char* axes : {"axes = { rows = 64, cols = 256 }", "axes = { rows = 16, cols = 1000 }"})
    held = replaced(held, axes, std::string(axes) + "\nheld_out = true");
  const std::string all_held = load_error(held);
  EXPECT_NE(all_held.find("no visible workload runs on backend 'cpu'"), std::string::npos) << all_held;
  const std::string with_cuda = text + "\n[entry.cuda]\nfunction = \"softmax\"\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\nseed = \"seeds/cpu.cpp\"\n";
  const std::string elsewhere = load_error(replaced(replaced(with_cuda, "axes = { rows = 64, cols = 256 }", "axes = { rows = 64, cols = 256 }\nbackends = [\"cuda\"]"),
                                                    "axes = { rows = 16, cols = 1000 }", "axes = { rows = 16, cols = 1000 }\nbackends = [\"cuda\"]"));
  EXPECT_NE(elsewhere.find("no visible workload runs on backend 'cpu'"), std::string::npos) << elsewhere;
}

// Values that load but would mislead every run (a NaN tolerance fails every element; a negative or infinite cost
// makes the roofline meaningless), names that would escape a folder or break generated code, and an entry that
// cannot write an output: each is refused with the field that holds it.
TEST(Tasks, ValuesNamesAndEntriesThatWouldMisleadOrBreakARunAreRefused) {
  const std::string text = tiny_text();
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& expected) {
    const std::string error = load_error(replaced(text, from, to));
    EXPECT_NE(error.find(expected), std::string::npos) << from << " -> " << to << ": " << error;
  };
  refused("rtol = 1e-3", "rtol = nan", "rtol must be in [0, 0.5)");
  refused("atol = 1e-8", "atol = inf", "rtol must be in [0, 0.5) and atol >= 0");
  refused("flops = \"5 * rows * cols\"", "flops = \"-5 * rows\"", "field 'cost.flops': '-5 * rows' is -320 on workload 'r64_c256'");
  refused("bytes = \"8 * rows * cols\"", "bytes = \"10^400\"", "'10^400' is inf");
  refused("name = \"tiny_softmax\"", "name = \"../../etc\"", "field 'task.name': '../../etc' starts with '.'");
  refused("name = \"tiny_softmax\"", "name = \"a/b\"", "holds '/'");
  refused("name = \"tiny_softmax\"", "name = \"\"", "'' is empty");
  refused("name = \"r64_c256\"", "name = \"r64 c256\"", "workloads(r64 c256).name': 'r64 c256' holds ' '");
  refused("name = \"x\"", "name = \"x y\"", "'x y' is not a name");
  refused("name = \"y\"", "name = \"2y\"", "'2y' is not a name");
  refused("function = \"softmax\"", "function = \"soft max;\"", "field 'entry.cpu.function': 'soft max;' is not a C function name");
  refused("args = [\"x\", \"y\", \"rows\", \"cols\"]", "args = [\"x\", \"rows\", \"cols\"]", "the output 'y' is not passed");
  refused("args = [\"x\", \"y\", \"rows\", \"cols\"]", "args = [\"x\", \"y\", \"rows\", \"rows\"]", "'rows' is passed twice");
  refused("axes = { rows = 64, cols = 256 }", "axes = { rows = 64, cols = 256 }\nbackends = [\"cdua\"]",
          "field 'workloads(r64_c256).backends': 'cdua' has no [entry.cdua] in this task");
  // What the checks must let through: names with '-' and '.', a zero cost, a file task name with digits.
  EXPECT_EQ(load_error(replaced(replaced(replaced(text, "name = \"tiny_softmax\"", "name = \"tiny-softmax.v2\""),
                                         "name = \"r64_c256\"", "name = \"r64-c256.a\""),
                                "flops = \"5 * rows * cols\"", "flops = \"0\"")),
            "");
}

// The reference is the task author's code: run in a child process, a crash, an exit(), an endless loop or an
// exception in it is an error that names it (the task's, `ksearch` exits 2), and ksearch goes on.
TEST(Reference, CrashesExitsHangsAndExceptionsAreTheTasksErrors) {
  const std::string header = "#include \"ksearch/reference.h\"\n#include <cstdlib>\n#include <stdexcept>\n";
  const auto failure = [&](const std::string& body, const std::string& toml) -> std::string {
    const Task task = load_task(write_task("reference", toml, header + "extern \"C\" void ks_reference(const ks_reference_args*) { " + body + " }\n"));
    const Workload& w = task.workloads.front();
    try {
      reference_outputs(task, w, 7, generate_inputs(task, w, 7));
    } catch (const ReferenceError& e) {
      return e.what();
    }
    return "";
  };
  const std::string text = tiny_text();
  const std::string segv = failure("volatile int* p = nullptr; *p = 1;", text);
  EXPECT_NE(segv.find("the reference of task 'tiny_softmax' crashed (signal 11"), std::string::npos) << segv;
  EXPECT_NE(segv.find("on workload 'r64_c256'"), std::string::npos) << segv;
  EXPECT_NE(failure("std::abort();", text).find("crashed (signal 6"), std::string::npos);
  const std::string exited = failure("std::exit(0);", text);
  EXPECT_NE(exited.find("ended the process (exit status 0) before returning"), std::string::npos) << exited;
  const std::string threw = failure("throw std::runtime_error(\"boom\");", text);
  EXPECT_NE(threw.find("the reference of task 'tiny_softmax' failed on workload 'r64_c256': boom"), std::string::npos) << threw;
  const auto start = std::chrono::steady_clock::now();
  const std::string hung = failure("for (volatile int i = 0;; i = i + 1) {}", replaced(text, "source = \"reference.cpp\"", "source = \"reference.cpp\"\ntimeout = 0.5"));
  EXPECT_NE(hung.find("did not finish within 0.5 s"), std::string::npos) << hung;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));  // the compilation included
  EXPECT_NE(load_error(replaced(text, "source = \"reference.cpp\"", "source = \"reference.cpp\"\ntimeout = 0")).find("reference.timeout"),
            std::string::npos);
  // A reference that compiles but misnames its function is an error naming its file and the function it lacks.
  const Task misnamed = load_task(write_task("misnamed", text, header + "extern \"C\" void ks_ref(const ks_reference_args*) {}\n"));
  try {
    reference_outputs(misnamed, misnamed.workloads.front(), 7, generate_inputs(misnamed, misnamed.workloads.front(), 7));
    ADD_FAILURE() << "a reference without ks_reference ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("misnamed/reference.cpp) does not define extern \"C\" void ks_reference("), std::string::npos)
        << e.what();
  }
  // The real reference still runs, and writes every output.
  const Task good = load_task(write_task("reference", text));
  const auto outputs = reference_outputs(good, good.workloads.back(), 7, generate_inputs(good, good.workloads.back(), 7));
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].size(), 5u * 777u);
  double row_sum = 0;
  for (size_t c = 0; c < 777; ++c) row_sum += outputs[0][c];
  EXPECT_NEAR(row_sum, 1.0, 1e-12);
}
