// ksearch report / export: a run store filled through the RunStore API (no search), rendered and
// exported; the page is also screenshotted by headless Chromium and the PNG decoded.
#include <gtest/gtest.h>
#include <png.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "evaluator/evaluator.hpp"
#include "proposers/world_model.hpp"
#include "report/report.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

#ifdef KSEARCH_TEST_METAL_PARSE
#include "backends/metal/candidate.hpp"
#endif

using ksearch::evaluator::EvalReport;
using ksearch::evaluator::WorkloadResult;
using ksearch::tasks::load_task;

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ksearch;

namespace {

const fs::path kTaskDir = fs::path(KSEARCH_TEST_DATA_DIR) / "tasks/tiny_softmax";

// The passing best kernel: its comment and condition hold the characters HTML must escape.
const char* kBestSource = R"(// Fused pass: online max & sum <script>alert("x")</script>
#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols && cols > 0; ++c) {
      const float v = xr[c];
      if (v > m) { s *= std::exp(m - v); m = v; }
      s += std::exp(v - m);
    }
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
}
)";

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int run_shell(const std::string& command) {
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

EvalReport make_report(const std::string& status, double speedup, bool held_out) {
  EvalReport r;
  r.task = "tiny_softmax";
  r.backend = "cpu";
  r.status = parse_status(status);
  r.timed = status == "passed";
  r.speedup_vs_seed = speedup;
  r.roofline_fraction = 0.25 * speedup;
  if (status != "passed") {
    r.message = "candidate.cpp:3: error: expected ';' before '}' token";
    return r;
  }
  const std::vector<std::string> names = held_out ? std::vector<std::string>{"held_r5_c777"} : std::vector<std::string>{"r64_c256", "r16_c1000"};
  for (const auto& name : names) {
    WorkloadResult w;
    w.name = name;
    w.held_out = held_out;
    w.ran = true;
    w.status = Status::passed;
    w.max_abs_err = 3.5e-8;
    w.max_rel_err = 1.25e-6;
    w.timing.median = 0.04 / speedup;
    w.timing.p10 = 0.039 / speedup;
    w.timing.p90 = 0.042 / speedup;
    w.timing.samples = 20;
    w.seed_ms = 0.04;
    w.speedup_vs_seed = speedup;
    w.roofline_ms = 0.01;
    w.roofline_fraction = w.roofline_ms / w.timing.median;
    r.workloads.push_back(w);
  }
  return r;
}

world_model::WorldModel make_world_model() {
  world_model::WorldModel m;
  m.kernel_summary = "Row-wise softmax on the host CPU";
  m.root_id = "n0";
  m.active_leaf_id = "n1";
  world_model::Node root;
  root.node_id = "n0";
  root.choice = "the seed";
  root.solution = world_model::Solution{"c1", "passed", 1.0, 0.04, 0.25, {}};
  world_model::Node n1;
  n1.node_id = "n1";
  n1.parent_id = "n0";
  n1.decision = "pass structure";
  n1.choice = "online max and sum";
  n1.action = world_model::Action{"Fuse max & sum into one <online> pass", "Track the running max and rescale the sum.", 2, 0.7, 2.0,
                              "Halves the reads of x"};
  n1.solution = world_model::Solution{"c2", "passed", 2.5, 0.016, 0.62, {}};
  n1.attempts = 2;
  n1.cycles = 1;
  world_model::Node n2;
  n2.node_id = "n2";
  n2.parent_id = "n0";
  n2.action = world_model::Action{"Vectorize the exponential", "", 3, 0.6, 1.8, ""};
  world_model::Node n3;
  n3.node_id = "n3";
  n3.parent_id = "n1";
  n3.action = world_model::Action{"Split rows across threads", "", 2, 0.5, 1.5, ""};
  n3.too_hard = true;
  n3.solution = world_model::Solution{"c3", "compile_error", 0, 0, 0, {}};
  m.nodes = {root, n1, n2, n3};
  return m;
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ksearch-report-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // A finished 2-round run: seed c1, best c2 (2.5x, held-out passed), c3 failed to compile, c4 1.8x.
  fs::path make_run(bool with_pass = true, const std::string& backend = "cpu", const fs::path& task_file = "") {
    const fs::path run = dir_ / "run";
    store::RunInfo info;
    info.task_name = "tiny_softmax";
    info.task_file = task_file.empty() ? (fs::path(kTaskDir) / "task.toml").string() : task_file.string();
    info.task_hash = load_task(info.task_file).content_hash;
    info.backend = backend;
    info.config = {{"proposer", {{"name", "builtin"}}}, {"search", {{"rounds", 2}, {"parallel", 2}}}};
    auto store = store::RunStore::create(run, info);
    auto add = [&](int round, const std::string& node, int64_t parent, const std::string& source, const std::string& status,
                   double speedup) {
      store::Candidate c;
      c.round = round;
      c.node_id = node;
      c.parent_id = parent;
      c.proposer = round == 0 ? "seed" : "builtin";
      c.source = source;
      c.source_hash = std::to_string(std::hash<std::string>{}(source));
      c.note = round == 0 ? "the task's seed" : "attempt at " + node;
      const int64_t id = store.add_candidate(c);
      const EvalReport r = make_report(status, speedup, false);
      store.record_evaluation(id, r.to_json(), status, speedup, r.mean_median_ms(), r.roofline_fraction, 0.5, 1.0);
      return id;
    };
    const std::string seed = read(fs::path(kTaskDir) / "seeds/cpu.cpp");
    const std::string pass_status = with_pass ? "passed" : "wrong_answer";
    add(0, "n0", 0, seed, pass_status, 1.0);
    const int64_t best = add(1, "n1", 0, kBestSource, pass_status, 2.5);
    add(1, "n3", best, "extern \"C\" void softmax( { broken", "compile_error", 0);
    add(2, "n2", 0, seed + "// vectorized\n", pass_status, 1.8);
    json final = {{"candidate", 0}, {"held_out_passed", nullptr}, {"checked", json::array()}};
    if (with_pass) {
      final = {{"candidate", best},
               {"held_out_passed", true},
               {"held_out_speedup", 2.4},
               {"checked", {{{"candidate", best}, {"status", "passed"}, {"report", make_report("passed", 2.4, true).to_json()}}}}};
    }
    store.save_state({{"phase", "done"},
                      {"round", 2},
                      {"cycle", 2},
                      {"elapsed_seconds", 42.0},
                      {"stop_reason", "round budget spent"},
                      {"best", with_pass ? json{{"candidate", best}, {"speedup", 2.5}} : json()},
                      // The finalists' re-timing (search: retime phase): c2 and c4 overlap.
                      {"retiming", with_pass ? json{{"rounds", 5}, {"confidence", 0.95}, {"tied", true}, {"noisy", false},
                                                    {"candidates", {{{"candidate", best}, {"passed", true},
                                                                     {"speedup", {{"estimate", 2.45}, {"low", 2.3}, {"high", 2.6}, {"samples", 5}}}},
                                                                    {{"candidate", best + 2}, {"passed", true},
                                                                     {"speedup", {{"estimate", 2.2}, {"low", 2.0}, {"high", 2.35}, {"samples", 5}}}}}}}
                                             : json()},
                      {"final", final}});
    store.save_world_model(0, "initialize", world_model::WorldModel().to_json());
    store.save_world_model(2, "final", make_world_model().to_json());
    store.add_event(2, "message", "held-out check of c2: passed (2.40x vs seed) <ok>");
    return run;
  }

  fs::path dir_;
};

TEST(HtmlEscape, EscapesMarkupCharacters) {
  EXPECT_EQ(report::html_escape("a < b && c > \"d\" 'e'"), "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(report::html_escape("plain"), "plain");
}

TEST_F(ReportTest, PageHasPlotTableTreeSourceAndCandidates) {
  const fs::path run = make_run();
  const fs::path page = report::write_report(run);
  EXPECT_EQ(page, fs::absolute(run).lexically_normal() / "report.html");
  const std::string html = read(page);

  // Source escaped: the comment's tags and the loop's operators appear only as entities.
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("c &lt; cols &amp;&amp; cols &gt; 0"), std::string::npos);
  EXPECT_NE(html.find("<pre id=\"best-source\""), std::string::npos);

  // Plot: inline SVG with the best-so-far line and a point per passing candidate.
  EXPECT_NE(html.find("<svg id=\"progress\""), std::string::npos);
  EXPECT_NE(html.find("id=\"best-line\""), std::string::npos);
  EXPECT_NE(html.find("class=\"pt-fail\""), std::string::npos);

  // Workload table: visible and held-out rows of the best candidate.
  const size_t table = html.find("<table id=\"workloads\">");
  ASSERT_NE(table, std::string::npos);
  const std::string workloads = html.substr(table, html.find("</table>", table) - table);
  EXPECT_NE(workloads.find("<td>r64_c256</td><td>visible</td>"), std::string::npos);
  EXPECT_NE(workloads.find("<td>r16_c1000</td><td>visible</td>"), std::string::npos);
  EXPECT_NE(workloads.find("<td>held_r5_c777</td><td>held-out</td>"), std::string::npos);
  EXPECT_NE(workloads.find("2.50×"), std::string::npos);
  EXPECT_NE(workloads.find("2.40×"), std::string::npos);

  // World-model tree: every node, with its (escaped) action and outcome.
  for (const char* id : {"node-n0", "node-n1", "node-n2", "node-n3"}) EXPECT_NE(html.find(std::string("<li id=\"") + id), std::string::npos) << id;
  EXPECT_NE(html.find("Fuse max &amp; sum into one &lt;online&gt; pass"), std::string::npos);
  EXPECT_NE(html.find("class=\"node closed ok\""), std::string::npos);
  EXPECT_NE(html.find("class=\"node frontier\""), std::string::npos);
  EXPECT_NE(html.find("too hard"), std::string::npos);

  // Candidates: one row each; the best is highlighted.
  for (const char* id : {"c1", "c2", "c3", "c4"}) EXPECT_NE(html.find(std::string("<tr id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("<tr id=\"c2\" class=\"best\">"), std::string::npos);
  EXPECT_NE(html.find("expected &#39;;&#39; before &#39;}&#39; token"), std::string::npos);

  // The finalists' re-timing: the best's interval in a card, the table, the tie said in words.
  EXPECT_NE(html.find("re-timed<b>2.45× [2.30, 2.60]</b>"), std::string::npos);
  EXPECT_NE(html.find("<h2 id=\"finalists\">Finalists, re-timed</h2>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"finalists-table\">"), std::string::npos);
  EXPECT_NE(html.find("c2 and c4 are statistically tied"), std::string::npos);
  EXPECT_NE(html.find("[2.00, 2.35]"), std::string::npos);

  // Configuration and log.
  EXPECT_NE(html.find("<table id=\"config\">"), std::string::npos);
  EXPECT_NE(html.find("round budget spent"), std::string::npos);
  EXPECT_NE(html.find("passed (2.40x vs seed) &lt;ok&gt;"), std::string::npos);

  // Self-contained: no external scripts, styles, images or fonts.
  for (const char* external : {"<script src", "<link", "src=\"http", "href=\"http", "url(", "@import"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
}

TEST_F(ReportTest, RunWithoutPassingCandidate) {
  const fs::path run = make_run(false);
  const std::string html = read(report::write_report(run));
  EXPECT_NE(html.find("No candidate has passed"), std::string::npos);
  EXPECT_NE(html.find("No timed passing candidate yet."), std::string::npos);
  EXPECT_THROW(report::export_bundle(report::load_run(run)), report::NothingToExport);
}

TEST_F(ReportTest, FreshRunWithoutStateOrCandidates) {
  const fs::path run = dir_ / "fresh";
  store::RunInfo info;
  info.task_name = "tiny_softmax";
  info.task_file = (fs::path(kTaskDir) / "task.toml").string();
  info.backend = "cpu";
  store::RunStore::create(run, info);
  const std::string html = read(report::write_report(run));
  EXPECT_NE(html.find("No candidates yet."), std::string::npos);
  EXPECT_NE(html.find("No world-model snapshot was saved."), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"progress\""), std::string::npos);
  EXPECT_THROW(report::export_bundle(report::load_run(run)), report::NothingToExport);
}

TEST_F(ReportTest, NotARunDirectory) {
  try {
    report::load_run(dir_);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a run directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(report::load_run(dir_ / "missing"), Error);
}

TEST_F(ReportTest, CpuExportCompiles) {
  const report::ExportBundle b = report::export_bundle(report::load_run(make_run()));
  ASSERT_EQ(b.files.size(), 1u);
  EXPECT_EQ(b.files[0].name, "tiny_softmax.cpp");
  const std::string& text = b.files[0].contents;
  EXPECT_NE(text.find("// Entry point (backend cpu):"), std::string::npos);
  EXPECT_NE(text.find("extern \"C\" void softmax(const float* x, float* y, int64_t rows, int64_t cols)"), std::string::npos);
  EXPECT_NE(text.find("visible workloads: r64_c256 (passed), r16_c1000 (passed)"), std::string::npos);
  EXPECT_NE(text.find("held-out workloads: passed (held_r5_c777 (passed)), 2.40x vs seed"), std::string::npos);
  EXPECT_NE(text.find("speedup vs the task's seed: 2.50x"), std::string::npos);
  EXPECT_NE(text.find(kBestSource), std::string::npos);

  // The header's build line is the evaluator's compiler and flags (C++20, -O3, -march, OpenMP), and
  // it builds the exported file exactly as written, in the folder the file is in.
  const std::string intro = "Build as a shared library (the compiler and flags ksearch built and timed it with):\n//   ";
  const size_t at = text.find(intro);
  ASSERT_NE(at, std::string::npos) << text;
  const std::string line = text.substr(at + intro.size(), text.find('\n', at + intro.size()) - at - intro.size());
  EXPECT_TRUE(line.starts_with("g++ -std=c++20 -O3 -march=")) << line;
  EXPECT_NE(line.find(" -fopenmp "), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with("-fPIC -shared tiny_softmax.cpp -o libtiny_softmax.so")) << line;
  EXPECT_NE(b.note.find(line), std::string::npos) << b.note;
  std::ofstream(dir_ / b.files[0].name) << text;
  ASSERT_EQ(run_shell("cd " + dir_.string() + " && " + line), 0) << line;
  // The library defines the unmangled entry point.
  EXPECT_EQ(run_shell("nm -D " + (dir_ / "libtiny_softmax.so").string() + " | grep -q ' T softmax$'"), 0);
}

// A copy of tiny_softmax with metal and cuda entries, so that those exports have signatures.
fs::path task_with_gpu_entries(const fs::path& dir) {
  const fs::path task = dir / "task";
  fs::create_directories(task / "seeds");
  // tiny_softmax uses the softmax task's reference and seed; the copy holds its own.
  const fs::path softmax = ksearch::builtin_tasks_dir() / "softmax";
  fs::copy_file(softmax / "reference.cpp", task / "reference.cpp");
  fs::copy_file(softmax / "seeds/cpu.cpp", task / "seeds/cpu.cpp");
  std::string toml = read(fs::path(kTaskDir) / "task.toml");
  const std::string relative = "../../../../tasks/softmax/";
  for (size_t pos; (pos = toml.find(relative)) != std::string::npos;) toml.erase(pos, relative.size());
  std::ofstream(task / "seeds/metal.metal") << "// grid: rows, 1, 1\n// threadgroup: 1, 1, 1\nuint r = thread_position_in_grid.x;\n";
  std::ofstream(task / "seeds/cuda.cu") << "#include <cuda_runtime.h>\n";
  std::ofstream(task / "task.toml") << toml
                                   << "\n[entry.metal]\nfunction = \"softmax\"\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\nseed = \"seeds/metal.metal\"\n"
                                   << "\n[entry.cuda]\nfunction = \"softmax\"\nargs = [\"x\", \"y\", \"rows\", \"cols\"]\nseed = \"seeds/cuda.cu\"\n";
  return task / "task.toml";
}

TEST_F(ReportTest, MetalExportKeepsDirectivesAndBody) {
  report::RunData run = report::load_run(make_run(true, "metal", task_with_gpu_entries(dir_)));
  const std::string kernel =
      "// Two-pass softmax, one thread per row.\n// grid: rows, 1, 1\n// threadgroup: 1, 1, 1\n"
      "// --- body ---\nuint r = thread_position_in_grid.x;\nif (r < rows && cols > 0) { y[r * cols] = 1.0f; }\n";
  for (auto& c : run.candidates)
    if (c.id == run.summary.best_candidate) c.source = kernel;
  const report::ExportBundle b = report::export_bundle(run);
  ASSERT_EQ(b.files.size(), 1u);
  EXPECT_EQ(b.files[0].name, "tiny_softmax.metal");
  const std::string& text = b.files[0].contents;
  EXPECT_NE(text.find("mx.fast.metal_kernel(name=\"softmax\", input_names=[\"x\", \"rows\", \"cols\"], output_names=[\"y\"]"),
            std::string::npos);
  EXPECT_NE(text.find(kernel), std::string::npos);
#ifdef KSEARCH_TEST_METAL_PARSE
  // The header is only prose to the directive parser: the export is still a valid candidate.
  const metal::Candidate parsed = metal::parse_candidate(text);
  EXPECT_EQ(parsed.grid, (std::vector<std::string>{"rows", "1", "1"}));
  EXPECT_EQ(parsed.body, "uint r = thread_position_in_grid.x;\nif (r < rows && cols > 0) { y[r * cols] = 1.0f; }\n");
#endif
}

// --format mlx: a Python module with the body verbatim and the launch computed from the shapes
// (tests/python/test_export_mlx.py imports and runs such modules); other backends' runs refuse it.
TEST_F(ReportTest, MlxFormatWritesAPythonModuleForMetalRunsOnly) {
  report::RunData run = report::load_run(make_run(true, "metal", task_with_gpu_entries(dir_)));
  for (auto& c : run.candidates)
    if (c.id == run.summary.best_candidate) c.source = "// grid: rows, 1, 1\n// threadgroup: 1, 1, 1\nuint r = thread_position_in_grid.x;\n";
  const report::ExportBundle b = report::export_bundle(run, "mlx");
  ASSERT_EQ(b.files.size(), 1u);
  EXPECT_EQ(b.files[0].name, "tiny_softmax_mlx.py");
  const std::string& text = b.files[0].contents;
  EXPECT_NE(text.find("def softmax(x, *, stream=None):"), std::string::npos) << text;
  EXPECT_NE(text.find("SOURCE = r'''uint r = thread_position_in_grid.x;\n'''"), std::string::npos) << text;
  EXPECT_NE(text.find("grid=(_launch(rows, \"grid\"), _launch(1, \"grid\"), _launch(1, \"grid\"))"), std::string::npos) << text;
  EXPECT_NE(text.find("# Verified by ksearch"), std::string::npos) << text;
  try {
    report::export_bundle(run, "mlx-lm");
    ADD_FAILURE() << "mlx-lm export of a softmax";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x, delta, A, B, C, D, state -> y, new_state"), std::string::npos) << e.what();
  }
  run.info.backend = "cuda";
  try {
    report::export_bundle(run, "mlx");
    ADD_FAILURE() << "mlx export of a cuda run";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown export format 'mlx' for the cuda backend"), std::string::npos) << e.what();
  }
}

TEST_F(ReportTest, CudaExportHasCAbiEntry) {
  const report::ExportBundle b = report::export_bundle(report::load_run(make_run(true, "cuda", task_with_gpu_entries(dir_))));
  ASSERT_FALSE(b.files.empty());
  EXPECT_EQ(b.files[0].name, "tiny_softmax.cu");
  const std::string& text = b.files[0].contents;
  EXPECT_NE(text.find("// Entry point (backend cuda):"), std::string::npos);
  EXPECT_NE(text.find("extern \"C\" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream)"),
            std::string::npos);
  EXPECT_NE(text.find(kBestSource), std::string::npos);
#ifdef KSEARCH_HAVE_CUDA_EXPORT
  bool torch = false;
  for (const auto& f : b.files) torch |= f.contents.find("PYBIND11_MODULE") != std::string::npos;
  EXPECT_TRUE(torch) << "the cuda backend's bundle includes the PyTorch extension";
#endif
}

TEST_F(ReportTest, CommandLine) {
  const std::string ksearch = KSEARCH_EXECUTABLE;
  EXPECT_EQ(run_shell(ksearch + " report " + dir_.string() + " 2>/dev/null"), 2);
  EXPECT_EQ(run_shell(ksearch + " export " + (dir_ / "missing").string() + " 2>/dev/null"), 2);
  const fs::path run = make_run();
  EXPECT_EQ(run_shell(ksearch + " report " + run.string() + " > " + (dir_ / "out.txt").string()), 0);
  EXPECT_EQ(read(dir_ / "out.txt"), (fs::absolute(run).lexically_normal() / "report.html").string() + "\n");
  EXPECT_EQ(run_shell(ksearch + " export " + run.string() + " --out " + (dir_ / "k/kernel.cpp").string() + " > /dev/null 2>&1"), 0);
  EXPECT_NE(read(dir_ / "k/kernel.cpp").find("extern \"C\" void softmax("), std::string::npos);
  EXPECT_EQ(run_shell(ksearch + " export " + run.string() + " > /dev/null 2>&1"), 0);
  EXPECT_TRUE(fs::exists(run / "export/tiny_softmax.cpp"));

  fs::remove_all(run);
  make_run(false);
  EXPECT_EQ(run_shell(ksearch + " export " + run.string() + " > /dev/null 2>" + (dir_ / "err.txt").string()), 1);
  EXPECT_NE(read(dir_ / "err.txt").find("nothing to export"), std::string::npos);
}

// A run folder the user may not write: reading it works (show, export elsewhere); writing it
// (report, resume, export into it, a new run under it) fails with the path, the system's reason and
// exit code 4, not "internal error". As root, the commands run as nobody (root writes anything).
TEST_F(ReportTest, ReadOnlyRunFoldersReadAndRefuseWritesWithExitCode4) {
  const std::string ksearch = KSEARCH_EXECUTABLE;
  const fs::path run = make_run();
  const fs::path out = dir_ / "elsewhere";
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);  // writable by the unprivileged user too
  const bool root = ::geteuid() == 0;
  const std::string as_user = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (!root) fs::permissions(run, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  const fs::path err = out / "err.txt";
  auto ksearch_as_user = [&](const std::string& args) {
    return run_shell(as_user + "env KSEARCH_CACHE_DIR=" + (out / "cache").string() + " " + ksearch + " " + args + " > /dev/null 2> " +
                     err.string());
  };
  EXPECT_EQ(ksearch_as_user("show " + run.string()), 0) << read(err);
  EXPECT_EQ(ksearch_as_user("export " + run.string() + " --out " + out.string()), 0) << read(err);
  EXPECT_TRUE(fs::exists(out / "tiny_softmax.cpp"));

  EXPECT_EQ(ksearch_as_user("report " + run.string()), 4);
  EXPECT_NE(read(err).find("ksearch: error: cannot write " + (fs::absolute(run).lexically_normal() / "report.html").string()),
            std::string::npos) << read(err);
  EXPECT_EQ(ksearch_as_user("resume " + run.string()), 4);
  EXPECT_NE(read(err).find("cannot write the run folder " + run.string()), std::string::npos) << read(err);
  EXPECT_EQ(ksearch_as_user("export " + run.string()), 4);
  EXPECT_NE(read(err).find("cannot create the export folder " + (fs::absolute(run).lexically_normal() / "export").string()),
            std::string::npos) << read(err);
  EXPECT_EQ(ksearch_as_user("run --task " + (kTaskDir / "task.toml").string() + " --backend cpu --agent --out " + (run / "sub").string()), 4);
  EXPECT_NE(read(err).find("cannot create the run folder " + (run / "sub").string()), std::string::npos) << read(err);
  EXPECT_EQ(read(err).find("internal error"), std::string::npos) << read(err);
  if (!root) fs::permissions(run, fs::perms::owner_all, fs::perm_options::add);
}

// A run.db that is not a run (junk, or an empty file) is named as such by every command that opens
// a run, and left as it was.
TEST_F(ReportTest, ARunDbThatIsNotARunIsAClearErrorEverywhere) {
  const std::string ksearch = KSEARCH_EXECUTABLE;
  const fs::path err = dir_ / "err.txt";
  for (const std::string contents : {std::string("a text file, not a database, long enough to have a header...."), std::string()}) {
    const fs::path run = dir_ / "bogus";
    fs::create_directories(run);
    std::ofstream(run / "run.db") << contents;
    for (const std::string command : {"show", "report", "export", "resume", "agent next", "agent submit"}) {
      SCOPED_TRACE(command + (contents.empty() ? " (empty run.db)" : " (junk run.db)"));
      const std::string args = command == "agent submit" ? " " + (kTaskDir / "task.toml").string() : "";
      EXPECT_EQ(run_shell(ksearch + " " + command + " " + run.string() + args + " > /dev/null 2> " + err.string()), 2);
      EXPECT_NE(read(err).find((run / "run.db").string() + " is not a ksearch run"), std::string::npos) << read(err);
    }
    EXPECT_EQ(read(run / "run.db"), contents);
    fs::remove_all(run);
  }
}

// Distinct colors of a PNG, and the share of pixels that are not white (libpng, 8-bit RGBA).
struct PngStats {
  int width = 0, height = 0;
  size_t colors = 0;
  double non_white = 0;
};

std::optional<PngStats> png_stats(const fs::path& file) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, file.c_str())) return std::nullopt;
  image.format = PNG_FORMAT_RGBA;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) return std::nullopt;
  PngStats s{int(image.width), int(image.height)};
  std::set<uint32_t> colors;
  size_t non_white = 0;
  for (size_t i = 0; i + 3 < pixels.size(); i += 4) {
    const uint32_t rgb = uint32_t(pixels[i]) << 16 | uint32_t(pixels[i + 1]) << 8 | pixels[i + 2];
    colors.insert(rgb);
    non_white += rgb != 0xffffff;
  }
  s.colors = colors.size();
  s.non_white = double(non_white) / double(pixels.size() / 4);
  return s;
}

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (run_shell(std::string("command -v ") + name + " > /dev/null 2>&1") == 0) return name;
  return "";
}

TEST_F(ReportTest, ChromiumRendersTheReport) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  const fs::path page = report::write_report(make_run());
  const fs::path shot = dir_ / "shot.png";
  const std::string command = "timeout 120 " + chromium +
                              " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir=" +
                              (dir_ / "profile").string() + " --screenshot=" + shot.string() +
                              " --window-size=1280,2000 file://" + page.string() + " > " + (dir_ / "chromium.log").string() + " 2>&1";
  ASSERT_EQ(run_shell(command), 0) << read(dir_ / "chromium.log");
  ASSERT_TRUE(fs::exists(shot)) << read(dir_ / "chromium.log");
  const auto stats = png_stats(shot);
  ASSERT_TRUE(stats) << "the screenshot is not a readable PNG";
  EXPECT_EQ(stats->width, 1280);
  EXPECT_EQ(stats->height, 2000);
  // Text, badges, the plot and the tree make many colors; a blank or error page has a handful.
  EXPECT_GT(stats->colors, 50u);
  EXPECT_GT(stats->non_white, 0.02);
}

}  // namespace
