// `ksearch run` flags of the LLM and agent proposers (see docs/LLM.md).
#include <optional>

#include "cli/number_checks.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "llm/llm.hpp"
#include "proposers/llm/llm_proposer.hpp"

namespace ksearch::cli {
namespace {

struct LlmArgs {
  std::string spec, base_url, api_key_env, reasoning_effort, config_file, prices_file;
  std::optional<double> temperature, max_usd;
  std::optional<int> max_output_tokens;
  std::optional<int64_t> max_tokens, max_calls;
  bool agent = false;
};

ApplyProposerOptions add_llm_options(CLI::App& cmd) {
  proposers::llm::register_llm_proposers();
  auto a = std::make_shared<LlmArgs>();
  const std::string group = "Model proposer (docs/LLM.md)";
  auto opt = [&](auto* o) { return o->group(group); };
  opt(cmd.add_option("--llm", a->spec, "Propose with a model: PROVIDER:MODEL (openai, openai-compatible, openai-responses, anthropic, gemini)"));
  opt(cmd.add_option("--base-url", a->base_url, "API base URL (e.g. http://127.0.0.1:8000/v1 for vLLM)"));
  opt(cmd.add_option("--api-key-env", a->api_key_env, "NAME of the environment variable holding the API key"));
  opt(cmd.add_option("--temperature", a->temperature, "Sampling temperature"));
  opt(cmd.add_option("--max-output-tokens", a->max_output_tokens, "Output token limit per call")->check(kPositive));
  opt(cmd.add_option("--reasoning-effort", a->reasoning_effort, "Reasoning effort (none, minimal, low, medium, high)"));
  opt(cmd.add_option("--llm-config", a->config_file, "TOML file with the model settings: FILE or FILE:SECTION (default section: llm)"));
  opt(cmd.add_option("--prices", a->prices_file, "Price table merged over config/prices.toml")->check(CLI::ExistingFile));
  opt(cmd.add_option("--max-usd", a->max_usd, "Stop the run cleanly once the model calls cost this much")->check(kNonNegative));
  opt(cmd.add_option("--max-tokens", a->max_tokens, "Stop the run cleanly after this many tokens (input + output)")->check(kPositive));
  opt(cmd.add_option("--max-calls", a->max_calls, "Stop the run cleanly after this many model calls")->check(kPositive));
  opt(cmd.add_flag("--agent", a->agent, "Agent mode: requests wait for `ksearch agent next/submit`"));
  return [a](proposers::ProposerSpec& spec) {
    const bool model = !a->spec.empty() || !a->config_file.empty();
    if (a->agent && model) throw Error("--agent and --llm/--llm-config exclude each other");
    if (a->agent) {
      spec = {"agent", nlohmann::json::object()};
      return;
    }
    const bool llm_flags = !a->base_url.empty() || !a->api_key_env.empty() || a->temperature || a->max_output_tokens ||
                           !a->reasoning_effort.empty() || !a->prices_file.empty() || a->max_usd || a->max_tokens || a->max_calls;
    if (!model) {
      if (llm_flags) throw Error("model options need --llm PROVIDER:MODEL or --llm-config FILE");
      return;
    }
    proposers::llm::LlmSettings s;
    try {
      if (!a->config_file.empty()) {
        std::string file = a->config_file, section = "llm";
        if (const auto colon = file.rfind(':'); colon != std::string::npos && colon > 0) {
          section = file.substr(colon + 1);
          file = file.substr(0, colon);
        }
        s.provider = llm::load_provider_config(file, section);
      }
      if (!a->spec.empty()) {
        // The spec picks provider and model; settings from the file that still apply are kept.
        const auto from_file = s.provider;
        s.provider = llm::parse_provider_spec(a->spec);
        if (!a->config_file.empty()) {
          s.provider.temperature = from_file.temperature;
          s.provider.max_output_tokens = from_file.max_output_tokens;
          s.provider.reasoning_effort = from_file.reasoning_effort;
          s.provider.timeout_s = from_file.timeout_s;
          s.provider.connect_timeout_s = from_file.connect_timeout_s;
          s.provider.max_retries = from_file.max_retries;
          s.provider.max_malformed_retries = from_file.max_malformed_retries;
          s.provider.retry_base_delay_s = from_file.retry_base_delay_s;
          s.provider.retry_max_delay_s = from_file.retry_max_delay_s;
          s.provider.retry_after_cap_s = from_file.retry_after_cap_s;
        }
      }
    } catch (const llm::LlmError& e) {
      throw Error(e.what());
    }
    if (!a->base_url.empty()) s.provider.base_url = a->base_url;
    if (!a->api_key_env.empty()) s.provider.api_key_env = a->api_key_env;
    if (a->temperature) s.provider.temperature = a->temperature;
    if (a->max_output_tokens) s.provider.max_output_tokens = a->max_output_tokens;
    if (!a->reasoning_effort.empty()) s.provider.reasoning_effort = a->reasoning_effort;
    if (!a->prices_file.empty()) s.prices_file = std::filesystem::absolute(a->prices_file).string();
    s.budget.max_usd = a->max_usd;
    s.budget.max_tokens = a->max_tokens;
    s.budget.max_calls = a->max_calls;
    spec = {"llm", s.to_json()};
  };
}

}  // namespace
KSEARCH_RUN_OPTIONS(llm, add_llm_options);
}  // namespace ksearch::cli
