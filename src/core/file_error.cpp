#include "core/file_error.hpp"

#include <cerrno>
#include <cstring>

namespace ksearch {

FileAccessError::FileAccessError(const std::string& operation, const std::filesystem::path& path, int error_number)
    : Error("cannot " + operation + " " + path.string() + ": " + std::strerror(error_number)) {}

bool is_access_errno(int error_number) {
  return error_number == EACCES || error_number == EPERM || error_number == EROFS || error_number == ENOSPC ||
         error_number == EDQUOT;
}

void throw_file_error(const std::string& operation, const std::filesystem::path& path, int error_number) {
  if (is_access_errno(error_number)) throw FileAccessError(operation, path, error_number);
  throw Error("cannot " + operation + " " + path.string() + ": " + std::strerror(error_number));
}

}  // namespace ksearch
