#pragma once
// Shared by the llm_proposer tests: paths, transcripts, and proposer settings aimed at the
// scripted server.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/paths.hpp"
#include "llm/llm.hpp"
#include "proposers/llm/llm_proposer.hpp"
#include "test_server.hpp"
#include "test_util.hpp"

namespace ksearch::test {

inline std::filesystem::path here() { return KSEARCH_LLMP_TEST_DIR; }
inline std::filesystem::path tiny_softmax() { return std::filesystem::path(KSEARCH_TEST_DATA) / "tasks" / "tiny_softmax" / "task.toml"; }
inline std::string answer(const std::string& name) { return read_file(here() / "transcripts" / "answers" / (name + ".md")); }
// A recorded response body in a provider's wire format, served as is.
inline llm::testing::CannedResponse transcript(const std::string& provider, const std::string& name) {
  llm::testing::CannedResponse r;
  r.body = read_file(here() / "transcripts" / provider / (name + ".json"));
  return r;
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("ksearch-llmp-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// "provider:model" aimed at the server, fast retries, test prices.
inline proposers::llm::LlmSettings settings_for(const llm::testing::ScriptedServer& server, const std::string& spec) {
  proposers::llm::LlmSettings s;
  s.provider = llm::testing::config_for(server, spec);
  s.provider.max_retries = 1;
  s.prices_file = (here() / "prices.toml").string();
  return s;
}

}  // namespace ksearch::test
