#pragma once
// Shared by `ksearch run`, `ksearch resume` and `ksearch agent submit`: drives a Search with the live terminal view and
// prints the outcome.
#include <string>

#include "search/search.hpp"
#include "store/run_store.hpp"

namespace ksearch::cli {

struct SessionOptions {
  bool json = false;  // one JSON object on stdout at the end; progress goes to stderr
};

// Runs the search to its end (or until the proposer leaves a request pending) and returns the exit
// code: 0 when a verified candidate exists, 1 otherwise. `transfer`: what the run carries over from
// another backend's run (use_ported_seed in run_from.hpp), the same on every session.
int run_session(store::RunStore& store, const tasks::Task& task, backends::Backend& backend, proposers::Proposer& proposer,
                search::Strategy& strategy, const search::SearchOptions& options, const SessionOptions& session,
                search::Transfer transfer = {});

// Refuses --proposer-concurrency above 1 for a proposer that takes one request at a time (`ksearch run` and
// `ksearch resume` alike).
void check_proposer_concurrency(int requested, const proposers::Proposer& proposer);

// The proposer and strategy specs of a stored run.
proposers::ProposerSpec stored_proposer(const store::RunInfo& info);
search::StrategySpec stored_strategy(const store::RunInfo& info);

}  // namespace ksearch::cli
