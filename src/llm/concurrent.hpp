#pragma once
// Run several completion requests at once on one client.
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "llm/llm.hpp"

namespace ksearch::llm {

struct CompletionResult {
  std::optional<CompletionResponse> response;
  std::exception_ptr error;  // set when response is empty
  std::optional<ErrorCategory> error_category;  // for LlmError
  std::string error_message;
  bool ok() const { return response.has_value(); }
};

// Runs every request, at most max_parallel at a time, and returns the results
// in request order. Never throws for a failed request; a BudgetExceeded shows
// up as an error result of category Budget.
std::vector<CompletionResult> complete_all(Client& client, const std::vector<CompletionRequest>& requests,
                                           size_t max_parallel = 4);

}  // namespace ksearch::llm
