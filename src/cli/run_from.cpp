#include "cli/run_from.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "translate/translate.hpp"

using ksearch::tasks::Task;

namespace ksearch::cli {

namespace {

struct CudaKernel {
  std::string name;  // "c12", or the file's name
  std::string source;
  double speedup = 0;  // vs the cuda seed, measured on the cuda backend
  int64_t candidate = 0;
};

std::vector<CudaKernel> cuda_kernels(const std::string& from, const Task& task, int top) {
  if (!std::filesystem::exists(from)) throw Error("--from: no such run folder or CUDA file: " + from);
  if (!store::RunStore::exists(from)) {
    if (std::filesystem::path(from).extension() != ".cu")
      throw Error("--from: " + from + " is neither a run folder (run.db) nor a CUDA file (.cu)");
    return {{std::filesystem::path(from).filename().string(), read_file(from), 0, 0}};
  }
  const store::RunStore run = store::RunStore::open(from);
  const store::RunInfo info = run.info();
  if (info.backend != "cuda") throw Error("--from: " + from + " is a " + info.backend + " run; ports start from cuda runs");
  if (info.task_name != task.name)
    throw Error("--from: " + from + " searched task " + info.task_name + ", not " + task.name);
  std::vector<store::Candidate> passing;
  for (auto& c : run.candidates())
    if (c.status == "passed") passing.push_back(std::move(c));
  if (passing.empty()) throw Error("--from: run " + from + " has no passing candidate to port");
  std::stable_sort(passing.begin(), passing.end(), [](const auto& a, const auto& b) { return a.speedup_vs_seed > b.speedup_vs_seed; });
  std::vector<CudaKernel> out;
  for (const auto& c : passing) {
    if (int(out.size()) == top) break;
    // Identical sources (a reused result) are ported once.
    if (std::any_of(out.begin(), out.end(), [&](const CudaKernel& k) { return k.source == c.source; })) continue;
    out.push_back({c.id ? "c" + std::to_string(c.id) : "seed", c.source, c.speedup_vs_seed, c.id});
  }
  return out;
}

}  // namespace

PortedSeed port_seeds(const std::string& from, const Task& task, const std::filesystem::path& run_dir, int top) {
  if (!task.entries.count("cuda")) throw Error("--from: task " + task.name + " has no [entry.cuda]: nothing to port from");
  std::string why;
  if (!translate::available(&why)) throw Error("--from: " + why);
  const std::filesystem::path dir = run_dir / "from";
  std::filesystem::create_directories(dir);
  PortedSeed out;
  out.lineage = {{"from", std::filesystem::absolute(from).string()}, {"ports", nlohmann::json::array()}};
  for (const CudaKernel& k : cuda_kernels(from, task, top)) {
    const std::filesystem::path cu = dir / (std::filesystem::path(k.name).stem().string() + ".cu");
    write_file_atomic(cu, k.source);
    const translate::Translation t = translate::translate_file(cu, task);
    nlohmann::json untranslated = nlohmann::json::array();
    std::string problems;
    auto note = [&](const translate::Problem& p) {
      untranslated.push_back({{"where", p.where()}, {"construct", p.construct}, {"reason", p.reason}});
      problems += fmt::format("; {}:{}: {}: {}", std::filesystem::path(p.file).filename().string(), p.line, p.construct, p.reason);
    };
    for (const auto& p : t.problems) note(p);
    for (const auto& kernel : t.kernels)
      if (kernel.launched)
        for (const auto& p : kernel.problems) note(p);
    std::filesystem::path metal;
    if (!t.candidate.empty()) {
      metal = dir / (cu.stem().string() + ".metal");
      write_file_atomic(metal, t.candidate);
    }
    const bool seed = t.complete() && out.seed.empty();
    if (seed) {
      out.seed = metal;
      out.lineage["seed"] = metal.string();
    }
    const std::string status = t.complete() ? (seed ? "seed" : "ported") : "untranslated";
    nlohmann::json port = {{"cuda", k.name}, {"cuda_file", cu.string()},  {"speedup_on_cuda", k.speedup},
                           {"status", status}, {"untranslated", untranslated}, {"notes", t.notes}};
    if (!metal.empty()) port["metal_file"] = metal.string();
    out.lineage["ports"].push_back(port);
    const std::string origin = k.candidate ? fmt::format("cuda {} ({:.2f}x over the cuda seed)", k.name, k.speedup) : k.name;
    out.events.push_back(status == "seed"     ? fmt::format("ported {}: the metal search's seed (round 0)", origin)
                         : status == "ported" ? fmt::format("ported {} (a lower-ranked port, kept in from/)", origin)
                                              : fmt::format("not translated: {}{}", origin, problems));
  }
  return out;
}

void use_ported_seed(Task& task, const nlohmann::json& run_config) {
  const nlohmann::json from = run_config.value("from", nlohmann::json::object());
  if (!from.contains("seed")) return;
  translate::add_metal_entry_from_cuda(task);
  task.entries["metal"].seed = from["seed"].get<std::string>();
}

}  // namespace ksearch::cli
