#pragma once
// The LLM proposer ("llm"): K-Search's planner roles answered by a language model through the
// provider clients of src/llm, with prompts from prompts/ (see docs/LLM.md). And the agent
// proposer ("agent"), which never answers by itself: its requests wait in the run store for
// `ksearch agent next` / `ksearch agent submit`.
#include <string>

#include <nlohmann/json.hpp>

#include "llm/llm.hpp"

namespace ksearch::proposers::llm {

// The "llm" proposer's configuration, stored with the run (no secrets: keys come from the
// environment variable named by provider.api_key_env at each call).
struct LlmSettings {
  ksearch::llm::ProviderConfig provider;
  std::string prices_file;            // merged over the default price table; empty: defaults only
  ksearch::llm::BudgetLimits budget;  // over all sessions of the run
  std::string prompts_dir;            // empty: PromptLibrary::default_dir()
  int reask = 2;                      // re-asks per request after a rejected answer (bad JSON, edit script, rules, no code)
  int max_parallel = 8;               // concurrent calls when the planner wants several candidates

  nlohmann::json to_json() const;
  static LlmSettings from_json(const nlohmann::json& j);  // throws Error
};

// Registers "llm" and "agent"; called by the CLI so that this library's objects are linked.
bool register_llm_proposers();

}  // namespace ksearch::proposers::llm
