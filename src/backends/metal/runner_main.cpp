// ksearch-runner-metal: runs metalsim-compiled Metal candidates for the evaluator, with metalsim's
// checks on. Any diagnostic (out-of-bounds access, data race, barrier divergence, ...) fails the
// call, so the evaluator reports runtime_error with metalsim's message (thread, buffer).
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "backends/metal/runner_call.hpp"

namespace {

namespace metal = ksearch::metal;

class MetalDevice : public ksearch::runner::RunnerDevice {
 public:
  void load(const nlohmann::json& artifact) override {
    artifact_ = metal::RunnerArtifact::parse(artifact);
    artifact_.map_libraries();
    calls_.emplace(artifact_);
    std::fprintf(stderr, "metal backend: kernels emulated on the CPU by metalsim; correctness only, no timing on this host\n");
  }

  void call(const ksearch::runner::CallArgs& args) override { calls_->call(args); }

  double timed_call(const ksearch::runner::CallArgs&, bool) override {
    throw std::runtime_error("the metal backend has no timing on this host: metalsim emulates the GPU on the CPU");
  }

 private:
  metal::RunnerArtifact artifact_;
  std::optional<metal::ScheduledCalls> calls_;
};

}  // namespace

int main(int argc, char** argv) {
  MetalDevice device;
  return ksearch::runner::runner_main(argc, argv, device);
}
