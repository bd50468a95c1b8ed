#pragma once
// core/status: the outcome of evaluating a candidate, its names and severity order.
#include <string_view>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Outcome of evaluating one candidate. Order matters: when workloads disagree, the overall
// status is the most severe one (the largest value). not_run: a workload selected but never run (no load, runner died on
// an earlier workload), or a candidate the search's time budget left unevaluated; it sits below every failure, so the
// failure that stopped the run is the overall status.
enum class Status { passed, not_run, wrong_answer, timeout, runtime_error, compile_error, rejected };

std::string_view status_name(Status status);
Status parse_status(std::string_view name);

}  // namespace ksearch
