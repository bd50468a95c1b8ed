#include "evaluator/device_reference.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/paths.hpp"
#include "core/process.hpp"
#include "evaluator/compare.hpp"
#include "evaluator/staging.hpp"
#include "core/json_text.hpp"

using ksearch::backends::Backend;
using ksearch::backends::BuildResult;
using ksearch::tasks::DeviceReferenceSpec;
using ksearch::tasks::HostTensor;
using ksearch::tasks::ReferenceOutputs;
using ksearch::tasks::Task;
using ksearch::tasks::TensorSpec;
using ksearch::tasks::Workload;
using ksearch::tasks::element_count;
using ksearch::tasks::generate_inputs;
using ksearch::tasks::reference_outputs;

namespace fs = std::filesystem;

namespace ksearch::evaluator {

namespace {

// Verification inputs need no secrecy: they are never shown to a candidate.
constexpr uint64_t kVerificationSeed = 20261129;

std::vector<const Workload*> verification_workloads(const Task& task, const DeviceReferenceSpec& spec) {
  std::vector<const Workload*> small;
  const Workload* cheapest = nullptr;
  for (const auto& w : task.workloads) {
    if (!w.runs_on(spec.backend)) continue;
    if (!w.held_out && task.reference_cost(w) < spec.above_flops) small.push_back(&w);
    if (!cheapest || task.reference_cost(w) < task.reference_cost(*cheapest)) cheapest = &w;
  }
  if (small.empty() && cheapest) small.push_back(cheapest);
  return small;
}

}  // namespace

fs::path verification_marker(const Task& task, const DeviceReferenceSpec& spec) {
  const std::string key = sha256_hex(fmt::format("{}|{}|{}", task.content_hash, spec.backend, spec.source_hash)).substr(0, 24);
  return cache_subdir("references/" + task.name) / fmt::format("verified-{}-{}.json", spec.backend, key);
}

DeviceReference::DeviceReference(const Task& task, Backend& backend, const DeviceReferenceSpec& spec, std::string device)
    : task_(task), backend_(backend), spec_(spec), device_(std::move(device)) {}

DeviceReference::~DeviceReference() = default;

std::string DeviceReference::describe() const {
  return fmt::format("the {} device reference of task '{}' ({})", spec_.backend, task_.name, spec_.source.string());
}

std::vector<const char*> DeviceReference::run(const Workload& workload, const std::vector<HostTensor>& inputs) {
  const auto timeout = backend_.call_timeout();
  try {
    if (!process_) {
      const BuildResult build = backend_.build(task_, read_file(spec_.source));
      if (!build.ok) throw Error(fmt::format("{} does not compile:\n{}", describe(), tail_lines(build.log, 40)));
      process_ = std::make_unique<runner::RunnerProcess>(backend_.runner_executable(), backend_.runner_limits(),
                                                          backend_.device_environment(device_));
      load_build(*process_, backend_, task_, build, timeout);
    }
    const StagingLayout layout = make_staging_layout(task_, spec_.backend, workload, 1);
    char* shm = process_->shared_memory(layout.total, timeout);
    stage(shm, layout, 0, inputs);
    call_staged(*process_, layout, 0, timeout);
    std::vector<const char*> outputs(task_.outputs.size(), nullptr);
    for (size_t slot = 0; slot < layout.names.size(); ++slot)
      if (layout.is_output[slot] && layout.offsets[0][slot] >= 0)
        outputs[size_t(layout.output_index[slot])] = shm + layout.offsets[0][slot];
    return outputs;
  } catch (const runner::RunnerFailure& f) {
    const std::string printed = process_ ? tail_lines(process_->output_tail(), 10) : "";
    process_.reset();  // a later use starts a fresh runner
    throw Error(fmt::format("{} failed on workload '{}': {}{}", describe(), workload.name, f.what(),
                            printed.empty() ? "" : "\n" + printed));
  }
}

// Not cached on disk, unlike CPU references: the device computes a GPU-sized reference in milliseconds,
// while writing and reading back its hundreds of megabytes takes a second.
ReferenceOutputs DeviceReference::outputs(const Workload& workload, const std::vector<HostTensor>& inputs) {
  verify();
  const std::vector<const char*> produced = run(workload, inputs);
  ReferenceOutputs out(task_.outputs.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (!produced[i]) continue;
    out[i].resize(element_count(*task_.shape_of(task_.outputs[i], workload)));
    for_each_chunk(out[i].size(), size_t(1) << 18, [&](size_t, size_t begin, size_t end) {
      for (size_t e = begin; e < end; ++e) out[i][e] = load_as_double(produced[i], e, task_.outputs[i].dtype);
    });
  }
  return out;
}

const DeviceReferenceVerification& DeviceReference::verify() {
  if (!failure_.empty()) throw Error(failure_);
  if (verification_) return *verification_;
  const fs::path marker = verification_marker(task_, spec_);
  if (fs::exists(marker)) {
    const auto j = nlohmann::json::parse(read_file(marker), nullptr, false);
    if (j.is_object() && j.contains("checks")) {
      DeviceReferenceVerification recorded;
      recorded.from_marker = true;
      for (const auto& c : j["checks"])
        recorded.checks.push_back({c.value("workload", ""), c.value("max_abs_err", 0.0), c.value("max_rel_err", 0.0)});
      return *(verification_ = recorded);
    }
  }
  try {
    DeviceReferenceVerification verification;
    nlohmann::json checks = nlohmann::json::array();
    for (const Workload* w : verification_workloads(task_, spec_)) {
      const auto inputs = generate_inputs(task_, *w, kVerificationSeed);
      const ReferenceOutputs expected = reference_outputs(task_, *w, kVerificationSeed, inputs);
      const std::vector<const char*> produced = run(*w, inputs);
      DeviceReferenceVerification::Check check{w->name};
      std::string disagreement;
      for (size_t i = 0; i < produced.size(); ++i) {
        if (!produced[i]) continue;
        const TensorSpec& output = task_.outputs[i];
        const Comparison c = compare_output(output.name, produced[i], output.dtype, expected[i], task_.tolerance(output.dtype),
                                              row_length(task_.shape_of(output, *w)));
        check.max_abs_err = std::max(check.max_abs_err, c.max_abs_err);
        check.max_rel_err = std::max(check.max_rel_err, c.max_rel_err);
        if (!c.ok && disagreement.empty()) disagreement = c.message;
      }
      if (!disagreement.empty())
        throw Error(fmt::format("{} disagrees with the CPU reference on workload '{}' (max abs err {:.3g}, max rel err {:.3g}): "
                                "{}; it is not trusted",
                                describe(), w->name, check.max_abs_err, check.max_rel_err, disagreement));
      checks.push_back({{"workload", check.workload}, {"max_abs_err", check.max_abs_err}, {"max_rel_err", check.max_rel_err}});
      verification.checks.push_back(check);
    }
    const nlohmann::json record = {{"task", task_.name},
                                   {"task_content_hash", task_.content_hash},
                                   {"backend", spec_.backend},
                                   {"device_reference", spec_.source.string()},
                                   {"device_reference_hash", spec_.source_hash},
                                   {"seed", kVerificationSeed},
                                   {"checks", checks}};
    write_file_atomic(marker, json_text(record, 2));
    return *(verification_ = verification);
  } catch (const Error& e) {
    failure_ = e.what();
    throw;
  }
}

}  // namespace ksearch::evaluator
