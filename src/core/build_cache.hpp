#pragma once
// core/build_cache: compile jobs cached by the hash of their sources and command line (failures
// too), shared by candidates, references and probes.
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// A compile job whose result is cached by the hash of its sources and command line.
struct BuildRequest {
  std::string kind;  // cache subfolder, e.g. "cpu", "cuda", "reference"
  std::vector<std::pair<std::string, std::string>> files;  // file name -> contents, written to the build folder
  // Command run in the build folder; "{out}" is replaced by the artifact path.
  std::vector<std::string> command;
  std::string artifact_name = "out.so";
  std::chrono::seconds timeout{120};
  size_t memory_limit_bytes = size_t(4) << 30;
  // No file the command writes grows past this: a few lines of macros can expand to gigabytes of source or object.
  size_t file_size_limit_bytes = size_t(1) << 30;
};

struct BuildOutcome {
  bool ok = false;
  bool cached = false;
  bool timed_out = false;
  std::filesystem::path artifact;   // valid when ok
  std::filesystem::path directory;  // the build folder (sources live there, for error messages)
  std::string log;                  // compiler output
  double seconds = 0;
};

BuildOutcome build_cached(const BuildRequest& request);

struct PreprocessOutcome {
  bool ok = false;
  std::string text;  // the preprocessor's output, line markers included
  std::string log;   // its messages
};

// The request's command with -E added (the same flags, so the same macros and headers), run on its
// files in a private temporary folder; not cached.
PreprocessOutcome preprocess_uncached(BuildRequest request);

}  // namespace ksearch
