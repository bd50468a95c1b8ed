#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "report/report.hpp"
#include "core/json_text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksearch::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

namespace {

std::string esc(std::string_view s) { return html_escape(s); }

std::string cid(int64_t id) { return "c" + std::to_string(id); }

std::string time_text(double unix_seconds) {
  if (unix_seconds <= 0) return "";
  const std::time_t t = std::time_t(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", &tm);
  return buf;
}

std::string num(double v, const char* spec = "{:.4g}") { return v > 0 ? fmt::format(fmt::runtime(spec), v) : "–"; }
std::string speedup(double v) { return v > 0 ? fmt::format("{:.2f}×", v) : "–"; }
std::string percent(double v) { return v > 0 ? fmt::format("{:.1f}%", 100 * v) : "–"; }

// Status names are identifiers (passed, wrong_answer, ...); anything else is escaped into the class.
std::string status_badge(const std::string& status) {
  return fmt::format("<span class=\"badge st-{0}\">{0}</span>", esc(status));
}

const char* kStyle = R"css(
:root { --pass:#1a7f37; --fail:#cf222e; --warn:#bc4c00; --open:#6e7781; --front:#0969da; --bg:#ffffff; --fg:#1f2328; --mut:#656d76; --line:#d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 24px; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 32px; }
.sub { color: var(--mut); margin: 0 0 12px; }
nav a { margin-right: 12px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.best td { background: #dafbe1; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: 10px; overflow-x: auto; white-space: pre; }
pre.source { max-height: 640px; overflow-y: auto; }
svg#progress { width: 100%; height: auto; max-width: 900px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; color: #fff; font-size: 12px; background: var(--open); }
.st-passed { background: var(--pass); } .st-wrong_answer, .st-runtime_error, .st-timeout, .st-failed { background: var(--fail); }
.st-compile_error, .st-rejected { background: var(--warn); } .st-pending, .st-not_run { background: var(--open); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card b { display: block; font-size: 20px; }
ul.tree, ul.tree ul { list-style: none; padding-left: 22px; margin: 0; }
ul.tree { padding-left: 0; }
ul.tree li { margin: 6px 0; position: relative; }
ul.tree ul li::before { content: ""; position: absolute; left: -14px; top: 0; height: 14px; width: 10px; border-left: 1px solid var(--line); border-bottom: 1px solid var(--line); }
.node { border: 1px solid var(--line); border-left: 5px solid var(--open); border-radius: 4px; padding: 4px 8px; display: inline-block; max-width: 100%; }
.node.closed.ok { border-left-color: var(--pass); } .node.closed.bad { border-left-color: var(--fail); }
.node.frontier { border-left-color: var(--front); } .node.hard { border-left-color: var(--warn); }
.node .id { font-weight: 600; } .node .meta { color: var(--mut); font-size: 12px; }
.legend span { margin-right: 14px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
details > summary { cursor: pointer; color: var(--front); }
.mut { color: var(--mut); }
svg text { font: 12px system-ui, sans-serif; fill: var(--fg); }
)css";

// The best candidate's workloads, visible ones from its own report, held-out ones from the final check.
std::string workload_table(const RunData& run, const store::Candidate& best) {
  std::vector<json> rows;
  if (best.report.is_object())
    for (const auto& w : best.report.value("workloads", json::array())) rows.push_back(w);
  if (run.best_held_out.is_object())
    for (const auto& w : run.best_held_out.value("workloads", json::array())) rows.push_back(w);
  if (rows.empty()) return "<p class=\"mut\">The best candidate's evaluation has no per-workload results.</p>\n";
  std::string html =
      "<table id=\"workloads\"><tr><th>workload</th><th>set</th><th>status</th><th>max abs err</th><th>max rel err</th>"
      "<th>median ms</th><th>spread</th><th>seed ms</th><th>speedup vs seed</th><th>roofline</th><th>message</th></tr>\n";
  for (const auto& w : rows) {
    const double spread = w.value("spread", 0.0);
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{:.3g}</td><td class=\"n\">{:.3g}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
        esc(w.value("name", "")), w.value("held_out", false) ? "held-out" : "visible", status_badge(w.value("status", "")),
        w.value("max_abs_err", 0.0), w.value("max_rel_err", 0.0), num(w.value("median_ms", 0.0)),
        spread > 0 ? fmt::format("±{:.1f}%", 100 * spread) : "–", num(w.value("seed_ms", 0.0)),
        speedup(w.value("speedup_vs_seed", 0.0)), percent(w.value("roofline_fraction", 0.0)), esc(w.value("message", "")));
  }
  html += "</table>\n";
  if (!run.best_held_out.is_object() && run.summary.held_out_passed == std::nullopt)
    html += "<p class=\"mut\">Held-out workloads: not checked yet (the run has not reached its final verdict) or the task has none "
            "for this backend.</p>\n";
  return html;
}

std::string tree_html(const RunData& run) {
  if (!run.world_model) return "<p class=\"mut\">No world-model snapshot was saved.</p>\n";
  const world_model::WorldModel& m = *run.world_model;
  std::string html = fmt::format(
      "<p class=\"legend\"><span><i style=\"background:var(--pass)\"></i>closed, passed</span>"
      "<span><i style=\"background:var(--fail)\"></i>closed, failed</span><span><i style=\"background:var(--front)\"></i>frontier</span>"
      "<span><i style=\"background:var(--open)\"></i>open</span><span><i style=\"background:var(--warn)\"></i>too hard</span></p>\n"
      "<p>{}</p>\n",
      esc(m.kernel_summary));
  std::function<void(const std::string&, int)> walk = [&](const std::string& id, int depth) {
    const world_model::Node* n = m.find(id);
    if (!n || depth > 64) return;
    const world_model::NodeState state = m.state(*n);
    std::string cls = state == world_model::NodeState::closed ? "closed" : state == world_model::NodeState::frontier ? "frontier" : "open";
    if (n->solution) cls += n->solution->status == "passed" ? " ok" : " bad";
    if (n->too_hard) cls += " hard";
    html += fmt::format("<li id=\"node-{0}\"><div class=\"node {1}\"><span class=\"id\">{0}</span> <span class=\"meta\">{2}{3}</span>", esc(n->node_id),
                        cls, esc(world_model::state_name(state)), n->too_hard ? ", too hard" : "");
    if (n->node_id == m.active_leaf_id) html += " <span class=\"meta\">(active)</span>";
    if (!n->decision.empty() || !n->choice.empty())
      html += fmt::format("<div>{}{}{}</div>", esc(n->decision), n->decision.empty() || n->choice.empty() ? "" : ": ", esc(n->choice));
    if (n->action) {
      const auto& a = *n->action;
      html += fmt::format(
          "<div><b>{}</b> <span class=\"meta\">score {:.2f}, difficulty {}/5, expected {:.2f}× over parent</span></div>",
          esc(a.title), a.score_0_to_1, a.difficulty_1_to_5, a.expected_vs_baseline_factor);
      if (!a.description.empty() || !a.rationale.empty())
        html += fmt::format("<details><summary>details</summary><div>{}</div>{}</details>", esc(a.description),
                            a.rationale.empty() ? "" : "<div class=\"mut\">Rationale: " + esc(a.rationale) + "</div>");
    }
    if (n->solution) {
      const auto& s = *n->solution;
      const std::string cand = s.candidate_id.size() > 1 && s.candidate_id[0] == 'c'
                                   ? fmt::format("<a href=\"#{0}\">{0}</a>", esc(s.candidate_id))
                                   : esc(s.candidate_id);
      html += fmt::format("<div>→ {} {} {} vs seed, {} ms</div>", cand, status_badge(s.status), speedup(s.speedup_vs_seed),
                          num(s.median_ms));
    }
    if (n->carried_from)  // measured on the other backend: lineage and a prior, never this backend's result
      html += "<div class=\"meta\">carried from " + esc(n->carried_from->describe()) + "</div>";
    if (n->attempts || n->cycles)
      html += fmt::format("<div class=\"meta\">{} attempt{}, {} cycle{}</div>", n->attempts, n->attempts == 1 ? "" : "s", n->cycles,
                          n->cycles == 1 ? "" : "s");
    if (!n->notes.empty()) html += "<details><summary>notes</summary><pre>" + esc(n->notes) + "</pre></details>";
    html += "</div>";
    const auto kids = m.children(id);
    if (!kids.empty()) {
      html += "\n<ul>\n";
      for (const auto* c : kids) walk(c->node_id, depth + 1);
      html += "</ul>";
    }
    html += "</li>\n";
  };
  html += "<ul class=\"tree\" id=\"tree\">\n";
  walk(m.root_id, 0);
  html += "</ul>\n";
  if (!m.open_questions.empty()) {
    html += "<p>Open questions:</p><ul>";
    for (const auto& q : m.open_questions) html += "<li>" + esc(q) + "</li>";
    html += "</ul>\n";
  }
  return html;
}

std::string candidates_table(const RunData& run) {
  if (run.candidates.empty()) return "<p class=\"mut\">No candidates yet.</p>\n";
  const store::Candidate* best = run.best();
  std::string html =
      "<table id=\"candidates\"><tr><th>id</th><th>round</th><th>node / action</th><th>proposer</th><th>status</th>"
      "<th>speedup vs seed</th><th>median ms</th><th>roofline</th><th>from</th><th>note / message</th></tr>\n";
  for (const auto& c : run.candidates) {
    std::string action;
    if (run.world_model)
      if (const world_model::Node* n = run.world_model->find(c.node_id); n && n->action) action = n->action->title;
    std::string from = c.parent_id ? fmt::format("<a href=\"#{0}\">{0}</a>", cid(c.parent_id)) : "seed";
    if (c.reused_from) from += fmt::format("; result of <a href=\"#{0}\">{0}</a>", cid(c.reused_from));
    const std::string message = c.report.is_object() && c.status != "passed" ? c.report.value("message", "") : "";
    html += fmt::format(
        "<tr id=\"{0}\"{1}><td>{0}</td><td class=\"n\">{2}</td><td><a href=\"#node-{3}\">{3}</a> {4}</td><td>{5}</td><td>{6}</td>"
        "<td class=\"n\">{7}</td><td class=\"n\">{8}</td><td class=\"n\">{9}</td><td>{10}</td><td>{11}{12}"
        "<details><summary>source</summary><pre>{13}</pre></details></td></tr>\n",
        cid(c.id), best == &c ? " class=\"best\"" : "", c.round, esc(c.node_id), esc(action), esc(c.proposer), status_badge(c.status),
        speedup(c.speedup_vs_seed), num(c.median_ms), percent(c.roofline_fraction), from, esc(c.note),
        message.empty() ? "" : "<div class=\"mut\">" + esc(message) + "</div>", esc(c.source));
  }
  return html + "</table>\n";
}

// The finalists' re-timing against the seed (search: the retime phase), best first, with the
// findings a reader must not miss (ties, noise, failures).
std::string finalists_html(const RunData& run) {
  const json& r = run.summary.retiming;
  if (!r.is_object()) return "";
  std::string html = fmt::format(
      "<h2 id=\"finalists\">Finalists, re-timed</h2>\n<p class=\"mut\">Each finalist and the seed evaluated once per round, {} "
      "interleaved rounds in one sitting; speedups are per-round ratios to the seed, with {:.0f}% confidence intervals.</p>\n",
      r.value("rounds", 0), 100 * r.value("confidence", 0.95));
  for (const auto& line : run.summary.retime_lines) html += "<p>" + esc(line) + "</p>\n";
  html += "<table id=\"finalists-table\"><tr><th>candidate</th><th>re-timed speedup</th><th>interval</th><th>in the search</th>"
          "<th>status</th></tr>\n";
  for (const auto& c : r.value("candidates", json::array())) {
    const json sp = c.value("speedup", json::object());
    const int64_t id = c.value("candidate", int64_t(0));
    const store::Candidate* candidate = run.find(id);
    const std::string message = c.value("message", "");
    html += fmt::format("<tr><td><a href=\"#{0}\">{0}</a></td><td class=\"n\">{1}</td><td class=\"n\">{2}</td><td class=\"n\">{3}</td>"
                        "<td>{4}{5}</td></tr>\n",
                        cid(id), speedup(sp.value("estimate", 0.0)),
                        sp.value("samples", 0) > 1 ? fmt::format("[{:.2f}, {:.2f}]", sp.value("low", 0.0), sp.value("high", 0.0)) : "–",
                        candidate ? speedup(candidate->speedup_vs_seed) : "–",
                        status_badge(c.value("passed", false) ? "passed" : "failed"),
                        message.empty() ? "" : " <span class=\"mut\">" + esc(message) + "</span>");
  }
  return html + "</table>\n";
}

std::string config_html(const RunData& run) {
  const auto& s = run.summary;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"run directory", run.dir.string()},
      {"task", run.info.task_name},
      {"task file", run.info.task_file},
      {"task hash", run.info.task_hash},
      {"backend", run.info.backend},
      {"proposer", s.proposer},
      {"created", time_text(run.info.created_at)},
      {"phase", s.phase + (s.stop_reason.empty() ? "" : " (" + s.stop_reason + ")")},
      {"rounds", fmt::format("{} of {}", s.rounds, s.rounds_budget)},
      {"cycles", std::to_string(s.cycles)},
      {"evaluations", fmt::format("{} ({} candidates)", s.evaluations, s.candidates)},
      {"elapsed", fmt::format("{:.0f} s", s.elapsed_seconds)},
      {"world-model snapshots", std::to_string(run.world_model_snapshots)},
  };
  int64_t tokens_in = 0, tokens_out = 0, errors = 0;
  double cost = 0;
  for (const auto& c : run.calls) {
    tokens_in += c.input_tokens;
    tokens_out += c.output_tokens;
    cost += c.cost_usd;
    errors += !c.error.empty();
  }
  rows.push_back({"proposer calls", fmt::format("{} ({} failed), {} + {} tokens, ${:.4f}", run.calls.size(), errors, tokens_in,
                                                tokens_out, cost)});
  std::string html = "<table id=\"config\">";
  for (const auto& [k, v] : rows) html += fmt::format("<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
  html += "</table>\n<details><summary>full configuration (JSON)</summary><pre>" + esc(json_text(run.info.config, 2)) + "</pre></details>\n";
  return html;
}

std::string events_html(const RunData& run) {
  if (run.events.empty()) return "";
  std::string html = "<h2 id=\"log\">Log</h2>\n<details><summary>" + std::to_string(run.events.size()) +
                     " events</summary><table><tr><th>time</th><th>round</th><th>kind</th><th>message</th></tr>";
  for (const auto& e : run.events)
    html += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>", esc(time_text(e.created_at)), e.round,
                        esc(e.kind), esc(e.message));
  return html + "</table></details>\n";
}

}  // namespace

std::string progress_svg(const RunData& run) {
  constexpr double W = 900, H = 320, L = 56, R = 16, T = 16, B = 44;
  int last_round = std::max(run.summary.rounds, 1);
  double top = 1;
  bool any_timed = false, any_passed = false;
  for (const auto& c : run.candidates) {
    last_round = std::max(last_round, c.round);
    any_passed |= c.status == "passed";
    if (c.status == "passed" && c.speedup_vs_seed > 0) {
      any_timed = true;
      top = std::max(top, c.speedup_vs_seed);
    }
  }
  std::string svg = fmt::format(
      "<svg id=\"progress\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"best speedup so far per round\">\n<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      W, H);
  if (!any_timed) {
    // Backends without timing (metal on metalsim) pass candidates with no speedup to plot.
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n</svg>\n", W / 2, H / 2,
                       any_passed ? "Passing candidates were not timed (this backend checks correctness only)."
                                  : "No timed passing candidate yet.");
    return svg;
  }
  // A "nice" y step so that ticks fall on round numbers.
  const double raw_step = top * 1.1 / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw_step)));
  double step = mag;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw_step) {
      step = f * mag;
      break;
    }
  const double ymax = std::ceil(top * 1.1 / step) * step;
  auto X = [&](double round) { return L + (W - L - R) * round / last_round; };
  auto Y = [&](double v) { return T + (H - T - B) * (1 - v / ymax); };

  for (double v = 0; v <= ymax + step / 2; v += step)
    svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eaeef2\"/><text x=\"{3}\" y=\"{4:.1f}\" "
                       "text-anchor=\"end\">{5:g}×</text>\n",
                       L, W - R, Y(v), L - 6, Y(v) + 4, v);
  const int xstep = std::max(1, int(std::ceil(last_round / 12.0)));
  for (int r = 0; r <= last_round; r += xstep)
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#8c959f\"/><text x=\"{0:.1f}\" y=\"{3}\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       X(r), H - B, H - B + 5, H - B + 18, r);
  svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#8c959f\"/><line x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\" "
                     "stroke=\"#8c959f\"/>\n",
                     L, W - R, H - B, T);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">round</text>\n", (L + W - R) / 2, H - 6);
  svg += fmt::format("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">speedup vs seed</text>\n",
                     (T + H - B) / 2);
  svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#8c959f\" stroke-dasharray=\"4 4\"><title>seed (1×)</title></line>\n",
                     L, W - R, Y(1), Y(1));

  // Best so far: a step line over rounds, starting at the first round with a passing candidate.
  std::map<int, double> best_at;
  for (const auto& c : run.candidates)
    if (c.status == "passed" && c.speedup_vs_seed > 0) best_at[c.round] = std::max(best_at[c.round], c.speedup_vs_seed);
  std::string points;
  double best = 0;
  for (int r = best_at.begin()->first; r <= last_round; ++r) {
    if (auto it = best_at.find(r); it != best_at.end() && it->second > best) {
      if (!points.empty()) points += fmt::format(" {:.1f},{:.1f}", X(r), Y(best));
      best = it->second;
    }
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", X(r), Y(best));
  }
  svg += "<polyline id=\"best-line\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"2.5\" points=\"" + points + "\"/>\n";

  // Every candidate: passing ones at their speedup, failing ones as red marks on the axis.
  for (const auto& c : run.candidates) {
    if (!c.evaluated()) continue;
    const bool ok = c.status == "passed" && c.speedup_vs_seed > 0;
    const std::string title = esc(fmt::format("{} (round {}): {} {}", cid(c.id), c.round, c.status, ok ? speedup(c.speedup_vs_seed) : ""));
    if (ok)
      svg += fmt::format("<circle class=\"pt\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#1a7f37\" fill-opacity=\"0.75\"><title>{}</title></circle>\n",
                         X(c.round), Y(c.speedup_vs_seed), title);
    else
      svg += fmt::format("<path class=\"pt-fail\" d=\"M{0:.1f} {1:.1f} l6 -6 m-6 0 l6 6\" transform=\"translate(-3 3)\" stroke=\"#cf222e\" "
                         "stroke-width=\"1.5\"><title>{2}</title></path>\n",
                         X(c.round), Y(0) - 6, title);
  }
  svg += fmt::format(
      "<g transform=\"translate({} {})\"><line x1=\"0\" x2=\"18\" y1=\"0\" y2=\"0\" stroke=\"#0969da\" stroke-width=\"2.5\"/>"
      "<text x=\"24\" y=\"4\">best so far</text><circle cx=\"110\" cy=\"0\" r=\"4\" fill=\"#1a7f37\"/><text x=\"118\" y=\"4\">passed</text>"
      "<path d=\"M180 -3 l6 6 m-6 0 l6 -6\" stroke=\"#cf222e\" stroke-width=\"1.5\"/><text x=\"192\" y=\"4\">failed</text></g>\n",
      L + 12, T + 8);
  return svg + "</svg>\n";
}

// Polls ./stamp every 2 s and reloads when the run has been written since the page was made.
constexpr const char* kLiveReload = R"(<script>
(function () {
  const shown = document.body.dataset.stamp, badge = document.getElementById('live');
  async function poll() {
    try {
      const answer = await (await fetch('stamp', {cache: 'no-store'})).json();
      if (answer.stamp !== shown) { location.reload(); return; }
      badge.textContent = 'live';
    } catch (e) {
      badge.textContent = 'server stopped';
    }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
</script>
)";

std::string update_stamp(double updated_at) { return fmt::format("{:.6f}", updated_at); }

std::string render_html(const RunData& run, bool live_reload) {
  const auto& s = run.summary;
  const store::Candidate* best = run.best();
  std::string title = fmt::format("ksearch: {} on {}", run.info.task_name, run.info.backend);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title) +
                     "</title>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>" + kStyle +
                     "</style>\n</head>\n" +
                     (live_reload ? "<body data-stamp=\"" + update_stamp(run.updated_at) + "\">\n" : "<body>\n");
  html += "<h1>" + esc(title) + "</h1>\n";
  html += fmt::format("<p class=\"sub\">{} · {} · phase {}{} · generated {}{}</p>\n", esc(run.dir.string()), esc(time_text(run.info.created_at)),
                      esc(s.phase), s.stop_reason.empty() ? "" : " (" + esc(s.stop_reason) + ")", esc(time_text(double(std::time(nullptr)))),
                      live_reload ? " · <span id=\"live\">live</span>" : "");
  html += "<nav><a href=\"#progress-h\">progress</a><a href=\"#best\">best kernel</a><a href=\"#world-model\">world model</a>"
          "<a href=\"#all\">candidates</a><a href=\"#configuration\">configuration</a></nav>\n";

  const std::string held_out = s.held_out_passed ? (*s.held_out_passed ? "passed" : "FAILED") : "not checked";
  html += "<div class=\"cards\">";
  html += fmt::format("<div class=\"card\">best<b>{}</b></div>", best ? cid(best->id) : "none");
  html += fmt::format("<div class=\"card\">speedup vs seed<b>{}</b></div>", best ? speedup(best->speedup_vs_seed) : "–");
  html += fmt::format("<div class=\"card\">median<b>{} ms</b></div>", best ? num(best->median_ms) : "–");
  if (const auto& r = s.best_retimed)
    html += fmt::format("<div class=\"card\">re-timed<b>{} [{:.2f}, {:.2f}]</b></div>", speedup(r->estimate), r->low, r->high);
  html += fmt::format("<div class=\"card\">roofline<b>{}</b></div>", best ? percent(best->roofline_fraction) : "–");
  html += fmt::format("<div class=\"card\">held-out<b>{}</b></div>", held_out);
  html += fmt::format("<div class=\"card\">rounds<b>{} / {}</b></div>", s.rounds, s.rounds_budget);
  html += fmt::format("<div class=\"card\">evaluations<b>{}</b></div>", s.evaluations);
  html += "</div>\n";

  html += "<h2 id=\"progress-h\">Best so far</h2>\n" + progress_svg(run);

  html += "<h2 id=\"best\">Best kernel</h2>\n";
  if (best) {
    std::string action;
    if (run.world_model)
      if (const world_model::Node* n = run.world_model->find(best->node_id); n && n->action) action = n->action->title;
    html += fmt::format("<p><a href=\"#{0}\">{0}</a> from round {1}, node <a href=\"#node-{2}\">{2}</a>{3}, proposer {4}: {5}</p>\n", cid(best->id),
                        best->round, esc(best->node_id), action.empty() ? "" : " (" + esc(action) + ")", esc(best->proposer), esc(best->note));
    html += workload_table(run, *best);
    html += "<pre id=\"best-source\" class=\"source\"><code>" + esc(best->source) + "</code></pre>\n";
  } else {
    html += "<p>No candidate has passed" + std::string(s.held_out_passed == false ? " the held-out workloads" : "") + ".</p>\n";
  }

  html += finalists_html(run);
  html += "<h2 id=\"world-model\">World model</h2>\n" + tree_html(run);
  html += "<h2 id=\"all\">All candidates</h2>\n" + candidates_table(run);
  html += "<h2 id=\"configuration\">Configuration</h2>\n" + config_html(run);
  html += events_html(run);
  if (live_reload) html += kLiveReload;
  html += "</body>\n</html>\n";
  return html;
}

fs::path write_report(const fs::path& dir) {
  const RunData run = load_run(dir);
  const fs::path out = run.dir / "report.html";
  write_file_atomic(out, render_html(run));
  return out;
}

}  // namespace ksearch::report
