#pragma once
// Reference outputs from a task's device reference (`[reference.<backend>]`) for the workloads too large
// for the CPU reference. The device reference is built by the backend like a candidate (trusted code: no
// rules check) and runs in a runner process of its own, never the candidate's. Before its first use on a
// machine it is verified against the CPU reference; the verification is recorded in a marker in the
// cache folder, and a disagreement is an error, never trusted.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "tasks/inputs.hpp"
#include "tasks/reference.hpp"
#include "tasks/task.hpp"

namespace ksearch::evaluator {

// A passed verification: the device reference agreed with the CPU reference on these workloads.
struct DeviceReferenceVerification {
  struct Check {
    std::string workload;
    double max_abs_err = 0, max_rel_err = 0;
  };
  std::vector<Check> checks;
  bool from_marker = false;  // recorded by an earlier run on this machine rather than run now
};

class DeviceReference {
 public:
  // Its runner is placed on `device` (EvalOptions::device), beside the candidate it checks.
  DeviceReference(const tasks::Task& task, backends::Backend& backend, const tasks::DeviceReferenceSpec& spec, std::string device = "");
  ~DeviceReference();
  DeviceReference(const DeviceReference&) = delete;
  DeviceReference& operator=(const DeviceReference&) = delete;

  // Reference outputs for these inputs (computed every time: the device is faster than a disk cache).
  // Verifies the device reference first. Throws Error when it does not build, fails or disagrees.
  tasks::ReferenceOutputs outputs(const tasks::Workload& workload, const std::vector<tasks::HostTensor>& inputs);

  // The verification as this machine's marker records it, or run now and recorded: the CPU and the device
  // reference on the backend's visible workloads below the threshold (at least the cheapest workload),
  // compared with the task's tolerance. Throws Error naming the workload and the errors on a disagreement.
  const DeviceReferenceVerification& verify();

 private:
  // Runs the device reference on one workload; pointers to its outputs in the shared memory, in the
  // order of Task::outputs (null when absent), valid until the next run.
  std::vector<const char*> run(const tasks::Workload& workload, const std::vector<tasks::HostTensor>& inputs);
  std::string describe() const;  // "the cuda device reference of task 'x' (path)"

  const tasks::Task& task_;
  backends::Backend& backend_;
  const tasks::DeviceReferenceSpec& spec_;
  std::string device_;
  std::unique_ptr<runner::RunnerProcess> process_;
  std::optional<DeviceReferenceVerification> verification_;
  std::string failure_;  // why the verification failed: every later use reports it again
};

// Where this machine records the verification of a device reference: one file per task content,
// device reference source and backend.
std::filesystem::path verification_marker(const tasks::Task& task, const tasks::DeviceReferenceSpec& spec);

}  // namespace ksearch::evaluator
