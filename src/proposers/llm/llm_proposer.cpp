#include "proposers/llm/llm_proposer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "llm/concurrent.hpp"
#include "proposers/builtin/catalog.hpp"
#include "proposers/llm/prompts.hpp"
#include "proposers/proposer.hpp"
#include "store/run_store.hpp"

using ksearch::backends::RuleSet;

using nlohmann::json;
namespace kl = ksearch::llm;

namespace ksearch::proposers::llm {

namespace {

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
void get(const json& j, const char* key, std::optional<T>& v) {
  if (j.contains(key) && !j[key].is_null()) v = j[key].get<T>();
}

}  // namespace

json LlmSettings::to_json() const {
  const auto& p = provider;
  json j = {{"model", p.provider_name + ":" + p.model},
            {"base_url", p.base_url},
            {"api_key_env", p.api_key_env},
            {"connect_timeout_s", p.connect_timeout_s},
            {"timeout_s", p.timeout_s},
            {"max_retries", p.max_retries},
            {"max_malformed_retries", p.max_malformed_retries},
            {"retry_base_delay_s", p.retry_base_delay_s},
            {"retry_max_delay_s", p.retry_max_delay_s},
            {"retry_after_cap_s", p.retry_after_cap_s},
            {"max_tokens_field", p.max_tokens_field},
            {"anthropic_version", p.anthropic_version},
            {"prices_file", prices_file},
            {"prompts_dir", prompts_dir},
            {"reask", reask},
            {"max_parallel", max_parallel},
            {"budget", json::object()}};
  put(j, "temperature", p.temperature);
  put(j, "max_output_tokens", p.max_output_tokens);
  put(j, "reasoning_effort", p.reasoning_effort);
  put(j["budget"], "max_usd", budget.max_usd);
  put(j["budget"], "max_tokens", budget.max_tokens);
  put(j["budget"], "max_calls", budget.max_calls);
  return j;
}

LlmSettings LlmSettings::from_json(const json& j) {
  if (!j.is_object() || !j.contains("model")) throw Error("the llm proposer needs a model (--llm PROVIDER:MODEL or --llm-config)");
  LlmSettings s;
  try {
    auto& p = s.provider;
    p = kl::parse_provider_spec(j["model"].get<std::string>());
    p.base_url = j.value("base_url", p.base_url);
    p.api_key_env = j.value("api_key_env", p.api_key_env);
    p.connect_timeout_s = j.value("connect_timeout_s", p.connect_timeout_s);
    p.timeout_s = j.value("timeout_s", p.timeout_s);
    p.max_retries = j.value("max_retries", p.max_retries);
    p.max_malformed_retries = j.value("max_malformed_retries", p.max_malformed_retries);
    p.retry_base_delay_s = j.value("retry_base_delay_s", p.retry_base_delay_s);
    p.retry_max_delay_s = j.value("retry_max_delay_s", p.retry_max_delay_s);
    p.retry_after_cap_s = j.value("retry_after_cap_s", p.retry_after_cap_s);
    p.max_tokens_field = j.value("max_tokens_field", p.max_tokens_field);
    p.anthropic_version = j.value("anthropic_version", p.anthropic_version);
    get(j, "temperature", p.temperature);
    get(j, "max_output_tokens", p.max_output_tokens);
    get(j, "reasoning_effort", p.reasoning_effort);
    s.prices_file = j.value("prices_file", "");
    s.prompts_dir = j.value("prompts_dir", "");
    s.reask = j.value("reask", s.reask);
    s.max_parallel = std::max(1, j.value("max_parallel", s.max_parallel));
    const json b = j.value("budget", json::object());
    get(b, "max_usd", s.budget.max_usd);
    get(b, "max_tokens", s.budget.max_tokens);
    get(b, "max_calls", s.budget.max_calls);
  } catch (const kl::LlmError& e) {
    throw Error(e.what());
  } catch (const json::exception& e) {
    throw Error(std::string("malformed llm proposer config: ") + e.what());
  }
  return s;
}

namespace {

// What the provider said about an answer that failed its checks: a refusal or the output token limit
// explains the failure better than "no code found", to the user and to the model when re-asked.
std::string provider_notes(const kl::CompletionResponse& resp) {
  std::string notes;
  if (!resp.refusal.empty()) notes += "- the model declined to answer (" + resp.refusal + ")\n";
  if (resp.truncated)
    notes += fmt::format("- the answer was cut off at the output token limit (finish reason {}): answer more briefly, "
                         "with the complete result\n",
                         resp.finish_reason);
  return notes;
}

// The whole exchange as sent, for the run store.
std::string transcript(const kl::CompletionRequest& r) {
  std::string s = "### system\n" + r.system + "\n";
  for (const auto& m : r.messages) s += "\n### " + m.role + "\n" + m.content + "\n";
  return s;
}

class LlmProposer : public Proposer, public Planner {
 public:
  LlmProposer(const ProposerEnv& env, LlmSettings settings)
      : settings_(std::move(settings)),
        prompts_(settings_.prompts_dir.empty() ? PromptLibrary::default_dir() : std::filesystem::path(settings_.prompts_dir)),
        backend_(BackendInfo::of(*env.backend)),
        spec_(settings_.provider.provider_name + ":" + settings_.provider.model) {
    auto prices = std::make_shared<const kl::PriceTable>(kl::PriceTable::load_default(ksearch::data_path("config/prices.toml"), settings_.prices_file));
    // An unpriced model costs $0 to the budget: a USD limit would never stop the run.
    if (settings_.budget.max_usd && !prices->find(settings_.provider.provider_name, settings_.provider.model))
      throw Error(fmt::format("--max-usd needs a price for {}: add one with --prices FILE (USD per million tokens, "
                              "docs/LLM.md), or limit tokens or calls instead (--max-tokens, --max-calls)",
                              spec_));
    budget_ = std::make_shared<kl::BudgetTracker>(settings_.budget);
    if (env.task) backend_.template_example = builtin::template_example(*env.task, env.backend->name());
    if (env.store) restore_spending(*env.store);
    client_ = kl::make_client(settings_.provider, prices, budget_);
  }

  std::string name() const override { return "llm:" + spec_; }
  Planner* planner() override { return this; }
  // Each call has its own conversations and HTTP handles; the client, its budget and rate-limit
  // backoff are thread-safe and shared, and fatal_ and failed_attempts_in_a_row_ are guarded.
  bool concurrent_calls() const override { return true; }

  std::string stop_reason() const override {
    std::lock_guard lk(mu_);
    if (!fatal_.empty()) return fatal_;
    if (auto why = budget_->exceeded()) return *why;
    return {};
  }

  std::optional<Answer<InitializeReply>> initialize(const InitializeRequest& r) override {
    return single<InitializeReply>(prompts_.initialize(r, backend_), "initialize",
                                            [](std::string_view t) { return parse_initialize(t); });
  }

  std::optional<Answer<ProposeReply>> propose(const ProposeRequest& r) override {
    return single<ProposeReply>(prompts_.propose(r, backend_), "propose", [&](std::string_view t) {
      return parse_edit_script(t, r.world_model, r.max_new_nodes);
    });
  }

  std::optional<Answer<RefineReply>> refine(const RefineRequest& r) override {
    return single<RefineReply>(prompts_.refine(r, backend_), "refine", [&](std::string_view t) {
      return parse_refine(t, r.world_model, r.max_new_nodes);
    });
  }

  // `count` independent conversations at once (complete_all); each yields at most one candidate.
  std::optional<Answer<CodeReply>> write_code(const CodeRequest& r) override {
    static const RuleSet no_rules;
    const RuleSet& rules = backend_.checks ? *backend_.checks : no_rules;
    auto results = converse<CodeReply>(prompts_.write_code(r, backend_), std::max(1, r.count), "write_code " + r.mode,
                                       [&](std::string_view t) { return parse_code_reply(t, backend_.language, rules); });
    Answer<CodeReply> answer;
    answer.calls = std::move(results.calls);
    for (auto& reply : results.replies) {
      if (!reply) continue;
      for (auto& c : reply->candidates) answer.reply.candidates.push_back(std::move(c));
      answer.reply.exhausted = answer.reply.exhausted || reply->exhausted;
    }
    if (answer.reply.candidates.empty() && !answer.reply.exhausted)
      throw ProposerError("no usable candidate: " + results.last_error, std::move(answer.calls));
    return answer;
  }

 private:
  template <class Reply>
  struct Conversations {
    std::vector<std::optional<Reply>> replies;
    std::vector<CallInfo> calls;
    std::string last_error;
  };

  template <class Reply, class Parse>
  std::optional<Answer<Reply>> single(const Prompt& prompt, const std::string& purpose, Parse parse) {
    auto results = converse<Reply>(prompt, 1, purpose, parse);
    if (!results.replies[0]) throw ProposerError(results.last_error, std::move(results.calls));
    return Answer<Reply>{std::move(*results.replies[0]), std::move(results.calls)};
  }

  // Runs `n` conversations on the same prompt; a rejected answer is re-asked in its conversation
  // with the errors (reask.md), at most settings_.reask times.
  template <class Reply, class Parse>
  Conversations<Reply> converse(const Prompt& prompt, int n, const std::string& purpose, Parse parse) {
    Conversations<Reply> out;
    out.replies.resize(static_cast<size_t>(n));
    std::vector<kl::CompletionRequest> conv(static_cast<size_t>(n));
    for (auto& c : conv) {
      c.system = prompt.system;
      c.messages = {{"user", prompt.user}};
      c.purpose = purpose;
    }
    std::vector<size_t> active(static_cast<size_t>(n));
    for (size_t i = 0; i < active.size(); ++i) active[i] = i;
    for (int round = 0; round <= settings_.reask && !active.empty(); ++round) {
      if (const auto why = stop_reason(); !why.empty()) {
        out.last_error = why;
        break;
      }
      std::vector<kl::CompletionRequest> batch;
      for (size_t i : active) batch.push_back(conv[i]);
      const auto start = std::chrono::steady_clock::now();
      const auto results = kl::complete_all(*client_, batch, size_t(settings_.max_parallel));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::vector<size_t> again;
      const kl::CompletionResult* failed = nullptr;
      bool answered = false;
      for (size_t k = 0; k < active.size(); ++k) {
        const size_t i = active[k];
        const auto& res = results[k];
        CallInfo call;
        call.model = spec_;
        call.prompt = transcript(conv[i]);
        if (!res.ok()) {
          out.last_error = res.error_message;
          if (res.error_category == kl::ErrorCategory::Budget) continue;  // refused before any request: not a call
          call.error = fmt::format("{}: {}", res.error_category ? std::string(kl::to_string(*res.error_category)) : "error",
                                   res.error_message);
          call.seconds = seconds;
          out.calls.push_back(std::move(call));
          note_unusable(res);
          failed = &res;
          continue;  // the client already retried what was retryable
        }
        answered = true;
        const auto& resp = *res.response;
        call.response = resp.text;
        call.input_tokens = resp.usage.input_tokens;
        call.output_tokens = resp.usage.output_tokens;
        call.cost_usd = resp.cost_usd;
        call.seconds = resp.latency_s;
        auto parsed = parse(std::string_view(resp.text));
        if (parsed.ok()) {
          out.replies[i] = std::move(parsed.reply);
        } else {
          const std::string errors = provider_notes(resp) + parsed.errors;
          call.error = "answer rejected:\n" + errors;
          out.last_error = call.error;
          conv[i].messages.push_back({"assistant", resp.text});
          conv[i].messages.push_back({"user", prompts_.reask(errors)});
          again.push_back(i);
        }
        out.calls.push_back(std::move(call));
      }
      note_attempt(answered, failed);
      active = std::move(again);
    }
    return out;
  }

  // A model that cannot be used (bad key, no quota, unknown model) ends the run at once instead of
  // failing every round.
  void note_unusable(const kl::CompletionResult& res) {
    const auto c = res.error_category.value_or(kl::ErrorCategory::Transport);
    if (c != kl::ErrorCategory::Auth && c != kl::ErrorCategory::NotFound && c != kl::ErrorCategory::Config) return;
    std::lock_guard lk(mu_);
    fatal_ = fmt::format("model {} unusable ({}): {}; once fixed, continue with `ksearch resume RUN` (the rounds left)", spec_,
                         kl::to_string(c), res.error_message);
  }

  // One which answers none of the calls of an attempt, attempt after attempt (an outage, each call
  // already retried by the client), ends it after a few requests instead of spending its rounds on
  // empty ones. Attempts, not calls, are counted, so that --parallel does not shorten the patience.
  void note_attempt(bool answered, const kl::CompletionResult* failed) {
    std::lock_guard lk(mu_);
    if (answered) {
      failed_attempts_in_a_row_ = 0;
      return;
    }
    if (!failed) return;  // refused by the budget: no request was made
    if (++failed_attempts_in_a_row_ >= kMaxFailedAttemptsInARow && fatal_.empty())
      fatal_ = fmt::format("model {} answered none of {} attempts in a row (last error: {}); continue later with "
                           "`ksearch resume RUN` (the rounds left)",
                           spec_, failed_attempts_in_a_row_, failed->error_message);
  }

  // Budgets hold over all sessions of a run: count the calls of earlier sessions.
  void restore_spending(const store::RunStore& store) {
    for (const auto& c : store.calls()) {
      if (c.proposer != name() || c.model.empty()) continue;
      try {
        budget_->reserve_call();
      } catch (const kl::BudgetExceeded&) {
        return;
      }
      if (c.input_tokens || c.output_tokens || c.cost_usd > 0) {
        kl::Usage u;
        u.input_tokens = c.input_tokens;
        u.output_tokens = c.output_tokens;
        budget_->record(u, c.cost_usd);
      }
    }
  }

  LlmSettings settings_;
  PromptLibrary prompts_;
  BackendInfo backend_;
  std::string spec_;
  std::shared_ptr<kl::BudgetTracker> budget_;
  std::unique_ptr<kl::Client> client_;
  mutable std::mutex mu_;
  std::string fatal_;
  // Three requests, each with the search's two retries.
  static constexpr int kMaxFailedAttemptsInARow = 9;
  int failed_attempts_in_a_row_ = 0;
};

// Agent mode: every request stays pending in the run store until `ksearch agent submit` answers it.
class AgentProposer : public Proposer, public Planner {
 public:
  std::string name() const override { return "agent"; }
  Planner* planner() override { return this; }
  std::optional<Answer<InitializeReply>> initialize(const InitializeRequest&) override { return std::nullopt; }
  std::optional<Answer<ProposeReply>> propose(const ProposeRequest&) override { return std::nullopt; }
  std::optional<Answer<CodeReply>> write_code(const CodeRequest&) override { return std::nullopt; }
  std::optional<Answer<RefineReply>> refine(const RefineRequest&) override { return std::nullopt; }
};

std::unique_ptr<Proposer> make_llm(const ProposerEnv& env, const json& config) {
  if (!env.backend) throw Error("the llm proposer needs a backend");
  try {
    return std::make_unique<LlmProposer>(env, LlmSettings::from_json(config));
  } catch (const kl::LlmError& e) {  // a bad price file or base URL is the user's input, not an internal error
    throw Error(e.what());
  }
}

std::unique_ptr<Proposer> make_agent(const ProposerEnv&, const json&) { return std::make_unique<AgentProposer>(); }

}  // namespace

bool register_llm_proposers() {
  static const bool done = register_proposer("llm", make_llm) && register_proposer("agent", make_agent);
  return done;
}

}  // namespace ksearch::proposers::llm
