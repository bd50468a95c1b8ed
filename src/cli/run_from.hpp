#pragma once
// `ksearch run --backend metal --from RUN_DIR|FILE.cu` (docs/TRANSLATE.md): the best passing kernels
// of a finished cuda run (or a CUDA file) are ported to Metal; the best complete port becomes the
// metal search's seed and the other complete ports are evaluated with it in round 0 (each a root of
// its own in the world model); the cuda run's world-model hypotheses that the metal profile does not
// make irrelevant are carried over, their evidence marked as measured on cuda. What was ported and
// carried, from which cuda candidate and node, and what was not is recorded in the run (config
// "from" and events).
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/rules.hpp"
#include "search/strategy.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::cli {

struct PortedSeed {
  std::filesystem::path seed;   // the metal candidate the search starts from; empty when none ported
  // {"from", "seed", "ports": [{"cuda", "speedup_on_cuda", "status", "untranslated", ...}],
  //  "hypotheses": [world-model nodes], "hypotheses_dropped": [{"node_id", "title", "reason"}]}
  nlohmann::json lineage;
  std::vector<std::string> events;  // one line per port and for the hypotheses, for the run's events
};

// Ports up to `top` passing candidates of the cuda run (best first), or the file, into
// `run_dir`/from/, and picks the run's world-model hypotheses that `target` (the metal profile's
// rules: its [[unavailable]] features) leaves relevant. Throws Error for bad input (not a cuda run,
// another task, no passing candidate, a missing file, a task without [entry.cuda], an unreadable tree).
PortedSeed port_seeds(const std::string& from, const tasks::Task& task, const std::filesystem::path& run_dir, int top,
                      const backends::RuleSet& target);

// A run started with --from (its config's "from" names the ported seed): the task's metal entry uses
// that seed, for the run and on every later session (resume, agent submit); returns what the run
// carries over for the loop (the other complete ports, the hypotheses). A task without [entry.metal]
// gets its [entry.cuda] arguments. Other runs: the task is unchanged and nothing is carried.
search::Transfer use_ported_seed(tasks::Task& task, const nlohmann::json& run_config);

}  // namespace ksearch::cli
