#include "core/build_cache.hpp"

#include <unistd.h>

#include <random>

#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"

namespace fs = std::filesystem;

namespace ksearch {

BuildOutcome build_cached(const BuildRequest& request) {
  std::string key_material;
  for (const auto& [name, contents] : request.files) key_material += name + "\n" + contents + "\n\x1f";
  for (const auto& arg : request.command) key_material += arg + "\x1e";
  const std::string key = sha256_hex(key_material).substr(0, 32);
  const fs::path root = cache_subdir("builds/" + request.kind);
  const fs::path final_dir = root / key;

  BuildOutcome outcome;
  outcome.directory = final_dir;
  if (fs::exists(final_dir / request.artifact_name)) {
    outcome.ok = outcome.cached = true;
    outcome.artifact = final_dir / request.artifact_name;
    return outcome;
  }
  if (fs::exists(final_dir / "failed.log")) {  // failures are cached too: the same source fails the same way
    outcome.cached = true;
    outcome.log = read_file(final_dir / "failed.log");
    return outcome;
  }

  // Build in a private folder, then publish it with one rename so concurrent builds never see half a result.
  const fs::path work = root / (key + ".tmp." + std::to_string(getpid()) + "." + std::to_string(std::random_device{}()));
  fs::create_directories(work);
  for (const auto& [name, contents] : request.files) write_file_atomic(work / name, contents);
  std::vector<std::string> command;
  for (std::string arg : request.command) {
    if (auto pos = arg.find("{out}"); pos != std::string::npos) arg.replace(pos, 5, (work / request.artifact_name).string());
    command.push_back(arg);
  }
  CommandOptions options;
  options.timeout = request.timeout;
  options.cwd = work;
  options.memory_limit_bytes = request.memory_limit_bytes;
  CommandResult result = run_command(command, options);
  outcome.seconds = result.wall_seconds;
  outcome.log = result.output;
  outcome.timed_out = result.timed_out;
  if (result.timed_out) outcome.log += "\n[ksearch] compilation timed out after " + std::to_string(request.timeout.count()) + " s";
  const bool ok = result.ok() && fs::exists(work / request.artifact_name);
  if (!ok && !result.timed_out) write_file_atomic(work / "failed.log", outcome.log);
  if (!ok && result.timed_out) {  // a time-out may be the machine's fault: do not cache it
    fs::remove_all(work);
    return outcome;
  }
  std::error_code ec;
  fs::rename(work, final_dir, ec);
  if (ec) fs::remove_all(work);  // another process published the same key first: use theirs
  outcome.ok = ok;
  if (ok) outcome.artifact = final_dir / request.artifact_name;
  // Compiler messages name files by their build-folder paths; keep them short and stable.
  for (const fs::path& prefix : {work, final_dir}) {
    const std::string p = prefix.string() + "/";
    for (size_t pos; (pos = outcome.log.find(p)) != std::string::npos;) outcome.log.erase(pos, p.size());
  }
  return outcome;
}

}  // namespace ksearch
