#pragma once
// Price table: USD per million tokens per provider:model, loaded from TOML.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "llm/usage.hpp"

namespace ksearch::llm {

struct Price {
  double input = 0;         // USD per 1M uncached input tokens
  double output = 0;        // USD per 1M output tokens (reasoning included)
  double cached_input = 0;  // USD per 1M cache-read input tokens
  double cache_write = 0;   // USD per 1M cache-write input tokens
};

struct CostEstimate {
  double usd = 0;
  bool known = false;  // false: no price for the model, usd is 0
};

class PriceTable {
 public:
  // TOML layout: one table per provider, one sub-table per model:
  //   [openai."gpt-4.1"]
  //   input = 2.0
  //   output = 8.0
  //   cached_input = 0.5   # optional, defaults to input
  //   cache_write = 2.5    # optional, defaults to input
  // Entries of a later file replace entries of the same provider:model.
  void merge_file(const std::filesystem::path& path);
  void merge_string(std::string_view toml_text, std::string_view source_name = "<string>");
  void set(std::string provider, std::string model, Price price);

  // Exact provider:model first, then an entry the model extends by a snapshot
  // suffix ("-20250929", "-2024-08-06", "-latest", "@...": dated snapshots
  // such as "claude-sonnet-4-5-20250929" use the "claude-sonnet-4-5" entry).
  // openai-responses and openai-compatible fall back to the openai prices.
  std::optional<Price> find(std::string_view provider, std::string_view model) const;

  CostEstimate cost(std::string_view provider, std::string_view model, const Usage& usage) const;

  size_t size() const { return prices_.size(); }

  // The built-in table (ksearch's config/prices.toml, which the caller locates), or $KSEARCH_PRICES_FILE
  // when set; then the user's override file (if non-empty) merged over it.
  static PriceTable load_default(const std::filesystem::path& builtin_table, const std::filesystem::path& user_override = {});

 private:
  std::optional<Price> find_exact_or_prefix(std::string_view provider, std::string_view model) const;
  std::map<std::string, std::map<std::string, Price, std::less<>>, std::less<>> prices_;
};

}  // namespace ksearch::llm
