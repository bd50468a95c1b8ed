#pragma once
#include <stdexcept>
#include <string>

namespace ksearch {

// A user-facing error: its message is printed as is, so it must say what is wrong and where.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ksearch
