// The command line: `ksearch run --llm PROVIDER:MODEL --base-url URL` against the scripted server
// for each wire format, `ksearch show --calls`, and agent mode (`run --agent`, then
// `agent next` / `agent submit` until the run finishes), and a run killed while several calls are
// in flight, then resumed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "helpers.hpp"
#include "search/state.hpp"
#include "store/run_store.hpp"

using namespace ksearch;
using namespace ksearch::llm::testing;
using nlohmann::json;

namespace {

struct Result {
  int code = -1;
  std::string out;
};

// Runs ksearch with the arguments and captures stdout (stderr too with `with_stderr`, else it is dropped).
Result ksearch_cli(const std::string& args, bool with_stderr = false) {
  Result r;
  FILE* p = popen((std::string(KSEARCH_EXECUTABLE) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// Starts ksearch with the arguments in the background (output dropped); returns its pid.
pid_t start_ksearch(const std::string& args) {
  const std::string command = "exec " + std::string(KSEARCH_EXECUTABLE) + " " + args + " >/dev/null 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace

TEST(LlmCli, RunAgainstEachProviderWireFormat) {
  setenv(kKeyEnv, kKey, 1);
  for (const std::string spec : {"openai:gpt-test", "anthropic:claude-test", "gemini:gemini-test", "openai-responses:gpt-test"}) {
    SCOPED_TRACE(spec);
    const std::string provider = spec.substr(0, spec.find(':'));
    ScriptedServer server;
    for (const char* name : {"initialize", "write_code", "refine"}) server.enqueue(test::transcript(provider, name));
    const auto dir = test::fresh_dir("cli-" + provider);
    const std::string base = server.base_url() + (provider == "gemini" ? "/v1beta" : "/v1");
    const auto r = ksearch_cli("run --task softmax --backend cpu --rounds 1 --finalists 0 --json --llm " + spec + " --base-url " + base +
                               " --api-key-env " + kKeyEnv + " --prices " + q(test::here() / "prices.toml") + " --out " + q(dir));
    ASSERT_EQ(r.code, 0) << r.out;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["outcome"], "finished");
    EXPECT_EQ(j["proposer"], "llm");
    ASSERT_TRUE(j["best"].is_object()) << r.out;
    EXPECT_EQ(server.request_count(), 3u);
    for (const auto& req : server.requests()) EXPECT_FALSE(req.body.find(kKey) != std::string::npos);  // key only in headers

    const auto show = ksearch_cli("show " + q(dir) + " --calls");
    EXPECT_EQ(show.code, 0) << show.out;
    EXPECT_NE(show.out.find("write_code"), std::string::npos);
    EXPECT_NE(show.out.find("--- prompt ---"), std::string::npos);
    EXPECT_NE(show.out.find("NOTE: one exp per element"), std::string::npos);  // a stored response
    EXPECT_NE(show.out.find("total: 3 calls"), std::string::npos) << show.out;
    EXPECT_EQ(show.out.find("total: 3 calls, 0+0 tokens"), std::string::npos);
    EXPECT_EQ(show.out.find("$0.0000\ntotal"), std::string::npos);
    std::filesystem::remove_all(dir);
  }
}

// --llm replaces provider, model and base URL of --llm-config's section; its timeouts and retry
// settings still apply.
TEST(LlmCli, LlmKeepsTheConfigFilesTimeoutsAndRetries) {
  setenv(kKeyEnv, kKey, 1);
  ScriptedServer server;
  for (const char* name : {"initialize", "write_code", "refine"}) server.enqueue(test::transcript("openai", name));
  const auto dir = test::fresh_dir("cli-config");
  const auto config = dir.parent_path() / "cli-config.toml";
  {
    std::ofstream f(config);
    f << "[llm]\nmodel = \"anthropic:claude-test\"\ntimeout_s = 30\nconnect_timeout_s = 3\nmax_retries = 2\n"
         "max_malformed_retries = 1\nretry_base_delay_s = 0.25\nretry_max_delay_s = 4\nretry_after_cap_s = 9\n";
  }
  const auto r = ksearch_cli("run --task " + q(test::tiny_softmax()) + " --backend cpu --rounds 1 --finalists 0 --llm-config " + q(config) +
                             " --llm openai:gpt-test --base-url " + server.base_url() + "/v1 --api-key-env " + kKeyEnv + " --prices " +
                             q(test::here() / "prices.toml") + " --out " + q(dir));
  ASSERT_EQ(r.code, 0) << r.out;
  const json settings = store::RunStore::open(dir).info().config["proposer"]["config"];
  EXPECT_EQ(settings["model"], "openai:gpt-test");
  EXPECT_EQ(settings["timeout_s"], 30.0);
  EXPECT_EQ(settings["connect_timeout_s"], 3.0);
  EXPECT_EQ(settings["max_retries"], 2);
  EXPECT_EQ(settings["max_malformed_retries"], 1);
  EXPECT_EQ(settings["retry_base_delay_s"], 0.25);
  EXPECT_EQ(settings["retry_max_delay_s"], 4.0);
  EXPECT_EQ(settings["retry_after_cap_s"], 9.0);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(config);
}

TEST(LlmCli, BadModelOptionsAreUsageErrors) {
  EXPECT_EQ(ksearch_cli("run --task softmax --backend cpu --max-usd 1 --out /tmp/ksearch-llmp-never").code, 2);
  EXPECT_EQ(ksearch_cli("run --task softmax --backend cpu --agent --llm openai:gpt-5 --out /tmp/ksearch-llmp-never").code, 2);
  EXPECT_EQ(ksearch_cli("run --task softmax --backend cpu --llm nosuch:model --out /tmp/ksearch-llmp-never").code, 2);
  const auto not_http = ksearch_cli("run --task softmax --backend cpu --llm openai-compatible:m --base-url 127.0.0.1:8000/v1 "
                                    "--out /tmp/ksearch-llmp-never", true);
  EXPECT_EQ(not_http.code, 2);
  EXPECT_NE(not_http.out.find("must start with http:// or https://"), std::string::npos) << not_http.out;
  const auto prices = test::fresh_dir("cli-prices") / "prices.toml";
  std::filesystem::create_directories(prices.parent_path());
  std::ofstream(prices) << "[openai.\"gpt-test\"]\ninput = \"cheap\"\n";
  const auto bad_prices = ksearch_cli("run --task softmax --backend cpu --llm openai:gpt-test --prices " + q(prices) +
                                      " --out /tmp/ksearch-llmp-never", true);
  EXPECT_EQ(bad_prices.code, 2);
  EXPECT_NE(bad_prices.out.find("needs 'input' and 'output'"), std::string::npos) << bad_prices.out;
  std::filesystem::remove_all(prices.parent_path());
  // A USD budget for a model without a price could never be reached.
  const auto unpriced = ksearch_cli("run --task softmax --backend cpu --llm openai:no-such-price --max-usd 5 --out /tmp/ksearch-llmp-never", true);
  EXPECT_EQ(unpriced.code, 2);
  EXPECT_NE(unpriced.out.find("--max-usd needs a price for openai:no-such-price"), std::string::npos) << unpriced.out;
  EXPECT_FALSE(std::filesystem::exists("/tmp/ksearch-llmp-never"));
}

// An unattended agent: every request has a stored id that increases across the sessions of the
// run; an answer naming another id is refused and says which request waits; an answer to a finished
// run says the run is finished; each submitted answer is stored as a call with the agent's time.
TEST(AgentMode, NextAndSubmitUntilTheRunFinishes) {
  const auto dir = test::fresh_dir("agent");
  auto r = ksearch_cli("run --task " + q(test::tiny_softmax()) + " --backend cpu --agent --rounds 1 --finalists 0 --out " + q(dir));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("waiting for the proposer to answer request 1 (initialize)"), std::string::npos) << r.out;

  const std::map<std::string, std::string> answers = {{"initialize", "initialize.json"},
                                                      {"write_code", "write_code.cpp"},
                                                      {"propose", "propose.json"},
                                                      {"refine", "refine.json"}};
  std::vector<std::string> roles;
  int64_t last_id = 0;
  for (int step = 0; step < 10; ++step) {
    const auto next = ksearch_cli("agent next " + q(dir) + " --json");
    ASSERT_EQ(next.code, 0) << next.out;
    const json j = json::parse(next.out);
    if (!j["pending"].get<bool>()) {
      EXPECT_TRUE(j["finished"].get<bool>());
      EXPECT_NE(j["message"].get<std::string>().find("the run is finished"), std::string::npos) << next.out;
      break;
    }
    const std::string role = j["role"];
    const int64_t id = j["request_id"];
    EXPECT_GT(id, last_id) << role;  // a new id per request, never reused by a later session
    roles.push_back(role);
    EXPECT_FALSE(j["prompt"].get<std::string>().empty());
    const auto unknown = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "agent" / answers.at(role)) + " --request " +
                                         std::to_string(id + 1),
                                     true);
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.out.find(fmt::format("unknown request {}", id + 1)), std::string::npos) << unknown.out;
    EXPECT_NE(unknown.out.find(fmt::format("the run waits on request {} ({})", id, role)), std::string::npos) << unknown.out;
    if (last_id) {
      const auto stale = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "agent" / answers.at(role)) +
                                         " --request " + std::to_string(last_id),
                                     true);
      EXPECT_EQ(stale.code, 2);
      EXPECT_NE(stale.out.find(fmt::format("request {} is stale", last_id)), std::string::npos) << stale.out;
    }
    if (role == "write_code") {
      EXPECT_NE(j["prompt"].get<std::string>().find("Only these headers may be included"), std::string::npos);
      EXPECT_NE(j["answer_format"].get<std::string>().find("\"exhausted\": true"), std::string::npos);
      // An answer that breaks the rules is refused before anything is stored or compiled.
      const auto bad = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "transcripts/answers/write_code_forbidden.md"));
      EXPECT_EQ(bad.code, 2);
      EXPECT_EQ(json::parse(ksearch_cli("agent next " + q(dir) + " --json").out)["request_id"], id);
    }
    Result sub;
    if (role == "refine") {  // the id named inside a JSON answer
      json answer = json::parse(read_file(test::here() / "agent" / "refine.json"));
      answer["request_id"] = id;
      write_file_atomic(dir / "answer.json", answer.dump());
      sub = ksearch_cli("agent submit " + q(dir) + " " + q(dir / "answer.json"), true);
    } else {
      sub = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "agent" / answers.at(role)) + " --request " +
                            std::to_string(id),
                        true);
    }
    ASSERT_NE(sub.code, 2) << role << "\n" << sub.out;
    EXPECT_NE(sub.out.find(fmt::format("request {} ({}) accepted", id, role)), std::string::npos) << sub.out;
    // The first evaluation times the seed first: the agent is told why this submit takes a while.
    EXPECT_EQ(sub.out.find("first it times the seed") != std::string::npos, role == "write_code") << sub.out;
    last_id = id;
  }
  EXPECT_EQ(roles, (std::vector<std::string>{"initialize", "write_code", "refine"}));
  const auto show = ksearch_cli("show " + q(dir) + " --json");
  EXPECT_EQ(show.code, 0) << show.out;
  const json s = json::parse(show.out);
  EXPECT_EQ(s["phase"], "done");
  EXPECT_EQ(s["proposer"], "agent");
  ASSERT_TRUE(s["best"].is_object());
  EXPECT_GT(s["best"]["speedup_vs_seed"].get<double>(), 1.2);
  const auto calls = ksearch_cli("show " + q(dir) + " --calls");
  EXPECT_NE(calls.out.find("agent (submitted)"), std::string::npos);
  int submitted = 0;
  for (const auto& c : store::RunStore::open(dir).calls())
    if (c.proposer == "agent (submitted)") {
      ++submitted;
      EXPECT_GT(c.seconds, 0) << c.role;  // from the request to its answer
    }
  EXPECT_EQ(submitted, 3);
  const auto late = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "agent" / "refine.json"), true);
  EXPECT_EQ(late.code, 2);
  EXPECT_NE(late.out.find("the run is finished"), std::string::npos) << late.out;
  std::filesystem::remove_all(dir);
}

// While another process continues the run (here: timing the seed after the first answer), `agent
// next` and `agent submit` say so and what it does, instead of "no request" or a lock error.
TEST(AgentMode, ABusyRunSaysWhatItIsDoing) {
  const auto dir = test::fresh_dir("agent-busy");
  ASSERT_EQ(ksearch_cli("run --task " + q(test::tiny_softmax()) + " --backend cpu --agent --rounds 1 --finalists 0 --out " + q(dir)).code, 0);
  {
    auto writer = store::RunStore::open(dir, store::RunStore::Access::write);
    writer.answer_pending(writer.pending()->seq, json::object());
    search::LoopState state;
    state.phase = search::Phase::evaluate;
    state.in_flight.push_back({0, 0, "", nullptr, {1}, false, true});  // the seed's own evaluation
    writer.save_state(state.to_json());
    const auto next = ksearch_cli("agent next " + q(dir) + " --json");
    ASSERT_EQ(next.code, 0) << next.out;
    const std::string message = json::parse(next.out)["message"];
    EXPECT_NE(message.find("the run is busy: another ksearch process (pid " + std::to_string(getpid())), std::string::npos) << message;
    EXPECT_NE(message.find("timing the seed"), std::string::npos) << message;
    const auto submit = ksearch_cli("agent submit " + q(dir) + " " + q(test::here() / "agent" / "initialize.json"), true);
    EXPECT_EQ(submit.code, 2);
    EXPECT_NE(submit.out.find("the run is busy"), std::string::npos) << submit.out;
    EXPECT_NE(submit.out.find("timing the seed"), std::string::npos) << submit.out;
  }
  std::filesystem::remove_all(dir);
}

// `ksearch run` killed with SIGKILL while two write_code calls are in flight (both rounds stored as
// being written), then `ksearch resume`: each is asked for again once and stored once, and the
// search finishes its round budget.
TEST(LlmCli, KilledWithCallsInFlightResumesEachOnce) {
  setenv(kKeyEnv, kKey, 1);
  ScriptedServer server;
  auto model = std::make_shared<test::SlowModel>(60.0);  // the killed run's calls do not return
  server.set_handler([model](const RecordedRequest& r) { return (*model)(r); });
  const auto dir = test::fresh_dir("kill-calls");
  const pid_t pid = start_ksearch("run --task " + q(test::tiny_softmax()) + " --backend cpu --rounds 4 --parallel 2 --proposer-concurrency 2 " +
                                  "--finalists 0 --llm openai:gpt-test --base-url " + server.base_url() + "/v1 --api-key-env " + kKeyEnv +
                                  " --prices " + q(test::here() / "prices.toml") + " --out " + q(dir));
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (model->writing() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(model->writing(), 2);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  model->answer_in(0);
  {
    auto store = store::RunStore::open(dir);
    const auto state = search::LoopState::from_json(*store.load_state());
    EXPECT_EQ(state.writing.size(), 2u);
    EXPECT_EQ(state.round, 0);
    EXPECT_TRUE(store.candidates().empty());
  }

  const auto resumed = ksearch_cli("resume " + q(dir) + " --json");
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  auto store = store::RunStore::open(dir);
  const auto state = search::LoopState::from_json(*store.load_state());
  EXPECT_EQ(state.phase, search::Phase::done);
  EXPECT_EQ(state.round, 4);
  EXPECT_TRUE(state.writing.empty());
  std::multiset<int> rounds;
  for (const auto& c : store.candidates()) {
    EXPECT_TRUE(c.evaluated()) << "c" << c.id;
    rounds.insert(c.round);
  }
  EXPECT_EQ(rounds, (std::multiset<int>{1, 2, 3, 4})) << "one candidate per round, each round stored once";
  EXPECT_EQ(model->written(), 2 + 4) << "the two killed calls asked again once each, then two new rounds";
  std::filesystem::remove_all(dir);
}

// A run its provider's outage stopped with rounds left continues on a plain `ksearch resume` once the provider
// answers again, and spends exactly the rounds left.
TEST(LlmCli, APlainResumeContinuesARunAnOutageStopped) {
  setenv(kKeyEnv, kKey, 1);
  ScriptedServer server;
  auto model = std::make_shared<test::SlowModel>(0.0);
  auto down = std::make_shared<std::atomic<bool>>(false);
  auto answered = std::make_shared<std::atomic<int>>(0);
  server.set_handler([model, down, answered](const RecordedRequest& r) {
    if (*answered >= 2) *down = true;  // initialize and the first round's code, then the outage
    if (*down) return error_for(llm::Provider::OpenAIChat, 503, "down for maintenance");
    ++*answered;
    return (*model)(r);
  });
  const auto dir = test::fresh_dir("outage-resume");
  const auto config = dir.parent_path() / "outage-resume.toml";
  std::ofstream(config) << "[llm]\nmodel = \"openai:gpt-test\"\nmax_retries = 0\nretry_base_delay_s = 0.01\n";
  const auto first = ksearch_cli("run --task " + q(test::tiny_softmax()) + " --backend cpu --rounds 12 --finalists 0 --llm-config " +
                                 q(config) + " --base-url " + server.base_url() + "/v1 --api-key-env " + kKeyEnv + " --prices " +
                                 q(test::here() / "prices.toml") + " --out " + q(dir) + " --json");
  ASSERT_EQ(first.code, 0) << first.out;
  int rounds_before = 0;
  {
    const auto state = search::LoopState::from_json(*store::RunStore::open(dir).load_state());
    EXPECT_EQ(state.phase, search::Phase::done);
    EXPECT_NE(state.stop_reason.find("down for maintenance"), std::string::npos) << state.stop_reason;
    EXPECT_TRUE(state.stopped_by_proposer);
    rounds_before = state.round;
    ASSERT_LT(rounds_before, 12);
  }

  *down = false, *answered = -100;  // the provider is back
  const auto resumed = ksearch_cli("resume " + q(dir) + " --json", true);
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("continuing with " + std::to_string(12 - rounds_before) + " rounds left"), std::string::npos)
      << resumed.out;
  const auto state = search::LoopState::from_json(*store::RunStore::open(dir).load_state());
  EXPECT_EQ(state.phase, search::Phase::done);
  EXPECT_EQ(state.round, 12);
  EXPECT_EQ(state.stop_reason, "round budget spent");
  EXPECT_FALSE(state.stopped_by_proposer);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(config);
}
