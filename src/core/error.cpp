#include "core/error.hpp"

#include <cstring>

namespace ksearch {

SystemError::SystemError(const std::string& operation, int error_number)
    : Error(operation + ": " + std::strerror(error_number)), error_number_(error_number) {}

}  // namespace ksearch
