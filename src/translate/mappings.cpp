// The data the translator works from, embedded at build time (data_embed.cpp, generated): the
// mapping table of src/translate/mappings.toml (CUDA functions, types, untranslatable constructs),
// the Metal helpers the mapped code names, and the CUDA declarations clang parses the file with.
#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "translate/translator_internal.hpp"

namespace ksearch::translate {
extern const std::map<std::string, std::string> kDataFiles;  // data_embed.cpp (generated)
}  // namespace ksearch::translate

namespace ksearch::translate::detail {

namespace {

// $rank, $lane and $size of a pattern: the thread's linear index in the threadgroup, its lane in the
// SIMD group (SIMD groups are 32 consecutive threads of that index), and the threadgroup's size.
std::string expand_thread_indices(std::string pattern) {
  const std::string rank =
      "(thread_position_in_threadgroup.x + threads_per_threadgroup.x * (thread_position_in_threadgroup.y + "
      "threads_per_threadgroup.y * thread_position_in_threadgroup.z))";
  const std::string size = "(threads_per_threadgroup.x * threads_per_threadgroup.y * threads_per_threadgroup.z)";
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"$lane", "(" + rank + " % 32)"}, {"$rank", rank}, {"$size", size}})
    for (size_t at; (at = pattern.find(name)) != std::string::npos;) pattern.replace(at, name.size(), value);
  return pattern;
}

std::vector<std::string> strings(const toml::array* list) {
  std::vector<std::string> out;
  if (list)
    for (const auto& h : *list) out.push_back(h.value_or(std::string()));
  return out;
}

}  // namespace

Mappings load_mappings() {
  Mappings m;
  const toml::table table = toml::parse(kDataFiles.at("mappings.toml"));
  auto section = [&](const char* name) -> const toml::table& {
    if (!table[name].as_table()) throw Error(std::string("src/translate/mappings.toml: missing [") + name + "]");
    return *table[name].as_table();
  };
  for (const auto& [name, value] : section("functions")) {
    FunctionMapping f;
    if (auto s = value.value<std::string>()) {
      f.metal = *s;
    } else {
      const toml::table& t = *value.as_table();
      f.metal = t["metal"].value_or(std::string());
      f.width_arg = t["width_arg"].value_or(0);
      f.segmented = expand_thread_indices(t["segmented"].value_or(std::string()));
      f.segmented_helpers = strings(t["segmented_helpers"].as_array());
      f.note = t["note"].value_or(std::string());
      f.helpers = strings(t["helpers"].as_array());
      f.threadgroup = t["threadgroup"].value_or(std::string());
    }
    f.metal = expand_thread_indices(f.metal);
    m.functions[std::string(name.str())] = f;
  }
  for (const auto& [name, value] : section("untranslatable"))
    m.untranslatable[std::string(name.str())] = value.value_or(std::string());
  for (const char* name_of_section : {"types", "macros"})
    for (const auto& [name, value] : section(name_of_section)) {
      if (const toml::table* t = value.as_table()) {
        m.types[std::string(name.str())] = (*t)["metal"].value_or(std::string());
        m.type_helpers[std::string(name.str())] = strings((*t)["helpers"].as_array());
      } else {
        m.types[std::string(name.str())] = value.value_or(std::string());
      }
    }
  // The helper files: sections starting at `// helper: NAME`.
  const std::string marker = "// helper: ";
  for (const char* file : {"metal_helpers.metal", "metal_common/address_spaces.h"}) {
    const std::string& text = kDataFiles.at(file);
    for (size_t at = text.find(marker); at != std::string::npos;) {
      const size_t name_end = text.find('\n', at);
      const std::string name = text.substr(at + marker.size(), name_end - at - marker.size());
      const size_t next = text.find(marker, name_end);
      m.helpers[name] = text.substr(name_end + 1, (next == std::string::npos ? text.size() : next) - name_end - 1);
      at = next;
    }
  }
  return m;
}

std::filesystem::path cuda_include_dir() {
  std::string all;
  for (const auto& [name, text] : kDataFiles) all += name + text;
  const std::filesystem::path dir = cache_subdir("translate") / ("cuda_include-" + sha256_hex(all).substr(0, 16));
  // ksearch_cuda.h is written last: a process that finds it (another test or search writing the folder at once)
  // finds every other header written too.
  const std::string marker = "cuda_include/ksearch_cuda.h";
  if (!std::filesystem::exists(dir / "ksearch_cuda.h")) {
    std::filesystem::create_directories(dir);
    for (const auto& [name, text] : kDataFiles)
      if (name.rfind("cuda_include/", 0) == 0 && name != marker) write_file_atomic(dir / name.substr(13), text);
    write_file_atomic(dir / "ksearch_cuda.h", kDataFiles.at(marker));
  }
  return dir;
}

}  // namespace ksearch::translate::detail
