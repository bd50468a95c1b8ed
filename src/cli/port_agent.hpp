#pragma once
// `ksearch port FILE.cu --task T --agent` (docs/TRANSLATE.md): the repair step answered by an external
// agent through the agent protocol, as `ksearch run --agent` is. The port folder is a run store
// (backend metal, config "port") whose pending request (role "port_repair") holds the prompt and the
// conversation so far; `ksearch agent next DIR` prints it, `ksearch agent submit DIR FILE` checks the
// answer with the metal backend (metalsim) and either ends the port (passed, or out of attempts: the
// last answer is written to the port's output file) or issues the next request with the failure.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/backend.hpp"
#include "cli/port_repair.hpp"
#include "store/run_store.hpp"
#include "tasks/task.hpp"

namespace ksearch::cli {

inline constexpr const char* kPortRepairRole = "port_repair";

// A port folder (its config has "port"), not a search run.
bool is_port(const store::RunInfo& info);

// Creates the port folder `dir` and issues the first request. `port`: what `ksearch port` found so far
// (file, out, translation, evaluation of the deterministic port), kept in the folder's config.
void start_port_agent(const std::filesystem::path& dir, const tasks::Task& task, backends::Backend& backend,
                      const RepairConversation& conversation, int max_attempts, nlohmann::json port);

// What an agent answers a port_repair request with.
std::string port_answer_format();

// Answers the pending request with `answer`: evaluates its candidate, records the attempt (a candidate
// of the store), then ends the port or issues the next request. Returns the port's state (port_json).
// Throws Error, storing nothing, when the answer has no metal code.
nlohmann::json submit_port_answer(store::RunStore& store, const store::PendingRequest& pending, const std::string& answer);

// The port's state: status ("waiting", "passed" or the last attempt's status), attempts, output file.
nlohmann::json port_json(const store::RunStore& store);
// One line for people: where the port stands and what to do next.
std::string port_state_line(const store::RunStore& store);

}  // namespace ksearch::cli
