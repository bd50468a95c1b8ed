#pragma once
// Thread-safe spending limits shared by all clients of a run.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "llm/usage.hpp"

namespace ksearch::llm {

struct BudgetLimits {
  std::optional<double> max_usd;
  std::optional<int64_t> max_tokens;  // input + output
  std::optional<int64_t> max_calls;
};

struct BudgetSnapshot {
  double usd = 0;
  int64_t tokens = 0;
  int64_t calls = 0;  // calls started (reserved), successful or not
  Usage usage;
};

class BudgetTracker {
 public:
  explicit BudgetTracker(BudgetLimits limits = {}) : limits_(limits) {}

  // Empty when within limits, else the reason ("max_usd reached: ...").
  std::optional<std::string> exceeded() const;
  // Throws BudgetExceeded when a limit is reached.
  void check() const;
  // check() and count the call atomically, so concurrent callers cannot
  // start more than max_calls calls. Clients call this before each request.
  void reserve_call();
  // Adds the usage and cost of a finished call.
  void record(const Usage& usage, double cost_usd);

  BudgetSnapshot snapshot() const;
  const BudgetLimits& limits() const { return limits_; }

 private:
  std::optional<std::string> exceeded_locked() const;
  BudgetLimits limits_;
  mutable std::mutex mu_;
  BudgetSnapshot used_;
};

}  // namespace ksearch::llm
