#include <unistd.h>

#include <algorithm>
#include <map>

#include "backends/backend.hpp"
#include "core/build_cache.hpp"
#include "core/error.hpp"

namespace ksearch::backends {

namespace {
std::map<std::string, BackendFactory>& factories() {
  static std::map<std::string, BackendFactory> map;
  return map;
}
}  // namespace

bool register_backend(const std::string& name, BackendFactory factory) {
  factories()[name] = std::move(factory);
  return true;
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  auto it = factories().find(name);
  if (it == factories().end()) {
    std::string known;
    for (const auto& [n, _] : factories()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown backend '" + name + "' (known: " + known + ")");
  }
  return it->second();
}

BuildResult shared_library_result(const BuildOutcome& outcome) {
  BuildResult result;
  result.ok = outcome.ok;
  result.cached = outcome.cached;
  result.log = outcome.log;
  result.seconds = outcome.seconds;
  // The runner may read the build folder (and nothing else outside the system libraries).
  if (outcome.ok) result.artifact = {{"library", outcome.artifact.string()}, {"readable", {outcome.directory.string()}}};
  return result;
}

uint64_t half_of_memory(uint64_t cap_bytes) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return std::min<uint64_t>(cap_bytes, uint64_t(pages) * uint64_t(page) / 2);
}

void require_source_format(const std::string& backend, const std::string& format) {
  if (!format.empty() && format != "source")
    throw Error("unknown export format '" + format + "' for the " + backend + " backend (it offers: source)");
}

std::string comment_block(const std::string& text, const std::string& marker) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.empty() ? marker + "\n" : marker + " " + line + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace ksearch::backends
