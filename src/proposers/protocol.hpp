#pragma once
// The messages between the search loop and a proposer. Every request and reply converts to and
// from JSON: requests are persisted in the run store while pending (so a run can wait for an
// external agent and survive restarts), and replies may arrive from outside (`ksearch agent submit`).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ksearch::proposers {

enum class Role { initialize, propose, write_code, refine };
std::string role_name(Role role);
Role parse_role(const std::string& name);  // throws Error

// What every request says about the task and the hardware.
struct TaskBrief {
  std::string task, backend;
  std::string description;
  std::string entry;          // the function to implement (Backend::entry_description)
  std::string hardware;       // HardwareProfile::prose
  std::string seed_source;    // the naive seed kernel
  std::vector<std::string> workloads;  // visible workloads, "name: axis=value ..." (held-out ones are never shown)
  std::string task_file;      // absolute path of the task file
  nlohmann::json to_json() const;
  static TaskBrief from_json(const nlohmann::json& j);
};

// Initialize: build the first world model (root = the seed, children = first hypotheses).
struct InitializeRequest {
  TaskBrief task;
  nlohmann::json to_json() const;
  static InitializeRequest from_json(const nlohmann::json& j);
};
struct InitializeReply {
  nlohmann::json world_model;  // WorldModel JSON (kernel_summary, open_questions, decision_tree, ...)
  nlohmann::json to_json() const;
  static InitializeReply from_json(const nlohmann::json& j);
};

// Propose: the frontier is thin (or empty); return an edit script that adds hypotheses.
struct ProposeRequest {
  TaskBrief task;
  nlohmann::json world_model;
  std::string reason;          // why the planner asks
  std::string previous_errors; // non-empty when re-asked: the errors of the rejected script
  int max_new_nodes = 3;
  nlohmann::json to_json() const;
  static ProposeRequest from_json(const nlohmann::json& j);
};
struct ProposeReply {
  nlohmann::json edit_script = {{"ops", nlohmann::json::array()}};  // see apply_edit_script
  nlohmann::json to_json() const;
  static ProposeReply from_json(const nlohmann::json& j);
};

// One visible workload of an evaluated attempt: the exact verdict and, when timed, the numbers.
struct WorkloadFeedback {
  std::string name;
  std::string status;       // Status name
  std::string message;      // why it failed or was rejected (empty when passed)
  double median_ms = 0;     // 0 when not timed
  double spread = 0;        // (p90 - p10) / median of the timed repetitions
  double seed_ms = 0;       // the seed's median on this workload
  double speedup_vs_seed = 0;
  double roofline_fraction = 0;
};

// The outcome of one evaluated attempt, as shown to the proposer.
struct Feedback {
  int64_t candidate_id = 0;
  std::string status;         // Status name
  std::string message;        // the first problem, one line
  std::string log_excerpt;    // compiler/runner output (short)
  std::string failing_workload;  // first failing workload, with its errors
  double max_abs_err = 0, max_rel_err = 0;
  double median_ms = 0;       // geometric mean over timed workloads
  double speedup_vs_seed = 0;
  double roofline_fraction = 0;
  std::vector<WorkloadFeedback> workloads;  // per visible workload, in the task's order
  nlohmann::json payload = nlohmann::json::object();  // the candidate's proposer payload
  nlohmann::json to_json() const;
  static Feedback from_json(const nlohmann::json& j);
};

// Write code: implement one action, starting from the parent's known-good code.
struct CodeRequest {
  TaskBrief task;
  std::string node_id;
  nlohmann::json action;        // the node's Action JSON
  nlohmann::json node_payload;  // the node's proposer payload
  int64_t parent_candidate = 0; // 0: the seed
  std::string parent_source;    // known-good code to start from
  nlohmann::json parent_payload = nlohmann::json::object();
  std::string world_view;       // WorldModel::compact_view()
  std::string mode = "improve"; // "debug": nothing passed yet in this cycle (fix correctness first); "improve"
  int round_in_cycle = 0;       // 0 for the cycle's first round
  int count = 1;                // how many candidates the loop can evaluate this round (--parallel)
  std::vector<Feedback> feedback;  // attempts of this cycle so far, latest last (at most a few)
  double best_speedup = 1;      // best verified speedup vs seed of the run so far
  nlohmann::json to_json() const;
  static CodeRequest from_json(const nlohmann::json& j);
};
struct CodeCandidate {
  std::string source;
  std::string note;  // one line: what this candidate does
  nlohmann::json payload = nlohmann::json::object();
};
struct CodeReply {
  std::vector<CodeCandidate> candidates;  // at most `count` are evaluated
  bool exhausted = false;  // nothing more to try for this action: the cycle ends after this round
  nlohmann::json to_json() const;
  static CodeReply from_json(const nlohmann::json& j);
};

// Refine: a cycle ended; update the tree (reflection, new hypotheses).
struct CycleSummary {
  std::string node_id;
  int rounds = 0, attempts = 0;
  bool passed = false;
  int64_t best_candidate = 0;
  double best_speedup = 0;      // vs seed
  double parent_speedup = 1;    // vs seed
  double predicted_factor = 1;  // the action's expected_vs_baseline_factor
  double observed_factor = 0;   // best_speedup / parent_speedup (0 when nothing passed)
  nlohmann::json best_payload = nlohmann::json::object();
  nlohmann::json to_json() const;
  static CycleSummary from_json(const nlohmann::json& j);
};
struct RefineRequest {
  TaskBrief task;
  nlohmann::json world_model;  // after the planner attached the solution / marked the node
  CycleSummary cycle;
  std::string previous_errors;
  int max_new_nodes = 3;
  nlohmann::json to_json() const;
  static RefineRequest from_json(const nlohmann::json& j);
};
struct RefineReply {
  nlohmann::json edit_script = {{"ops", nlohmann::json::array()}};
  std::string reflection;  // appended to the node's notes
  nlohmann::json to_json() const;
  static RefineReply from_json(const nlohmann::json& j);
};

// One exchange with a model or agent, recorded in the run store's proposer_calls table.
struct CallInfo {
  std::string model;
  std::string prompt, response;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0, seconds = 0;
  std::string error;  // non-empty for a failed call (retried or not)
};

template <class Reply>
struct Answer {
  Reply reply;
  std::vector<CallInfo> calls;  // empty for the built-in proposer
};

}  // namespace ksearch::proposers
