#include "store/run_store.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "core/error.hpp"
#include "core/file_error.hpp"
#include "core/json_text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ksearch::store {

namespace {

// 2: pending_request.answered_at (how long the agent took) and meta.last_request_id (request ids
// that survive sessions). Version-1 runs are upgraded when opened.
constexpr int kSchemaVersion = 2;

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS candidates(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  round INTEGER NOT NULL, cycle INTEGER NOT NULL, node_id TEXT NOT NULL,
  parent_id INTEGER NOT NULL, proposer TEXT NOT NULL,
  source TEXT NOT NULL, source_hash TEXT NOT NULL, note TEXT NOT NULL, payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  speedup_vs_seed REAL NOT NULL DEFAULT 0, median_ms REAL NOT NULL DEFAULT 0, roofline_fraction REAL NOT NULL DEFAULT 0,
  report TEXT, reused_from INTEGER NOT NULL DEFAULT 0,
  build_seconds REAL NOT NULL DEFAULT 0, eval_seconds REAL NOT NULL DEFAULT 0,
  created_at REAL NOT NULL, evaluated_at REAL NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS candidates_hash ON candidates(source_hash);
CREATE TABLE IF NOT EXISTS state(id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS world_models(
  id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, reason TEXT NOT NULL, model TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS proposer_calls(
  id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, role TEXT NOT NULL, proposer TEXT NOT NULL,
  model TEXT NOT NULL, prompt TEXT NOT NULL, response TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, seconds REAL NOT NULL,
  error TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending_request(
  id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, role TEXT NOT NULL, request TEXT NOT NULL,
  answer TEXT, created_at REAL NOT NULL, answered_at REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS executor_jobs(
  candidate_id INTEGER PRIMARY KEY, executor TEXT NOT NULL, handle TEXT NOT NULL, submitted_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS events(
  id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL,
  created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS retimings(
  id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, candidate_id INTEGER NOT NULL, status TEXT NOT NULL,
  report TEXT NOT NULL, created_at REAL NOT NULL, UNIQUE(round, candidate_id));
)sql";

// A prepared statement, finalized on scope exit; bind() takes 1-based positions in order.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(std::string("run store: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int64_t v) { check(sqlite3_bind_int64(stmt_, ++pos_, v)); return *this; }
  Stmt& bind(int v) { return bind(int64_t(v)); }
  Stmt& bind(double v) { check(sqlite3_bind_double(stmt_, ++pos_, v)); return *this; }
  Stmt& bind(const std::string& v) {
    check(sqlite3_bind_text(stmt_, ++pos_, v.data(), int(v.size()), SQLITE_TRANSIENT));
    return *this;
  }

  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("run store: ") + sqlite3_errmsg(db_));
  }
  int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double f64(int col) const { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw Error(std::string("run store: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int pos_ = 0;
};

// read_only: a run in a folder nobody can write (a copied result, a read-only mount). SQLite would
// need to create the WAL index beside the database, so the file is opened as immutable instead,
// which is exact as long as nothing writes it: nothing can.
sqlite3* open_db(const fs::path& file, bool create, bool read_only = false) {
  sqlite3* db = nullptr;
  const std::string name = read_only ? "file:" + file.string() + "?immutable=1" : file.string();
  const int flags = (read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE) | (create ? SQLITE_OPEN_CREATE : 0) |
                    SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error("cannot open run store " + file.string() + ": " + msg);
  }
  sqlite3_busy_timeout(db, 10000);  // `ksearch show` may read while a run writes
  return db;
}

// 0 when `path` can be written, else the errno saying why not.
int write_errno(const fs::path& path) { return ::access(path.c_str(), W_OK) == 0 ? 0 : errno; }

// Version 1 to 2, in one transaction: the new column, and the request counter continuing from the
// pending request (the only id a version-1 run kept).
const char* kUpgradeFrom1 = R"sql(
ALTER TABLE pending_request ADD COLUMN answered_at REAL NOT NULL DEFAULT 0;
INSERT INTO meta(key, value) SELECT 'last_request_id', COALESCE((SELECT MAX(seq) FROM pending_request), 0);
UPDATE meta SET value = '2' WHERE key = 'schema_version';
)sql";

const char* kCandidateColumns =
    "id, round, cycle, node_id, parent_id, proposer, source, source_hash, note, payload, status, speedup_vs_seed, "
    "median_ms, roofline_fraction, report, reused_from, build_seconds, eval_seconds, created_at, evaluated_at";

Candidate read_candidate(const Stmt& s) {
  Candidate c;
  c.id = s.i64(0);
  c.round = int(s.i64(1));
  c.cycle = int(s.i64(2));
  c.node_id = s.text(3);
  c.parent_id = s.i64(4);
  c.proposer = s.text(5);
  c.source = s.text(6);
  c.source_hash = s.text(7);
  c.note = s.text(8);
  c.payload = json::parse(s.text(9), nullptr, false);
  c.status = s.text(10);
  c.speedup_vs_seed = s.f64(11);
  c.median_ms = s.f64(12);
  c.roofline_fraction = s.f64(13);
  c.report = s.is_null(14) ? json() : json::parse(s.text(14), nullptr, false);
  c.reused_from = s.i64(15);
  c.build_seconds = s.f64(16);
  c.eval_seconds = s.f64(17);
  c.created_at = s.f64(18);
  c.evaluated_at = s.f64(19);
  return c;
}

std::vector<Candidate> query_candidates(sqlite3* db, const std::string& where) {
  Stmt s(db, (std::string("SELECT ") + kCandidateColumns + " FROM candidates " + where + " ORDER BY id").c_str());
  std::vector<Candidate> out;
  while (s.step()) out.push_back(read_candidate(s));
  return out;
}

}  // namespace

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void RunStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error("run store: " + msg);
  }
}

bool RunStore::exists(const fs::path& dir) { return fs::exists(dir / "run.db"); }

RunStore RunStore::create(const fs::path& dir, const RunInfo& info) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw_file_error("create the run folder", dir, error.value());
  if (const int e = write_errno(dir)) throw FileAccessError("write the run folder", dir, e);
  RunLock lock = RunLock::acquire(dir);  // before the check, so that two runs started at once cannot both create it
  if (exists(dir)) throw Error("a run already exists in " + dir.string() + " (use `ksearch resume " + dir.string() + "`)");
  RunStore store(dir, open_db(dir / "run.db", true), std::move(lock));
  // WAL + synchronous=FULL: a committed evaluation survives kill -9 and power loss.
  store.exec("PRAGMA journal_mode=WAL");
  store.exec("PRAGMA synchronous=FULL");
  store.transaction([&] {
    store.exec(kSchema);
    auto put = [&](const std::string& key, const std::string& value) {
      Stmt(store.db_, "INSERT INTO meta(key, value) VALUES(?, ?)").bind(key).bind(value).step();
    };
    put("schema_version", std::to_string(kSchemaVersion));
    put("task_name", info.task_name);
    put("task_file", info.task_file);
    put("task_hash", info.task_hash);
    put("backend", info.backend);
    put("config", json_text(info.config));
    put("created_at", std::to_string(info.created_at > 0 ? info.created_at : now_seconds()));
    put("last_request_id", "0");
  });
  return store;
}

RunStore RunStore::open(const fs::path& dir, Access access) {
  if (!exists(dir)) throw Error("no run found in " + dir.string() + " (expected " + (dir / "run.db").string() + ")");
  const fs::path file = dir / "run.db";
  const int folder_errno = write_errno(dir), file_errno = write_errno(file);
  std::optional<RunLock> lock;
  if (access == Access::write) {
    if (folder_errno) throw FileAccessError("write the run folder", dir, folder_errno);
    if (file_errno) throw FileAccessError("write the run store", file, file_errno);
    lock = RunLock::acquire(dir);
  }
  RunStore store(dir, open_db(file, false, folder_errno || file_errno), std::move(lock));
  std::string version;
  try {
    Stmt s(store.db_, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (s.step()) version = s.text(0);
  } catch (const Error& e) {  // not an SQLite database, or one without ksearch's tables
    throw Error(fmt::format("{} is not a ksearch run ({})", file.string(), e.what()));
  }
  if (version.empty()) throw Error(file.string() + " is not a ksearch run (no schema version)");
  if (version == "1") {
    if (folder_errno || file_errno)
      throw FileAccessError("upgrade (it was written by an earlier ksearch; make it writable once) the run store", file,
                            folder_errno ? folder_errno : file_errno);
    store.transaction([&] { store.exec(kUpgradeFrom1); });
    version = std::to_string(kSchemaVersion);
  }
  if (version != std::to_string(kSchemaVersion))
    throw Error(fmt::format("run {} has schema version {}; this ksearch reads version {}", dir.string(), version, kSchemaVersion));
  // After the version check, so that a file that is not a run is left as it was.
  if (access == Access::write) {
    // WAL + synchronous=FULL: a committed evaluation survives kill -9 and power loss.
    store.exec("PRAGMA journal_mode=WAL");
    store.exec("PRAGMA synchronous=FULL");
    store.exec(kSchema);  // tables added since the run was created (all IF NOT EXISTS)
  } else if (!folder_errno && !file_errno) {
    // Not SQLITE_OPEN_READONLY: a read-only connection cannot remove the -wal and -shm files it
    // makes when it closes last, and would leave them in the run folder.
    store.exec("PRAGMA query_only=ON");
  }
  return store;
}

RunStore::RunStore(RunStore&& other) noexcept
    : dir_(std::move(other.dir_)), db_(std::exchange(other.db_, nullptr)), lock_(std::move(other.lock_)) {}

RunStore::~RunStore() {
  if (db_) sqlite3_close_v2(db_);
}

RunInfo RunStore::info() const {
  RunInfo info;
  Stmt s(db_, "SELECT key, value FROM meta");
  while (s.step()) {
    const std::string key = s.text(0), value = s.text(1);
    if (key == "task_name") info.task_name = value;
    else if (key == "task_file") info.task_file = value;
    else if (key == "task_hash") info.task_hash = value;
    else if (key == "backend") info.backend = value;
    else if (key == "config") info.config = json::parse(value, nullptr, false);
    else if (key == "created_at") info.created_at = std::stod(value);
  }
  return info;
}

void RunStore::set_config(const json& config) {
  Stmt(db_, "UPDATE meta SET value = ? WHERE key = 'config'").bind(json_text(config)).step();
}

int64_t RunStore::add_candidate(const Candidate& c) {
  Stmt s(db_,
         "INSERT INTO candidates(round, cycle, node_id, parent_id, proposer, source, source_hash, note, payload, "
         "created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(c.round).bind(c.cycle).bind(c.node_id).bind(c.parent_id).bind(c.proposer).bind(c.source).bind(c.source_hash);
  s.bind(c.note).bind(json_text(c.payload)).bind(c.created_at > 0 ? c.created_at : now_seconds());
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

void RunStore::record_evaluation(int64_t id, const json& report, const std::string& status, double speedup,
                                 double median_ms, double roofline, double build_seconds, double eval_seconds,
                                 int64_t reused_from) {
  Stmt s(db_,
         "UPDATE candidates SET status = ?, speedup_vs_seed = ?, median_ms = ?, roofline_fraction = ?, report = ?, "
         "reused_from = ?, build_seconds = ?, eval_seconds = ?, evaluated_at = ? WHERE id = ?");
  s.bind(status).bind(speedup).bind(median_ms).bind(roofline).bind(json_text(report)).bind(reused_from);
  s.bind(build_seconds).bind(eval_seconds).bind(now_seconds()).bind(id);
  s.step();  // autocommit: one transaction per evaluation
  if (sqlite3_changes(db_) != 1) throw Error("run store: no candidate " + std::to_string(id));
}

std::optional<Candidate> RunStore::candidate(int64_t id) const {
  auto v = query_candidates(db_, "WHERE id = " + std::to_string(id));
  if (v.empty()) return std::nullopt;
  return v.front();
}

std::vector<Candidate> RunStore::candidates() const { return query_candidates(db_, ""); }

std::vector<Candidate> RunStore::pending_candidates() const { return query_candidates(db_, "WHERE status = 'pending'"); }

std::optional<Candidate> RunStore::evaluated_by_hash(const std::string& hash) const {
  Stmt s(db_, (std::string("SELECT ") + kCandidateColumns +
                " FROM candidates WHERE source_hash = ? AND status NOT IN ('pending', 'not_run') AND reused_from = 0 ORDER BY id LIMIT 1")
                  .c_str());
  s.bind(hash);
  if (!s.step()) return std::nullopt;
  return read_candidate(s);
}

int64_t RunStore::evaluation_count() const {
  Stmt s(db_, "SELECT COUNT(*) FROM candidates WHERE status NOT IN ('pending', 'not_run') AND reused_from = 0");
  s.step();
  return s.i64(0);
}

void RunStore::save_state(const json& state) {
  Stmt(db_, "INSERT INTO state(id, json, updated_at) VALUES(1, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, "
            "updated_at = excluded.updated_at")
      .bind(json_text(state))
      .bind(now_seconds())
      .step();
}

std::optional<json> RunStore::load_state() const {
  Stmt s(db_, "SELECT json FROM state WHERE id = 1");
  if (!s.step()) return std::nullopt;
  return json::parse(s.text(0));
}

void RunStore::save_world_model(int round, const std::string& reason, const json& model) {
  Stmt(db_, "INSERT INTO world_models(round, reason, model, created_at) VALUES(?, ?, ?, ?)")
      .bind(round)
      .bind(reason)
      .bind(json_text(model))
      .bind(now_seconds())
      .step();
}

std::optional<json> RunStore::latest_world_model() const {
  Stmt s(db_, "SELECT model FROM world_models ORDER BY id DESC LIMIT 1");
  if (!s.step()) return std::nullopt;
  return json::parse(s.text(0));
}

int64_t RunStore::world_model_count() const {
  Stmt s(db_, "SELECT COUNT(*) FROM world_models");
  s.step();
  return s.i64(0);
}

int64_t RunStore::add_call(const ProposerCall& c) {
  Stmt s(db_,
         "INSERT INTO proposer_calls(round, role, proposer, model, prompt, response, input_tokens, output_tokens, "
         "cost_usd, seconds, error, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(c.round).bind(c.role).bind(c.proposer).bind(c.model).bind(c.prompt).bind(c.response);
  s.bind(c.input_tokens).bind(c.output_tokens).bind(c.cost_usd).bind(c.seconds).bind(c.error);
  s.bind(c.created_at > 0 ? c.created_at : now_seconds());
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

std::vector<ProposerCall> RunStore::calls() const {
  Stmt s(db_,
         "SELECT id, round, role, proposer, model, prompt, response, input_tokens, output_tokens, cost_usd, seconds, "
         "error, created_at FROM proposer_calls ORDER BY id");
  std::vector<ProposerCall> out;
  while (s.step()) {
    ProposerCall c;
    c.id = s.i64(0);
    c.round = int(s.i64(1));
    c.role = s.text(2);
    c.proposer = s.text(3);
    c.model = s.text(4);
    c.prompt = s.text(5);
    c.response = s.text(6);
    c.input_tokens = s.i64(7);
    c.output_tokens = s.i64(8);
    c.cost_usd = s.f64(9);
    c.seconds = s.f64(10);
    c.error = s.text(11);
    c.created_at = s.f64(12);
    out.push_back(std::move(c));
  }
  return out;
}

int64_t RunStore::issue_request(const std::string& role, const json& request) {
  int64_t id = 0;
  transaction([&] {
    Stmt(db_, "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'last_request_id'").step();
    id = last_request_id();
    Stmt s(db_,
           "INSERT INTO pending_request(id, seq, role, request, answer, created_at, answered_at) VALUES(1, ?, ?, ?, NULL, ?, 0) "
           "ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, role = excluded.role, request = excluded.request, "
           "answer = NULL, created_at = excluded.created_at, answered_at = 0");
    s.bind(id).bind(role).bind(json_text(request)).bind(now_seconds()).step();
  });
  return id;
}

int64_t RunStore::last_request_id() const {
  Stmt s(db_, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_request_id'");
  return s.step() ? s.i64(0) : 0;
}

void RunStore::answer_pending(int64_t seq, const json& answer) {
  Stmt(db_, "UPDATE pending_request SET answer = ?, answered_at = ? WHERE id = 1 AND seq = ?")
      .bind(json_text(answer))
      .bind(now_seconds())
      .bind(seq)
      .step();
  if (sqlite3_changes(db_) != 1) throw Error("the run has no pending request number " + std::to_string(seq));
}

void RunStore::drop_answer(int64_t seq) {
  Stmt(db_, "UPDATE pending_request SET answer = NULL, answered_at = 0 WHERE id = 1 AND seq = ?").bind(seq).step();
}

std::optional<PendingRequest> RunStore::pending() const {
  Stmt s(db_, "SELECT seq, role, request, answer, created_at, answered_at FROM pending_request WHERE id = 1");
  if (!s.step()) return std::nullopt;
  PendingRequest r;
  r.seq = s.i64(0);
  r.role = s.text(1);
  r.request = json::parse(s.text(2));
  if (!s.is_null(3)) r.answer = json::parse(s.text(3));
  r.created_at = s.f64(4);
  r.answered_at = s.f64(5);
  return r;
}

void RunStore::clear_pending() { exec("DELETE FROM pending_request"); }

void RunStore::set_job(int64_t candidate_id, const std::string& executor, const std::string& handle) {
  Stmt(db_,
       "INSERT INTO executor_jobs(candidate_id, executor, handle, submitted_at) VALUES(?, ?, ?, ?) "
       "ON CONFLICT(candidate_id) DO UPDATE SET executor = excluded.executor, handle = excluded.handle, "
       "submitted_at = excluded.submitted_at")
      .bind(candidate_id)
      .bind(executor)
      .bind(handle)
      .bind(now_seconds())
      .step();
}

std::optional<ExecutorJob> RunStore::job(int64_t candidate_id) const {
  Stmt s(db_, "SELECT candidate_id, executor, handle, submitted_at FROM executor_jobs WHERE candidate_id = ?");
  s.bind(candidate_id);
  if (!s.step()) return std::nullopt;
  return ExecutorJob{s.i64(0), s.text(1), s.text(2), s.f64(3)};
}

void RunStore::record_retiming(const Retiming& r) {
  Stmt(db_, "INSERT INTO retimings(round, candidate_id, status, report, created_at) VALUES(?, ?, ?, ?, ?)")
      .bind(r.round)
      .bind(r.candidate)
      .bind(r.status)
      .bind(json_text(r.report))
      .bind(r.created_at > 0 ? r.created_at : now_seconds())
      .step();  // autocommit: each measurement on its own
}

std::vector<Retiming> RunStore::retimings() const {
  // A run created before re-timing existed has no table until a writer opens it.
  if (!Stmt(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'retimings'").step()) return {};
  Stmt s(db_, "SELECT round, candidate_id, status, report, created_at FROM retimings ORDER BY id");
  std::vector<Retiming> out;
  while (s.step()) out.push_back({int(s.i64(0)), s.i64(1), s.text(2), json::parse(s.text(3), nullptr, false), s.f64(4)});
  return out;
}

void RunStore::clear_retimings() { exec("DELETE FROM retimings"); }

void RunStore::add_event(int round, const std::string& kind, const std::string& message) {
  Stmt(db_, "INSERT INTO events(round, kind, message, created_at) VALUES(?, ?, ?, ?)")
      .bind(round)
      .bind(kind)
      .bind(message)
      .bind(now_seconds())
      .step();
}

std::vector<Event> RunStore::events(size_t last_n) const {
  std::string sql = "SELECT id, round, kind, message, created_at FROM events ORDER BY id DESC";
  if (last_n) sql += " LIMIT " + std::to_string(last_n);
  Stmt s(db_, sql.c_str());
  std::vector<Event> out;
  while (s.step()) out.push_back({s.i64(0), int(s.i64(1)), s.text(2), s.text(3), s.f64(4)});
  std::reverse(out.begin(), out.end());
  return out;
}

double RunStore::updated_at() const {
  Stmt s(db_,
         "SELECT MAX(COALESCE((SELECT CAST(value AS REAL) FROM meta WHERE key = 'created_at'), 0), "
         "COALESCE((SELECT MAX(MAX(created_at, evaluated_at)) FROM candidates), 0), "
         "COALESCE((SELECT updated_at FROM state), 0), COALESCE((SELECT MAX(created_at) FROM world_models), 0), "
         "COALESCE((SELECT MAX(created_at) FROM proposer_calls), 0), COALESCE((SELECT created_at FROM pending_request), 0), "
         "COALESCE((SELECT MAX(created_at) FROM events), 0))");
  s.step();
  return s.f64(0);
}

}  // namespace ksearch::store
