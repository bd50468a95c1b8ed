// Prompt templates and answer parsing: every template renders, every code prompt carries the
// backend's rules and hardware profile, and answers survive fences, tags, prose and several files.
#include <gtest/gtest.h>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "helpers.hpp"
#include "proposers/builtin/catalog.hpp"
#include "proposers/llm/prompts.hpp"
#include "proposers/world_model.hpp"
#include "tasks/registry.hpp"
#include "tasks/task.hpp"

using ksearch::backends::Backend;
using ksearch::backends::make_backend;
using ksearch::tasks::Task;
using ksearch::tasks::load_task;
using ksearch::tasks::resolve_task;

using namespace ksearch;
using namespace ksearch::proposers::llm;
using nlohmann::json;

namespace {

struct Prompts : ::testing::Test {
  Task task = load_task(test::tiny_softmax());
  std::unique_ptr<Backend> backend = make_backend("cpu");
  BackendInfo info = BackendInfo::of(*backend);
  PromptLibrary lib;

  proposers::TaskBrief brief() const {
    proposers::TaskBrief b;
    b.task = task.name;
    b.backend = "cpu";
    b.description = task.description;
    b.entry = backend->entry_description(task);
    b.hardware = backend->profile().prose;
    b.seed_source = read_file(task.entry("cpu").seed);
    b.workloads = {"r64_c256: cols=256 rows=64"};
    return b;
  }
  json world_model() const {
    return parse_initialize(test::answer("initialize")).reply.world_model;
  }
  proposers::CodeRequest code_request(const std::string& mode) const {
    proposers::CodeRequest r;
    r.task = brief();
    r.node_id = "n1";
    r.action = {{"title", "Cache exp in y"}, {"description", "write exp to y"}, {"difficulty_1_to_5", 1},
                {"expected_vs_baseline_factor", 1.8}};
    r.parent_source = "// PARENT CODE MARKER\n" + brief().seed_source;
    r.world_view = world_model::WorldModel::from_json(world_model()).compact_view();
    r.mode = mode;
    proposers::Feedback f;
    f.candidate_id = 3;
    f.status = "wrong_answer";
    f.message = "y differs from the reference";
    f.failing_workload = "r64_c256";
    f.max_abs_err = 0.25;
    f.log_excerpt = "LOG EXCERPT MARKER";
    r.feedback = {f};
    return r;
  }
};

void expect_rendered(const Prompt& p) {
  EXPECT_FALSE(p.system.empty());
  EXPECT_FALSE(p.user.empty());
  EXPECT_EQ(p.user.find("{{"), std::string::npos) << p.user;
  EXPECT_EQ(p.system.find("{{"), std::string::npos);
}

}  // namespace

TEST(Renderer, PlaceholdersSectionsPartialsAndComments) {
  const Vars v = {{"a", "A"}, {"empty", ""}, {"code", "x{{y}}"}};
  auto partial = [](const std::string& name) { return name == "p" ? std::string("[{{a}}]") : std::string(); };
  EXPECT_EQ(render_template("{{a}}-{{ a }}", v), "A-A");
  EXPECT_EQ(render_template("{{#a}}yes {{a}}{{/a}}{{#empty}}no{{/empty}}{{^empty}}inv{{/empty}}", v), "yes Ainv");
  EXPECT_EQ(render_template("{{> p}}{{! dropped }}", v, partial), "[A]");
  EXPECT_EQ(render_template("{{code}}", v), "x{{y}}");  // values are not rendered again
  EXPECT_EQ(render_template("{ \"json\": {\"k\": 1} }", v), "{ \"json\": {\"k\": 1} }");
  EXPECT_THROW(render_template("{{missing}}", v), Error);
  EXPECT_THROW(render_template("{{#a}}open", v), Error);
  EXPECT_THROW(render_template("{{/a}}", v), Error);
}

TEST_F(Prompts, EveryTemplateRenders) {
  expect_rendered(lib.initialize({brief()}, info));
  proposers::ProposeRequest p{brief(), world_model(), "the frontier is empty", "- ops[0]: insert: parent_id n9 does not exist\n", 3};
  const Prompt propose = lib.propose(p, info);
  expect_rendered(propose);
  EXPECT_NE(propose.user.find("parent_id n9 does not exist"), std::string::npos);
  EXPECT_NE(propose.user.find("\"op\": \"split\""), std::string::npos);  // edit_script.md included
  expect_rendered(lib.write_code(code_request("debug"), info));
  expect_rendered(lib.write_code(code_request("improve"), info));
  proposers::RefineRequest r;
  r.task = brief();
  r.world_model = world_model();
  r.cycle.node_id = "n1";
  r.cycle.passed = true;
  r.cycle.best_candidate = 4;
  r.cycle.best_speedup = 1.9;
  r.cycle.predicted_factor = 1.8;
  r.cycle.observed_factor = 1.9;
  const Prompt refine = lib.refine(r, info);
  expect_rendered(refine);
  EXPECT_NE(refine.user.find("Store exp(x - max) in y"), std::string::npos);  // the node's title
  EXPECT_NE(refine.user.find("observed x1.90"), std::string::npos);
  EXPECT_NE(lib.reask("- bad thing").find("- bad thing"), std::string::npos);
  // Every file of the folder is one of the above or a partial of them.
  Vars all = task_vars(brief(), info);
  for (const char* k : {"world_model", "reason", "previous_errors", "max_new_nodes", "node_id", "action", "parent_label",
                        "parent_code", "feedback", "correctness_failed", "timing_rejected", "best_speedup", "round_in_cycle",
                        "count", "cycle", "errors",
                        // port_repair.md (ksearch port --llm)
                        "cuda_source", "partial", "untranslated", "previous", "failure"})
    all[k] = "x";
  for (const auto& e : std::filesystem::directory_iterator(lib.dir())) {
    if (e.path().extension() != ".md" || e.path().stem() == "README") continue;
    EXPECT_NO_THROW(lib.render(e.path().stem().string(), all)) << e.path();
  }
}

TEST_F(Prompts, InitializeShowsATemplateExampleWhereTheCatalogHasOne) {
  BackendInfo with_example = info;
  with_example.template_example = "TEMPLATE EXAMPLE MARKER";
  EXPECT_NE(lib.initialize({brief()}, with_example).user.find("TEMPLATE EXAMPLE MARKER"), std::string::npos);
  BackendInfo without = info;
  without.template_example.clear();
  EXPECT_EQ(lib.initialize({brief()}, without).user.find("An example: a fast kernel"), std::string::npos);
  // The catalog's example: a family of the task, rendered (self-contained).
  const std::string example = proposers::builtin::template_example(resolve_task("softmax"), "cpu");
  EXPECT_NE(example.find("extern \"C\" void softmax("), std::string::npos);
  EXPECT_EQ(example.find("#include \""), std::string::npos);
  EXPECT_TRUE(proposers::builtin::template_example(resolve_task("softmax"), "no_such_backend").empty());
}

TEST_F(Prompts, CodePromptsCarryRulesProfileParentActionAndFeedback) {
  ASSERT_FALSE(info.rules.empty());
  for (const std::string mode : {"debug", "improve"}) {
    const Prompt p = lib.write_code(code_request(mode), info);
    EXPECT_NE(p.user.find(info.rules.substr(0, info.rules.find('\n'))), std::string::npos) << mode;
    EXPECT_NE(p.user.find("Only these headers may be included"), std::string::npos) << mode;
    const std::string prose = backend->profile().prose;
    EXPECT_NE(p.user.find(prose.substr(0, std::min<size_t>(prose.size(), 200))), std::string::npos) << mode;
    EXPECT_NE(p.user.find("PARENT CODE MARKER"), std::string::npos);
    EXPECT_NE(p.user.find("Cache exp in y"), std::string::npos);
    EXPECT_NE(p.user.find("extern \"C\" void softmax"), std::string::npos);  // the entry
    EXPECT_NE(p.user.find("LOG EXCERPT MARKER"), std::string::npos);
    EXPECT_NE(p.user.find("max abs error 0.25"), std::string::npos);
    EXPECT_NE(p.user.find("r64_c256"), std::string::npos);
    EXPECT_NE(p.user.find("n1 [FRONTIER]"), std::string::npos);  // the compact world model
  }
  const std::string debug = lib.write_code(code_request("debug"), info).user;
  EXPECT_NE(debug.find("wrong result, crash, timeout, rule violation): fix that first"), std::string::npos) << debug;
  EXPECT_EQ(debug.find("implausible timing"), std::string::npos);
  EXPECT_NE(lib.write_code(code_request("improve"), info).user.find("make it faster"), std::string::npos);
}

// Each attempt shows every visible workload's median, spread, seed time, speedup, roofline share
// and exact verdict; an attempt rejected for an impossible time is explained as that, not as a
// correctness problem (the same templates serve the LLM and the agent).
TEST_F(Prompts, FeedbackIsPerWorkloadAndATimingRejectionIsNotCalledACorrectnessProblem) {
  proposers::CodeRequest r = code_request("debug");
  proposers::Feedback f;
  f.candidate_id = 7;
  f.status = "rejected";
  f.message = "workload r16_c1000: implausible timing: 0.0001 ms is 9.0x faster than this machine's roofline allows";
  f.workloads = {{"r64_c256", "passed", "", 0.0123, 0.04, 0.0456, 3.71, 0.123},
                 {"r16_c1000", "rejected", "implausible timing: 0.0001 ms is 9.0x faster than this machine's roofline allows",
                  0.0001, 0.5, 0.05, 500, 9}};
  r.feedback = {f};
  const json request = r.to_json();
  ASSERT_EQ(request["feedback"][0]["workloads"].size(), 2u);  // the JSON an agent reads carries them too
  EXPECT_EQ(request["feedback"][0]["workloads"][0]["seed_ms"], 0.0456);
  EXPECT_EQ(request["feedback"][0]["workloads"][1]["spread"], 0.5);
  for (const std::string mode : {"debug", "improve"}) {
    r.mode = mode;
    const std::string p = lib.for_request("write_code", r.to_json(), info).user;
    EXPECT_NE(p.find("r64_c256: passed, median 0.0123 ms (spread 4%), seed 0.0456 ms, 3.71x vs seed, 12.3% of the roofline"),
              std::string::npos)
        << p;
    EXPECT_NE(p.find("r16_c1000: rejected, median 0.0001 ms (spread 50%)"), std::string::npos) << p;
    EXPECT_NE(p.find("- implausible timing: 0.0001 ms is 9.0x faster"), std::string::npos) << p;
    EXPECT_NE(p.find("computed correct results, but it measured faster than this machine's roofline allows"), std::string::npos) << p;
    EXPECT_EQ(p.find("fix that first"), std::string::npos) << p;
    EXPECT_EQ(p.find("correctness first"), std::string::npos) << p;
    EXPECT_EQ(p.find("max abs error"), std::string::npos) << p;  // no error numbers for a correct result
  }
}

// Ending a cycle: `EXHAUSTED` before the code, or "exhausted": true in the JSON reply (also with no
// code at all); both are in the answer format the prompt gives.
TEST_F(Prompts, ExhaustedEndsTheCycleInEveryAnswerForm) {
  const std::string good = read_file(test::here() / "agent" / "write_code.cpp");
  const std::string prompt = lib.write_code(code_request("improve"), info).user;
  EXPECT_NE(prompt.find("a line `EXHAUSTED` before the code fence"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("{\"candidates\": [], \"exhausted\": true}"), std::string::npos) << prompt;

  auto fenced = parse_code_reply("NOTE: last idea\nEXHAUSTED\n```cpp\n" + good + "```\n", "cpp", *info.checks);
  ASSERT_TRUE(fenced.ok()) << fenced.errors;
  EXPECT_TRUE(fenced.reply.exhausted);
  EXPECT_EQ(fenced.reply.candidates.at(0).note, "last idea");
  EXPECT_FALSE(parse_code_reply("NOTE: more to come\n```cpp\n" + good + "```\n", "cpp", *info.checks).reply.exhausted);

  auto none = parse_code_reply(R"({"candidates": [], "exhausted": true})", "cpp", *info.checks);
  ASSERT_TRUE(none.ok()) << none.errors;
  EXPECT_TRUE(none.reply.exhausted);
  EXPECT_TRUE(none.reply.candidates.empty());
  auto empty = parse_code_reply(R"({"candidates": []})", "cpp", *info.checks);
  EXPECT_NE(empty.errors.find("no candidates"), std::string::npos);
  const json with_code = {{"candidates", {{{"source", good}, {"note", "n"}}}}, {"exhausted", true}};
  auto agent = parse_answer("write_code", with_code.dump(), code_request("improve").to_json(), info);
  ASSERT_TRUE(agent.ok()) << agent.errors;
  EXPECT_TRUE(agent.reply["exhausted"].get<bool>());
}

TEST_F(Prompts, CodeSurvivesFencesTagsProseAndSeveralFiles) {
  const std::string good = "#include <cmath>\nextern \"C\" void f() {}\n";
  auto several = "NOTE: the fast one\nFirst a helper script:\n```python\nprint(1)\n```\nThen the kernel:\n```cpp\n" + good +
                 "```\nand a test:\n```cpp\nint main() {}\n```\n";
  auto p = parse_code(several, "cpp", *info.checks);
  ASSERT_TRUE(p.ok()) << p.errors;
  EXPECT_EQ(p.reply.source, good);  // the longest cpp block
  EXPECT_EQ(p.reply.note, "the fast one");
  p = parse_code("Sure!\n<file name=\"kernel.cpp\">\n" + good + "</file>\n**Note:** tagged", "cpp", *info.checks);
  ASSERT_TRUE(p.ok()) << p.errors;
  EXPECT_EQ(p.reply.source, good);
  p = parse_code(test::answer("write_code_b"), "cpp", *info.checks);
  ASSERT_TRUE(p.ok()) << p.errors;
  EXPECT_NE(p.reply.source.find("omp simd"), std::string::npos);
  EXPECT_FALSE(parse_code("```cpp\n" + good, "cpp", *info.checks).ok());  // cut off
  EXPECT_FALSE(parse_code("I cannot do that.", "cpp", *info.checks).ok());
  p = parse_code(test::answer("write_code_forbidden"), "cpp", *info.checks);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.errors.find("threads-outside-openmp"), std::string::npos) << p.errors;
}

TEST_F(Prompts, WorldModelAndEditScriptsAreValidated) {
  auto bad = parse_initialize(test::answer("initialize_invalid"));
  EXPECT_NE(bad.errors.find("parent n9 does not exist"), std::string::npos) << bad.errors;
  EXPECT_FALSE(parse_initialize("no json here").ok());
  auto good = parse_initialize(test::answer("initialize"));
  ASSERT_TRUE(good.ok()) << good.errors;
  const auto m = world_model::WorldModel::from_json(good.reply.world_model);
  EXPECT_EQ(m.frontier().size(), 2u);

  auto e = parse_refine(test::answer("refine_invalid"), good.reply.world_model, 3);
  EXPECT_NE(e.errors.find("parent_id n7 does not exist"), std::string::npos) << e.errors;
  auto r = parse_refine(test::answer("refine"), good.reply.world_model, 3);
  ASSERT_TRUE(r.ok()) << r.errors;
  EXPECT_NE(r.reply.reflection.find("implemented exactly the action"), std::string::npos);
  EXPECT_EQ(r.reply.edit_script["ops"].size(), 2u);
  auto bare = parse_edit_script("```json\n[{\"op\": \"delete\", \"node_id\": \"n2\"}]\n```", good.reply.world_model, 3);
  ASSERT_TRUE(bare.ok()) << bare.errors;
}

TEST_F(Prompts, AgentAnswersTakePlainFilesAndTheSameChecks) {
  const json code_req = code_request("debug").to_json();
  auto plain = parse_answer("write_code", read_file(test::here() / "agent" / "write_code.cpp"), code_req, info);
  ASSERT_TRUE(plain.ok()) << plain.errors;
  EXPECT_EQ(plain.reply["candidates"].size(), 1u);
  EXPECT_FALSE(parse_answer("write_code", test::answer("write_code_forbidden"), code_req, info).ok());
  auto init = parse_answer("initialize", read_file(test::here() / "agent" / "initialize.json"), json::object(), info);
  ASSERT_TRUE(init.ok()) << init.errors;
  EXPECT_TRUE(init.reply.contains("world_model"));
}
