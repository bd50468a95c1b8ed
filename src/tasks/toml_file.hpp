#pragma once
// Reading a TOML data file (tasks, template families) with errors that name the file, the line and the
// field: "<file>:<line>: field '<field>': <message>".
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "core/error.hpp"
#include "core/paths.hpp"

namespace ksearch::tasks {

class TomlFileReader {
 public:
  explicit TomlFileReader(std::filesystem::path file) : file_(std::move(file)) {}

  // The whole file; a syntax error names file, line and column.
  toml::table parse() const {
    const std::string text = read_file(file_);  // a file that cannot be read is the file system's error, not a syntax one
    try {
      return toml::parse(text, file_.string());
    } catch (const toml::parse_error& e) {
      throw Error(fmt::format("{}:{}:{}: TOML syntax error: {}", file_.string(), e.source().begin.line,
                              e.source().begin.column, e.description()));
    }
  }

  [[noreturn]] void fail(const toml::node* node, const std::string& field, const std::string& message) const {
    if (node && node->source().begin.line > 0)
      throw Error(fmt::format("{}:{}: field '{}': {}", file_.string(), node->source().begin.line, field, message));
    throw Error(fmt::format("{}: field '{}': {}", file_.string(), field, message));
  }

  const toml::table& table(const toml::node* node, const std::string& field) const {
    if (!node || !node->is_table()) fail(node, field, "expected a table");
    return *node->as_table();
  }

  std::string string(const toml::table& t, const std::string& key, const std::string& field,
                     std::optional<std::string> fallback = std::nullopt) const {
    const toml::node* node = t.get(key);
    const std::string path = field.empty() ? key : field + "." + key;  // field: the table's own path, "" at the top
    if (!node) {
      if (fallback) return *fallback;
      fail(&t, path, "missing (a string is required)");
    }
    if (!node->is_string()) fail(node, path, "expected a string");
    return std::string(*node->value<std::string>());
  }

  double number(const toml::node* node, const std::string& field) const {
    if (node && node->is_integer()) return double(*node->value<int64_t>());
    if (node && node->is_floating_point()) return *node->value<double>();
    if (node && node->is_boolean()) return *node->value<bool>() ? 1 : 0;
    fail(node, field, "expected a number");
  }

  int64_t integer(const toml::node* node, const std::string& field) const {
    if (!node || !node->is_integer()) fail(node, field, "expected an integer");
    return *node->value<int64_t>();
  }

  std::vector<int64_t> integers(const toml::node* node, const std::string& field) const {
    std::vector<int64_t> out;
    if (!node || !node->is_array() || node->as_array()->empty()) fail(node, field, "expected a non-empty array of integers");
    for (const auto& item : *node->as_array()) out.push_back(integer(&item, field));
    return out;
  }

  std::vector<std::string> strings(const toml::node* node, const std::string& field) const {
    std::vector<std::string> out;
    if (!node || !node->is_array()) fail(node, field, "expected an array of strings");
    for (const auto& item : *node->as_array()) {
      if (item.is_string()) out.emplace_back(*item.value<std::string>());
      else if (item.is_integer()) out.push_back(std::to_string(*item.value<int64_t>()));
      else fail(&item, field, "expected strings (or integers for fixed dimensions)");
    }
    return out;
  }

  // A misspelt key must not be ignored: a typo'd `held_ot` would silently make held-out workloads visible.
  void only_known_keys(const toml::table& t, const std::string& field, std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : t) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string expected;
      for (std::string_view k : known) expected += (expected.empty() ? "" : ", ") + std::string(k);
      fail(&value, field.empty() ? std::string(key.str()) : field + "." + std::string(key.str()),
           "unknown key (expected one of: " + expected + ")");
    }
  }

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

}  // namespace ksearch::tasks
