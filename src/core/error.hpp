#pragma once
// core/error: the exceptions ksearch reports to its user, each with its exit code (docs/CLI.md).
#include <stdexcept>
#include <string>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// A user-facing error about the input (usage, files, tasks, configuration): its message is printed as
// is, so it must say what is wrong and where. `ksearch` exits 2.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The machine failed an operation that should have worked (a pipe, shared memory, starting a
// process): not the user's input. `ksearch` exits 3, as for an unexpected exception.
class SystemError : public Error {
 public:
  SystemError(const std::string& operation, int error_number);
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

}  // namespace ksearch
