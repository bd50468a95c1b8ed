#pragma once
// `ksearch run --backend metal --from RUN_DIR|FILE.cu` (docs/TRANSLATE.md): the best passing kernels
// of a finished cuda run (or a CUDA file) are ported to Metal; the best complete port becomes the
// metal search's seed, evaluated first (round 0), so the search starts from it. What was ported, from
// which cuda candidate, and what could not be translated is recorded in the run (config "from" and
// events).
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::cli {

struct PortedSeed {
  std::filesystem::path seed;   // the metal candidate the search starts from; empty when none ported
  nlohmann::json lineage;       // {"from", "ports": [{"candidate", "speedup", "status", "untranslated", ...}]}
  std::vector<std::string> events;  // one line per port, for the run's events
};

// Ports up to `top` passing candidates of the cuda run (best first), or the file, into
// `run_dir`/from/. Throws Error for bad input (not a cuda run, another task, no passing candidate, a
// missing file, a task without [entry.cuda]).
PortedSeed port_seeds(const std::string& from, const tasks::Task& task, const std::filesystem::path& run_dir, int top);

// A run started with --from (its config's "from" names the ported seed): the task's metal entry uses
// that seed, for the run and on resume. A task without [entry.metal] gets its [entry.cuda] arguments.
void use_ported_seed(tasks::Task& task, const nlohmann::json& run_config);

}  // namespace ksearch::cli
