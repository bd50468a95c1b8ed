#pragma once
// The run store: one SQLite database (<run dir>/run.db) per search run. Every completed evaluation
// is committed in its own transaction, so a run killed at any moment loses none; the search state,
// world-model snapshots, proposer calls and the pending proposer request live beside them, which is
// what `ksearch resume` continues from. Schema: docs/SEARCH.md.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_lock.hpp"

namespace ksearch::store {

// What the run searches for; written once when the run is created.
struct RunInfo {
  std::string task_name;
  std::string task_file;  // absolute path of the task file
  std::string task_hash;  // Task::content_hash when the run started
  std::string backend;
  nlohmann::json config = nlohmann::json::object();  // options, proposer spec, budgets
  double created_at = 0;  // unix seconds
};

// One candidate kernel: its source, where it came from, and (once evaluated) its evaluation.
struct Candidate {
  int64_t id = 0;
  int round = 0;          // search round that produced it (0: the seed evaluation)
  int cycle = 0;
  std::string node_id;    // world-model node whose action it implements
  int64_t parent_id = 0;  // candidate whose code it started from (0: the task's seed)
  std::string proposer;
  std::string source;
  std::string source_hash;
  std::string note;       // the proposer's one-line description
  nlohmann::json payload = nlohmann::json::object();  // proposer-private (e.g. template family + knobs)
  std::string status = "pending";  // "pending" until evaluated, then a Status name
  double speedup_vs_seed = 0, median_ms = 0, roofline_fraction = 0;
  nlohmann::json report;   // EvalReport::to_json(); null while pending
  int64_t reused_from = 0; // identical source evaluated before: its result was reused
  double build_seconds = 0, eval_seconds = 0;
  double created_at = 0, evaluated_at = 0;
  bool evaluated() const { return status != "pending"; }
};

// One exchange with a proposer (the LLM proposer fills tokens and cost).
struct ProposerCall {
  int64_t id = 0;
  int round = 0;
  std::string role, proposer, model;
  std::string prompt, response;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0, seconds = 0;
  std::string error;
  double created_at = 0;
};

// The request the search waits on (agent mode), with its answer once submitted.
struct PendingRequest {
  int64_t seq = 0;  // the request's id: increases with every request of the run, across sessions
  std::string role;
  nlohmann::json request;
  std::optional<nlohmann::json> answer;
  double created_at = 0, answered_at = 0;  // unix seconds; answered_at is 0 until an answer is stored
};

// An evaluation handed to an executor (executors/): the handle it gave (e.g. a Slurm job id), so that
// a later session re-attaches to it instead of submitting it again.
struct ExecutorJob {
  int64_t candidate_id = 0;
  std::string executor, handle;
  double submitted_at = 0;
};

struct Event {
  int64_t id = 0;
  int round = 0;
  std::string kind, message;
  double created_at = 0;
};

// One evaluation of the finalists' re-timing (search/search.hpp): the candidate (0: the task's
// seed) in one round.
struct Retiming {
  int round = 0;
  int64_t candidate = 0;
  std::string status;
  nlohmann::json report;  // EvalReport::to_json()
  double created_at = 0;
};

class RunStore {
 public:
  // Creates <dir>/run.db (the folder too); throws Error if a run already exists there.
  static RunStore create(const std::filesystem::path& dir, const RunInfo& info);
  // Opens an existing run; throws Error naming the path if there is none. A writer (run, resume,
  // agent submit) holds the folder's RunLock for the store's lifetime; readers take none and their
  // connection refuses writes (show, report, runs never change a run).
  enum class Access { read, write };
  static RunStore open(const std::filesystem::path& dir, Access access = Access::read);
  static bool exists(const std::filesystem::path& dir);

  RunStore(RunStore&& other) noexcept;
  RunStore& operator=(RunStore&&) = delete;
  ~RunStore();

  const std::filesystem::path& dir() const { return dir_; }
  RunInfo info() const;
  void set_config(const nlohmann::json& config);

  // Candidates. add_candidate returns the new id (status "pending").
  int64_t add_candidate(const Candidate& c);
  // Commits one evaluation in its own transaction.
  void record_evaluation(int64_t id, const nlohmann::json& report, const std::string& status, double speedup,
                         double median_ms, double roofline, double build_seconds, double eval_seconds,
                         int64_t reused_from = 0);
  std::optional<Candidate> candidate(int64_t id) const;
  std::vector<Candidate> candidates() const;  // by id
  std::vector<Candidate> pending_candidates() const;
  // An evaluated candidate with this source hash (the earliest), if any; one recorded as not run
  // (its round ran out of time) is no result to reuse.
  std::optional<Candidate> evaluated_by_hash(const std::string& hash) const;
  int64_t evaluation_count() const;  // evaluated candidates, reused results and ones not run excluded

  // Search state (the loop's resumable state machine), one JSON document.
  void save_state(const nlohmann::json& state);
  std::optional<nlohmann::json> load_state() const;

  // World-model snapshots.
  void save_world_model(int round, const std::string& reason, const nlohmann::json& model);
  std::optional<nlohmann::json> latest_world_model() const;
  int64_t world_model_count() const;

  int64_t add_call(const ProposerCall& call);
  std::vector<ProposerCall> calls() const;

  // Makes (role, request) the pending request under the run's next request id, and returns the id.
  int64_t issue_request(const std::string& role, const nlohmann::json& request);
  // The highest request id issued so far (0: none).
  int64_t last_request_id() const;
  void answer_pending(int64_t seq, const nlohmann::json& answer);  // throws Error if seq is not pending
  void drop_answer(int64_t seq);  // the request waits again, for a corrected answer
  std::optional<PendingRequest> pending() const;
  void clear_pending();

  // The latest job submitted for a candidate's evaluation (kept after it completes: which job ran it).
  void set_job(int64_t candidate_id, const std::string& executor, const std::string& handle);
  std::optional<ExecutorJob> job(int64_t candidate_id) const;
  // The finalists' re-timing, each measurement committed on its own; cleared when a finished run is
  // reopened with a larger budget (its finalists change).
  void record_retiming(const Retiming& r);
  std::vector<Retiming> retimings() const;  // in the order taken
  void clear_retimings();

  void add_event(int round, const std::string& kind, const std::string& message);
  std::vector<Event> events(size_t last_n = 0) const;

  // Unix seconds of the run's latest write (a candidate, evaluation, state, snapshot, call, request or
  // event): changes whenever the run moves on.
  double updated_at() const;

  // Several writes as one transaction (e.g. state + world model at the end of a round).
  template <class F>
  void transaction(F&& f) {
    exec("BEGIN IMMEDIATE");
    try {
      f();
    } catch (...) {
      exec("ROLLBACK");
      throw;
    }
    exec("COMMIT");
  }

 private:
  RunStore(std::filesystem::path dir, sqlite3* db, std::optional<RunLock> lock)
      : dir_(std::move(dir)), db_(db), lock_(std::move(lock)) {}
  void exec(const char* sql) const;
  std::filesystem::path dir_;
  sqlite3* db_ = nullptr;
  std::optional<RunLock> lock_;
};

double now_seconds();

}  // namespace ksearch::store
