#pragma once
// `ksearch report` and `ksearch export`: a self-contained HTML page about a run, and the run's best
// kernel as a standalone source file. Both read the run store only (docs/REPORT.md).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "proposers/world_model.hpp"
#include "search/search.hpp"
#include "store/run_store.hpp"

namespace ksearch::report {

// Everything the report shows, read from a run store.
struct RunData {
  std::filesystem::path dir;
  store::RunInfo info;
  search::RunSummary summary;
  nlohmann::json state = nlohmann::json::object();
  std::vector<store::Candidate> candidates;
  std::optional<world_model::WorldModel> world_model;  // the latest snapshot
  int64_t world_model_snapshots = 0;
  std::vector<store::ProposerCall> calls;
  std::vector<store::Event> events;  // oldest first
  double updated_at = 0;              // the run's latest write (RunStore::updated_at), read before the rest
  // The final held-out evaluation of the best candidate (EvalReport JSON), null if there is none.
  nlohmann::json best_held_out = nullptr;

  const store::Candidate* best() const;  // null when the run has no passing best
  const store::Candidate* find(int64_t id) const;
};

// Throws Error saying that `dir` is not a run directory when it has no run.db.
RunData load_run(const std::filesystem::path& dir);

std::string html_escape(std::string_view text);

// The best-so-far speedup per round (and every passing candidate as a dot), as an inline SVG.
std::string progress_svg(const RunData& run);
// The complete page: no external resources. `live_reload`: the page, served by `ksearch report
// --serve`, polls ./stamp and reloads itself once the run has moved on.
std::string render_html(const RunData& run, bool live_reload = false);
// What ./stamp answers and a live page compares: changes whenever the run is written.
std::string update_stamp(double updated_at);
// Writes <dir>/report.html and returns its path.
std::filesystem::path write_report(const std::filesystem::path& dir);

// The files `ksearch export` writes (names relative to the output folder), made by the run's backend.
using ksearch::backends::ExportBundle;
using ksearch::backends::ExportFile;

// Thrown when the run has no passing candidate to export.
class NothingToExport : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The best kernel with a usage header comment; throws NothingToExport or Error. `format`: "source"
// (or empty: the backend's own source file), or for metal runs "mlx" (a Python module on
// mx.fast.metal_kernel) and "mlx-lm" (that module plus a drop-in for mlx-lm's Mamba prefill).
backends::ExportBundle export_bundle(const RunData& run, const std::string& format = "source");

}  // namespace ksearch::report
