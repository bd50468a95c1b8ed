#include "llm/budget.hpp"

#include <fmt/format.h>

#include "llm/errors.hpp"

namespace ksearch::llm {

std::optional<std::string> BudgetTracker::exceeded_locked() const {
  if (limits_.max_usd && used_.usd >= *limits_.max_usd)
    return fmt::format("LLM budget reached: spent ${:.4f} of max ${:.4f}", used_.usd, *limits_.max_usd);
  if (limits_.max_tokens && used_.tokens >= *limits_.max_tokens)
    return fmt::format("LLM budget reached: used {} of max {} tokens", used_.tokens, *limits_.max_tokens);
  if (limits_.max_calls && used_.calls >= *limits_.max_calls)
    return fmt::format("LLM budget reached: made {} of max {} calls", used_.calls, *limits_.max_calls);
  return std::nullopt;
}

std::optional<std::string> BudgetTracker::exceeded() const {
  std::lock_guard lk(mu_);
  return exceeded_locked();
}

void BudgetTracker::check() const {
  if (auto why = exceeded()) throw BudgetExceeded(*why);
}

void BudgetTracker::reserve_call() {
  std::lock_guard lk(mu_);
  if (auto why = exceeded_locked()) throw BudgetExceeded(*why);
  ++used_.calls;
}

void BudgetTracker::record(const Usage& usage, double cost_usd) {
  std::lock_guard lk(mu_);
  used_.usage += usage;
  used_.tokens += usage.total();
  used_.usd += cost_usd;
}

BudgetSnapshot BudgetTracker::snapshot() const {
  std::lock_guard lk(mu_);
  return used_;
}

}  // namespace ksearch::llm
