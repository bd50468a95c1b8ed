#pragma once
// Pull source code and JSON out of free-form model answers.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksearch::llm {

struct CodeBlock {
  std::optional<std::string> filename;
  std::optional<std::string> language;  // lower-case, normalised ("c++" -> "cpp", "cu" -> "cuda")
  std::string code;
  bool complete = true;  // false: no closing fence/tag (the answer was cut off)
};

// All code blocks in text order. Recognises ``` and ~~~ fences (any length,
// with or without a language; "```cuda:kernel.cu", "```kernel.cu",
// "```cpp title=\"k.cpp\"" give a filename), a filename line just above a
// fence ("**kernel.cu**", "File: kernel.cu", "### `kernel.cu`"), and the tags
// <code>, <kernel>, <file name="..."> (attributes name/filename/path/file and
// language/lang; a fence inside a tag is unwrapped). Prose around is ignored.
std::vector<CodeBlock> extract_code_blocks(std::string_view text);

// The single block to use: among blocks whose language (or filename
// extension) is one of `languages`, else among all, the longest complete one;
// an incomplete one only if nothing else exists.
std::optional<CodeBlock> extract_code(std::string_view text, const std::vector<std::string>& languages = {});

// The first complete JSON object: a ```json (or untagged) fence whose content
// parses, else the first balanced {...} in the text that parses.
std::optional<nlohmann::json> extract_json(std::string_view text);

// "cu" -> "cuda", "c++" -> "cpp", ...; lower-case otherwise.
std::string normalize_language(std::string_view lang);
// Language from a file name's extension; nullopt if unknown.
std::optional<std::string> language_from_filename(std::string_view filename);

}  // namespace ksearch::llm
