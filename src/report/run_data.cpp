#include "core/error.hpp"
#include "report/report.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksearch::report {

const store::Candidate* RunData::find(int64_t id) const {
  for (const auto& c : candidates)
    if (c.id == id) return &c;
  return nullptr;
}

const store::Candidate* RunData::best() const { return summary.has_best ? find(summary.best_candidate) : nullptr; }

RunData load_run(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw Error(dir.string() + " is not a run directory (no such folder); pass the --out folder of `ksearch run`");
  if (!store::RunStore::exists(dir))
    throw Error(dir.string() + " is not a run directory (it has no run.db); pass the --out folder of `ksearch run`");
  const auto store = store::RunStore::open(dir);
  RunData run;
  run.updated_at = store.updated_at();  // first: a write while the rest is read makes the page older, not newer, than its stamp
  run.dir = fs::absolute(dir).lexically_normal();
  run.info = store.info();
  run.summary = search::summarize(store);
  run.state = store.load_state().value_or(json::object());
  run.candidates = store.candidates();
  if (auto m = store.latest_world_model()) {
    // A snapshot that no longer parses (e.g. written by a newer ksearch) leaves the tree out, not the report.
    try {
      run.world_model = world_model::WorldModel::from_json(*m);
    } catch (const Error&) {
    }
  }
  run.world_model_snapshots = store.world_model_count();
  run.calls = store.calls();
  run.events = store.events();
  const json final = run.state.value("final", json());
  if (final.is_object() && run.summary.has_best)
    for (const auto& check : final.value("checked", json::array()))
      if (check.value("candidate", int64_t(0)) == run.summary.best_candidate) run.best_held_out = check.value("report", json());
  return run;
}

}  // namespace ksearch::report
