#pragma once
// Shared by the llm_proposer tests: paths, transcripts, and proposer settings aimed at the
// scripted server.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>

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

// A model behind the scripted server (its handler, OpenAI chat format): each role gets its recorded
// answer, write_code after `write_seconds` (changeable while requests wait). It counts write_code
// requests, those being answered, and the most different write_code prompts being answered at the
// same time (one call's conversations share a prompt; different calls' rounds have their own).
class SlowModel {
 public:
  explicit SlowModel(double write_seconds) : write_seconds_(write_seconds) {}
  llm::testing::CannedResponse operator()(const llm::testing::RecordedRequest& request) {
    using llm::testing::canned::openai_chat;
    const std::string prompt = request.json()["messages"].back()["content"];
    const auto u = llm::testing::usage(1000, 300);
    if (prompt.find("## Your job: the first world model") != std::string::npos) return openai_chat(answer("initialize"), u);
    if (prompt.find("## Your job: reflect") != std::string::npos || prompt.find("## Why you are asked") != std::string::npos)
      return openai_chat(answer("refine"), u);
    int number = 0;
    {
      std::lock_guard lock(mu_);
      ++in_flight_[prompt];
      most_prompts_ = std::max(most_prompts_, int(in_flight_.size()));
      number = ++written_;
    }
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(write_seconds_.load()))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    {
      std::lock_guard lock(mu_);
      if (--in_flight_[prompt] == 0) in_flight_.erase(prompt);
    }
    return openai_chat(answer(number % 2 ? "write_code" : "write_code_b"), u);
  }
  void answer_in(double seconds) { write_seconds_ = seconds; }
  int most_prompts() const {
    std::lock_guard lock(mu_);
    return most_prompts_;
  }
  int written() const {  // write_code requests received
    std::lock_guard lock(mu_);
    return written_;
  }
  int writing() const {  // write_code requests being answered
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& [prompt, count] : in_flight_) n += count;
    return n;
  }

 private:
  std::atomic<double> write_seconds_;
  mutable std::mutex mu_;
  std::map<std::string, int> in_flight_;
  int most_prompts_ = 0, written_ = 0;
};

}  // namespace ksearch::test
