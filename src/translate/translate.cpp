#include "translate/translate.hpp"

#include "core/error.hpp"

using ksearch::tasks::Task;

namespace ksearch::translate {

#if KSEARCH_HAVE_LIBCLANG
Translation translate_with_clang(const std::filesystem::path& cuda_file, const Task& task);  // translator.cpp
#endif

bool Translation::complete() const {
  if (candidate.empty() || !problems.empty()) return false;
  for (const auto& k : kernels)
    if (k.launched && !k.problems.empty()) return false;
  return true;
}

bool available(std::string* why) {
#if KSEARCH_HAVE_LIBCLANG
  (void)why;
  return true;
#else
  if (why) *why = "ksearch was built without libclang: install libclang-14-dev (scripts/install-deps.sh) and reconfigure";
  return false;
#endif
}

Translation translate_file(const std::filesystem::path& cuda_file, const Task& task) {
  if (!task.entries.count("cuda")) throw Error("task " + task.name + " has no [entry.cuda]: nothing to port from");
#if KSEARCH_HAVE_LIBCLANG
  return translate_with_clang(cuda_file, task);
#else
  (void)cuda_file;
  std::string why;
  available(&why);
  throw Error("ksearch port: " + why);
#endif
}

}  // namespace ksearch::translate
