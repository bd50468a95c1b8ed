#include "cli/search_session.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <deque>

#include "backends/backend.hpp"
#include "cli/command.hpp"
#include "cli/run_options.hpp"
#include "core/json_text.hpp"

using ksearch::backends::Backend;
using ksearch::tasks::Task;

namespace ksearch::cli {

std::vector<RunOptionsHook>& run_options_hooks() {
  static std::vector<RunOptionsHook> hooks;
  return hooks;
}

bool register_run_options(RunOptionsHook hook) {
  run_options_hooks().push_back(std::move(hook));
  return true;
}

void check_proposer_concurrency(int requested, const proposers::Proposer& proposer) {
  if (requested > 1 && !proposer.concurrent_calls())
    throw Error(fmt::format("--proposer-concurrency {}: proposer {} takes one request at a time (use 0 or 1, or a model proposer: --llm)",
                            requested, proposer.name()));
}

proposers::ProposerSpec stored_proposer(const store::RunInfo& info) {
  proposers::ProposerSpec spec;
  const auto p = info.config.value("proposer", nlohmann::json::object());
  spec.name = p.value("name", "builtin");
  spec.config = p.value("config", nlohmann::json::object());
  return spec;
}

search::StrategySpec stored_strategy(const store::RunInfo& info) {
  search::StrategySpec spec;
  const auto s = info.config.value("strategy", nlohmann::json::object());
  spec.name = s.value("name", spec.name);
  spec.config = s.value("config", nlohmann::json::object());
  return spec;
}

namespace {

std::string cid(int64_t id) { return id ? "c" + std::to_string(id) : "-"; }

// Live view: redrawn in place on a terminal, plain lines otherwise.
class LiveView {
 public:
  LiveView(FILE* out, std::string title) : out_(out), tty_(isatty(fileno(out)) != 0), title_(std::move(title)) {}

  void operator()(const search::SearchEvent& e, const search::Progress& p) {
    using K = search::SearchEvent::Kind;
    std::string line;
    switch (e.kind) {
      case K::evaluated:
        line = fmt::format("{} {}{}{}", cid(e.candidate), e.status,
                           e.status == "passed" ? fmt::format(" {:.2f}x vs seed", e.speedup) : std::string(),
                           e.text.empty() ? "" : "  " + first_line(e.text));
        break;
      case K::round_start: line = e.text; break;
      default: line = e.text;
    }
    if (!tty_) {
      fmt::print(out_, "[{:>6.1f}s] {}\n", p.elapsed_seconds, line);
      std::fflush(out_);
      return;
    }
    if (e.kind != K::round_start) {
      recent_.push_back(line);
      while (recent_.size() > 6) recent_.pop_front();
    }
    draw(p, e.kind == K::round_start ? line : current_);
    if (e.kind == K::round_start) current_ = line;
  }

 private:
  static std::string first_line(const std::string& s) {
    const auto nl = s.find('\n');
    std::string l = s.substr(0, nl);
    return l.size() > 100 ? l.substr(0, 97) + "..." : l;
  }

  void draw(const search::Progress& p, const std::string& current) {
    std::string text;
    for (int i = 0; i < drawn_; ++i) text += "\x1b[1A\x1b[2K";  // up one line, clear it
    std::vector<std::string> lines;
    lines.push_back("\x1b[1m" + title_ + "\x1b[0m");
    const int width = 24, filled = p.rounds ? std::min(width, width * p.round / p.rounds) : 0;
    lines.push_back(fmt::format("[{}{}] round {}/{}  evaluations {}  {:.0f}s  ({})", std::string(size_t(filled), '#'),
                                std::string(size_t(width - filled), '.'), p.round, p.rounds, p.evaluations, p.elapsed_seconds,
                                p.phase));
    if (!p.strategy_status.empty()) lines.push_back("strategy: " + p.strategy_status);
    lines.push_back("now:  " + (current.empty() ? p.action : current));
    lines.push_back(p.best_candidate ? fmt::format("best: \x1b[32m{:.2f}x\x1b[0m vs seed ({})", p.best_speedup, cid(p.best_candidate))
                                     : std::string("best: none yet"));
    for (const auto& r : recent_) lines.push_back("  " + r);
    for (const auto& l : lines) text += l + "\n";
    drawn_ = int(lines.size());
    fmt::print(out_, "{}", text);
    std::fflush(out_);
  }

  FILE* out_;
  bool tty_;
  std::string title_, current_;
  std::deque<std::string> recent_;
  int drawn_ = 0;
};

// While a search runs, SIGINT (Ctrl-C) and SIGTERM end the process at once, as kill -9 would, which
// loses nothing: every step is committed to the run store before the next begins (a transaction
// under way is rolled back, and the runner and compiler processes get the same signal or die with
// their parent). The handler only says how to continue and exits 130.
class InterruptHandler {
 public:
  explicit InterruptHandler(const std::filesystem::path& dir) {
    const std::string text = fmt::format("\ninterrupted: the run is stored; continue it with `ksearch resume {}`\n", dir.string());
    std::strncpy(message_, text.c_str(), sizeof message_ - 1);
    struct sigaction action {};
    action.sa_handler = &InterruptHandler::on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~InterruptHandler() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

 private:
  static void on_signal(int) {  // async-signal-safe: write(2) and _exit(2) only
    [[maybe_unused]] const auto written = write(STDERR_FILENO, message_, std::strlen(message_));
    _exit(kExitInterrupted);
  }
  static inline char message_[4096] = {};
  struct sigaction previous_int_ {}, previous_term_ {};
};

}  // namespace

int run_session(store::RunStore& store, const Task& task, Backend& backend, proposers::Proposer& proposer,
                search::Strategy& strategy, const search::SearchOptions& options, const SessionOptions& session,
                search::Transfer transfer) {
  FILE* view_out = session.json ? stderr : stdout;
  // A proposer that only fills in templates cannot implement another run's hypotheses from their
  // text: each one chosen would cost a round with nothing to evaluate.
  if (!proposer.implements_hypothesis_text() && !transfer.hypotheses.empty()) {
    spdlog::warn("{} hypotheses of the source run are not carried over: the {} proposer cannot implement them "
                 "(--llm PROVIDER:MODEL or --agent can)", transfer.hypotheses.size(), proposer.name());
    transfer.hypotheses = nlohmann::json::array();
  }
  LiveView view(view_out, fmt::format("ksearch: {} on {} ({} strategy, {} proposer) -> {}", task.name, backend.name(),
                                      strategy.name(), proposer.name(), store.dir().string()));
  // The run's executor, as `ksearch run` stored it (runs from before executors: local).
  const auto executor = executors::ExecutorSpec::from_json(store.info().config.value("executor", nlohmann::json()));
  search::Search search(store, task, backend, proposer, strategy, options,
                         [&](const search::SearchEvent& e, const search::Progress& p) { view(e, p); }, executor, std::move(transfer));
  auto outcome = search::Search::Outcome::finished;
  {
    const InterruptHandler interrupts(store.dir());
    try {
      outcome = search.run();
    } catch (const std::exception&) {
      // Nothing is lost (see InterruptHandler): say how to go on once the cause is fixed.
      fmt::print(stderr, "the run is stored in {0}; once the error below is fixed, continue it with `ksearch resume {0}` (which can also "
                         "change the proposer: --llm PROVIDER:MODEL, --agent, --proposer builtin)\n", store.dir().string());
      throw;
    }
  }
  const search::RunSummary s = search::summarize(store);
  const bool ok = s.has_best && s.held_out_passed.value_or(true);
  if (session.json) {
    auto j = s.to_json();
    j["outcome"] = outcome == search::Search::Outcome::waiting ? "waiting" : "finished";
    fmt::print("{}\n", json_text(j, 2));
  } else if (outcome == search::Search::Outcome::waiting) {
    const auto pending = store.pending();
    fmt::print("waiting for the proposer to answer request {} ({}); see `ksearch agent next {}`\n",
               pending ? pending->seq : 0, pending ? pending->role : "?", store.dir().string());
  } else {
    fmt::print("\n{}: {} rounds, {} evaluations, {:.0f}s\n", s.stop_reason.empty() ? "finished" : s.stop_reason, s.rounds,
               s.evaluations, s.elapsed_seconds);
    if (s.has_best)
      fmt::print("best: {} {} on the visible workloads, held-out: {}\n", cid(s.best_candidate), s.best_timing_text(),
                 !s.held_out_passed ? std::string("none in the task")
                 : !*s.held_out_passed ? std::string("FAILED")
                 // Faster where the search looked and slower elsewhere: the kernel is tuned to the visible shapes.
                 : s.held_out_speedup > 0 && s.held_out_speedup < 1
                     ? fmt::format("passed but SLOWER than the seed ({:.2f}x): a regression on the held-out workloads", s.held_out_speedup)
                 : s.held_out_speedup > 0 ? fmt::format("passed ({:.2f}x)", s.held_out_speedup)
                                          : std::string("passed"));
    else
      fmt::print("no candidate passed\n");
    for (const auto& line : s.retime_lines) fmt::print("{}\n", line);
    if (s.has_best)
      fmt::print("run stored in {} (best kernel: {}/best{})\n", store.dir().string(), store.dir().string(), backend.source_extension());
    else
      fmt::print("run stored in {}\n", store.dir().string());
  }
  if (outcome == search::Search::Outcome::waiting) return kExitOk;
  return ok ? kExitOk : kExitCandidateFailed;
}

}  // namespace ksearch::cli
