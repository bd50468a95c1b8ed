#include "core/status.hpp"

#include <string>

#include "core/error.hpp"

namespace ksearch {

std::string_view status_name(Status status) {
  switch (status) {
    case Status::passed: return "passed";
    case Status::not_run: return "not_run";
    case Status::wrong_answer: return "wrong_answer";
    case Status::timeout: return "timeout";
    case Status::runtime_error: return "runtime_error";
    case Status::compile_error: return "compile_error";
    case Status::rejected: return "rejected";
  }
  return "?";
}

Status parse_status(std::string_view name) {
  for (Status s : {Status::passed, Status::not_run, Status::wrong_answer, Status::timeout, Status::runtime_error,
                   Status::compile_error, Status::rejected})
    if (status_name(s) == name) return s;
  throw Error("unknown status '" + std::string(name) + "'");
}

}  // namespace ksearch
