#pragma once
#include <string_view>

namespace ksearch {

// Outcome of evaluating one candidate. Order matters: when workloads disagree, the overall
// status is the most severe one (the largest value).
enum class Status { passed, wrong_answer, timeout, runtime_error, compile_error, rejected };

std::string_view status_name(Status status);
Status parse_status(std::string_view name);

}  // namespace ksearch
