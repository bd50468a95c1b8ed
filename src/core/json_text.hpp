#pragma once
// core/json_text: JSON as text, whatever bytes its strings hold.
#include <nlohmann/json.hpp>
#include <string>

namespace ksearch {

// nlohmann's dump(), with bytes that are not UTF-8 (a Latin-1 comment in a candidate, a binary file given as
// one) written as U+FFFD instead of throwing: such text is stored, printed and sent, never the cause of an abort.
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ksearch
