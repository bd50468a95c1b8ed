// ksearch-runner-cpu: loads one compiled cpu candidate and runs it for the evaluator.
#include <dlfcn.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/child.hpp"

namespace {

using Entry = void (*)(void* const*, const int64_t*, const double*, void*);

class CpuDevice : public ksearch::runner::RunnerDevice {
 public:
  // The team, started before the sandbox closes, is the one candidates' parallel regions reuse. Each
  // thread reports in: an empty region would be optimized away.
  void start_threads() override {
    std::atomic<int> started{0};
#pragma omp parallel
    started.fetch_add(1, std::memory_order_relaxed);
  }

  void load(const nlohmann::json& artifact) override {
    const std::string library = artifact.at("library").get<std::string>();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load candidate: ") + dlerror());
    entry_ = reinterpret_cast<Entry>(dlsym(handle, "ksearch_entry"));
    if (!entry_) throw std::runtime_error("the candidate library has no ksearch_entry");
  }

  void call(const ksearch::runner::CallArgs& args) override {
    entry_(args.ptrs.data(), args.ints.data(), args.floats.data(), nullptr);
  }

 private:
  Entry entry_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  CpuDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
