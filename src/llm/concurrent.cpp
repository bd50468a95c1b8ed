#include "llm/concurrent.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace ksearch::llm {

std::vector<CompletionResult> complete_all(Client& client, const std::vector<CompletionRequest>& requests,
                                           size_t max_parallel) {
  std::vector<CompletionResult> results(requests.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      CompletionResult& r = results[i];
      try {
        r.response = client.complete(requests[i]);
      } catch (const LlmError& e) {
        r.error = std::current_exception();
        r.error_category = e.category();
        r.error_message = e.what();
      } catch (const std::exception& e) {
        r.error = std::current_exception();
        r.error_message = e.what();
      }
    }
  };
  size_t n = std::clamp<size_t>(max_parallel, 1, std::max<size_t>(requests.size(), 1));
  {
    std::vector<std::jthread> threads;
    threads.reserve(n);
    for (size_t i = 0; i < n; ++i) threads.emplace_back(worker);
  }  // joined here, before results is moved out
  return results;
}

}  // namespace ksearch::llm
