#include "llm/pricing.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <toml++/toml.h>

#include "llm/errors.hpp"

namespace ksearch::llm {

namespace {

double number_or(const toml::table& t, std::string_view key, double fallback, std::string_view where) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  if (auto v = n->value<double>()) return *v;
  throw LlmError(ErrorCategory::Config, std::string(where) + ": '" + std::string(key) + "' must be a number");
}

}  // namespace

void PriceTable::merge_string(std::string_view toml_text, std::string_view source_name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << "price table " << source_name << ": " << e.description() << " at " << e.source().begin;
    throw LlmError(ErrorCategory::Config, os.str());
  }
  for (auto&& [provider, pnode] : root) {
    const auto* models = pnode.as_table();
    if (!models) continue;  // top-level scalars (e.g. a date note) are metadata
    for (auto&& [model, mnode] : *models) {
      const auto* entry = mnode.as_table();
      std::string where = std::string(source_name) + ": " + std::string(provider.str()) + ":" + std::string(model.str());
      if (!entry) throw LlmError(ErrorCategory::Config, where + " must be a table");
      if (!entry->contains("input") || !entry->contains("output"))
        throw LlmError(ErrorCategory::Config, where + " needs 'input' and 'output'");
      Price p;
      p.input = number_or(*entry, "input", 0, where);
      p.output = number_or(*entry, "output", 0, where);
      p.cached_input = number_or(*entry, "cached_input", p.input, where);
      p.cache_write = number_or(*entry, "cache_write", p.input, where);
      set(std::string(provider.str()), std::string(model.str()), p);
    }
  }
}

void PriceTable::merge_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw LlmError(ErrorCategory::Config, "cannot read price table " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  merge_string(ss.str(), path.string());
}

void PriceTable::set(std::string provider, std::string model, Price price) {
  prices_[std::move(provider)][std::move(model)] = price;
}

std::optional<Price> PriceTable::find_exact_or_prefix(std::string_view provider, std::string_view model) const {
  auto pit = prices_.find(provider);
  if (pit == prices_.end()) return std::nullopt;
  const auto& models = pit->second;
  if (auto it = models.find(model); it != models.end()) return it->second;
  // Only snapshot suffixes fall back to the base entry: "o3-pro" must not
  // be priced as "o3".
  static const std::regex snapshot(R"((-\d{4}-?\d{2}-?\d{2}|-latest|@.*))");
  for (const auto& [key, price] : models) {
    if (key.size() < model.size() && model.substr(0, key.size()) == key) {
      std::string_view rest = model.substr(key.size());
      if (std::regex_match(rest.begin(), rest.end(), snapshot)) return price;
    }
  }
  return std::nullopt;
}

std::optional<Price> PriceTable::find(std::string_view provider, std::string_view model) const {
  if (auto p = find_exact_or_prefix(provider, model)) return p;
  if (provider == "openai-responses" || provider == "openai-compatible") return find_exact_or_prefix("openai", model);
  return std::nullopt;
}

CostEstimate PriceTable::cost(std::string_view provider, std::string_view model, const Usage& u) const {
  auto p = find(provider, model);
  if (!p) return {0.0, false};
  int64_t uncached = u.input_tokens - u.cached_input_tokens - u.cache_write_tokens;
  if (uncached < 0) uncached = 0;
  double usd = (static_cast<double>(uncached) * p->input + static_cast<double>(u.cached_input_tokens) * p->cached_input +
                static_cast<double>(u.cache_write_tokens) * p->cache_write +
                static_cast<double>(u.output_tokens) * p->output) /
               1e6;
  return {usd, true};
}

PriceTable PriceTable::load_default(const std::filesystem::path& builtin_table, const std::filesystem::path& user_override) {
  PriceTable t;
  const char* env = std::getenv("KSEARCH_PRICES_FILE");
  t.merge_file(env && *env ? std::filesystem::path(env) : builtin_table);
  if (!user_override.empty()) t.merge_file(user_override);
  return t;
}

}  // namespace ksearch::llm
