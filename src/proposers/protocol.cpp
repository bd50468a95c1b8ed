#include "proposers/protocol.hpp"

#include "core/error.hpp"

using nlohmann::json;

namespace ksearch::proposers {

// Missing fields take their defaults, so that hand-written agent answers may be brief.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TaskBrief, task, backend, description, entry, hardware, seed_source,
                                                workloads, task_file)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(InitializeRequest, task)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(InitializeReply, world_model)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProposeRequest, task, world_model, reason, previous_errors, max_new_nodes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProposeReply, edit_script)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkloadFeedback, name, status, message, median_ms, spread, seed_ms,
                                                speedup_vs_seed, roofline_fraction)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Feedback, candidate_id, status, message, log_excerpt, failing_workload,
                                                max_abs_err, max_rel_err, median_ms, speedup_vs_seed, roofline_fraction,
                                                workloads, payload)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CodeRequest, task, node_id, action, node_payload, parent_candidate,
                                                parent_source, parent_payload, world_view, mode, round_in_cycle, count,
                                                feedback, best_speedup)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CodeCandidate, source, note, payload)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CodeReply, candidates, exhausted)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CycleSummary, node_id, rounds, attempts, passed, best_candidate,
                                                best_speedup, parent_speedup, predicted_factor, observed_factor,
                                                best_payload)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RefineRequest, task, world_model, cycle, previous_errors, max_new_nodes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RefineReply, edit_script, reflection)

namespace {
template <class T>
T parse(const json& j, const char* what) {
  try {
    return j.get<T>();
  } catch (const json::exception& e) {
    throw Error(std::string("malformed ") + what + ": " + e.what());
  }
}
}  // namespace

std::string role_name(Role role) {
  switch (role) {
    case Role::initialize: return "initialize";
    case Role::propose: return "propose";
    case Role::write_code: return "write_code";
    case Role::refine: return "refine";
  }
  return "?";
}

Role parse_role(const std::string& name) {
  for (Role r : {Role::initialize, Role::propose, Role::write_code, Role::refine})
    if (role_name(r) == name) return r;
  throw Error("unknown proposer role '" + name + "'");
}

#define KSEARCH_JSON_METHODS(T, WHAT)                                   \
  json T::to_json() const { return json(*this); }                      \
  T T::from_json(const json& j) { return parse<T>(j, WHAT); }

KSEARCH_JSON_METHODS(TaskBrief, "task brief")
KSEARCH_JSON_METHODS(InitializeRequest, "initialize request")
KSEARCH_JSON_METHODS(InitializeReply, "initialize reply")
KSEARCH_JSON_METHODS(ProposeRequest, "propose request")
KSEARCH_JSON_METHODS(ProposeReply, "propose reply")
KSEARCH_JSON_METHODS(Feedback, "feedback")
KSEARCH_JSON_METHODS(CodeRequest, "write_code request")
KSEARCH_JSON_METHODS(CodeReply, "write_code reply")
KSEARCH_JSON_METHODS(CycleSummary, "cycle summary")
KSEARCH_JSON_METHODS(RefineRequest, "refine request")
KSEARCH_JSON_METHODS(RefineReply, "refine reply")

}  // namespace ksearch::proposers
