#include "core/build_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <random>

#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"

namespace fs = std::filesystem;

namespace ksearch {

namespace {

// The request's command with "{out}" replaced by `artifact`.
std::vector<std::string> command_writing(const BuildRequest& request, const fs::path& artifact) {
  std::vector<std::string> command;
  for (std::string arg : request.command) {
    if (auto pos = arg.find("{out}"); pos != std::string::npos) arg.replace(pos, 5, artifact.string());
    command.push_back(arg);
  }
  return command;
}

CommandResult run_in(const BuildRequest& request, const fs::path& dir, const std::vector<std::string>& command) {
  for (const auto& [name, contents] : request.files) write_file_atomic(dir / name, contents);
  CommandOptions options;
  options.timeout = request.timeout;
  options.cwd = dir;
  options.memory_limit_bytes = request.memory_limit_bytes;
  options.file_size_limit_bytes = request.file_size_limit_bytes;
  return run_command(command, options);
}

// Compiler messages name files by their build-folder paths; keep them short and stable.
void drop_prefix(std::string& log, const fs::path& prefix) {
  const std::string p = prefix.string() + "/";
  for (size_t pos; (pos = log.find(p)) != std::string::npos;) log.erase(pos, p.size());
}

fs::path private_folder(const fs::path& root, const std::string& stem) {
  const fs::path dir = root / (stem + ".tmp." + std::to_string(getpid()) + "." + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

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
  const fs::path work = private_folder(root, key);
  CommandResult result = run_in(request, work, command_writing(request, work / request.artifact_name));
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
  for (const fs::path& prefix : {work, final_dir}) drop_prefix(outcome.log, prefix);
  return outcome;
}

PreprocessOutcome preprocess_uncached(BuildRequest request) {
  // A kernel's sources with the headers it includes run to a few megabytes; macros that double their text at every
  // level reach gigabytes in seconds, which ksearch would then read and scan.
  constexpr size_t kPreprocessedLimit = size_t(64) << 20;
  request.file_size_limit_bytes = std::min(request.file_size_limit_bytes, kPreprocessedLimit);
  const fs::path dir = private_folder(cache_subdir("preprocess"), request.kind);
  // The folder goes whatever happens below (a failed read must not leave a gigabyte in the cache).
  const std::unique_ptr<const fs::path, void (*)(const fs::path*)> cleanup(&dir, [](const fs::path* d) {
    std::error_code ec;
    fs::remove_all(*d, ec);
  });
  const fs::path preprocessed = dir / "preprocessed.ii";
  std::vector<std::string> command = command_writing(request, preprocessed);
  command.insert(command.begin() + 1, "-E");
  const CommandResult result = run_in(request, dir, command);
  PreprocessOutcome outcome;
  std::error_code ec;
  const bool too_large = fs::file_size(preprocessed, ec) >= kPreprocessedLimit && !ec;
  outcome.ok = result.ok() && fs::exists(preprocessed) && !too_large;
  outcome.log = result.output;
  if (result.timed_out) outcome.log += "\n[ksearch] preprocessing timed out after " + std::to_string(request.timeout.count()) + " s";
  if (too_large)
    outcome.log += "\n[ksearch] the preprocessed source reached " + std::to_string(kPreprocessedLimit >> 20) +
                   " MiB and was stopped: macros that multiply their text at each expansion?";
  drop_prefix(outcome.log, dir);
  if (outcome.ok) outcome.text = read_file(preprocessed);
  return outcome;
}

}  // namespace ksearch
