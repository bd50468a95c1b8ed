#pragma once
// core/file_error: a file or folder the file system refuses (permissions, a read-only file system,
// a full disk). Its own exit code (docs/CLI.md): the user's setup, neither bad input nor a bug.
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// `ksearch` exits 4.
class FileAccessError : public Error {
 public:
  // "cannot <operation> <path>: <strerror>", e.g. "cannot write the run folder /x: Permission denied".
  FileAccessError(const std::string& operation, const std::filesystem::path& path, int error_number);
};

// EACCES, EPERM, EROFS, ENOSPC, EDQUOT: the errors FileAccessError stands for.
bool is_access_errno(int error_number);

// Throws FileAccessError for an access errno, else Error; both name the operation and the path.
[[noreturn]] void throw_file_error(const std::string& operation, const std::filesystem::path& path, int error_number);

}  // namespace ksearch
