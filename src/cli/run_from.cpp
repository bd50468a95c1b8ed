#include "cli/run_from.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "proposers/world_model.hpp"
#include "translate/translate.hpp"

using ksearch::tasks::Task;
using nlohmann::json;

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

// Where a port comes from, as world-model nodes and candidate payloads record it.
json port_origin(const json& lineage, const json& port) {
  world_model::CarriedFrom origin{"cuda", lineage.value("from", ""), "", port.value("cuda", "")};
  const bool measured = port.value("speedup_on_cuda", 0.0) > 0;  // a file was never measured
  origin.status = measured ? "passed" : "untried";
  origin.speedup_vs_seed = port.value("speedup_on_cuda", 0.0);
  return world_model::carried_to_json(origin);
}

// The cuda run's latest world model, minus the hypotheses whose text names a feature `target`
// lacks: into lineage "hypotheses" / "hypotheses_dropped", with a line for the events.
void carry_hypotheses(const std::string& from, const backends::RuleSet& target, PortedSeed& out) {
  out.lineage["hypotheses"] = json::array();
  out.lineage["hypotheses_dropped"] = json::array();
  const auto stored = store::RunStore::open(from).latest_world_model();
  if (!stored) {
    out.events.push_back("no hypotheses carried over: the cuda run has no world model (another strategy)");
    return;
  }
  world_model::WorldModel source;
  try {
    source = world_model::WorldModel::from_json(*stored);
  } catch (const Error& e) {
    throw Error("--from: the world model of " + from + " is unreadable: " + e.what());
  }
  const auto irrelevant = [&](const world_model::Node& n) -> std::optional<std::string> {
    const std::string text = n.decision + "\n" + n.choice + "\n" + n.action->title + "\n" + n.action->description + "\n" + n.action->rationale;
    if (const backends::ForbiddenRule* rule = target.unavailable_in(text)) return rule->id + ": " + rule->message;
    return std::nullopt;
  };
  const world_model::CarryOver carried =
      world_model::carry_over(source, "cuda", out.lineage.at("from").get<std::string>(), irrelevant);
  for (const auto& n : carried.kept) out.lineage["hypotheses"].push_back(world_model::node_to_json(n));
  std::string dropped;
  for (const auto& d : carried.dropped) {
    out.lineage["hypotheses_dropped"].push_back({{"node_id", d.node_id}, {"title", d.title}, {"reason", d.reason}});
    dropped += fmt::format("; {} '{}' ({})", d.node_id, d.title, d.reason.substr(0, d.reason.find(':')));
  }
  out.events.push_back(fmt::format("carried {} hypotheses of the cuda run's world model over (their evidence marked as measured on cuda); "
                                   "dropped {} the metal profile makes irrelevant{}",
                                   carried.kept.size(), carried.dropped.size(), dropped));
}

}  // namespace

PortedSeed port_seeds(const std::string& from, const Task& task, const std::filesystem::path& run_dir, int top,
                      const backends::RuleSet& target) {
  if (!task.entries.count("cuda")) throw Error("--from: task " + task.name + " has no [entry.cuda]: nothing to port from");
  std::string why;
  if (!translate::available(&why)) throw Error("--from: " + why);
  const std::filesystem::path dir = run_dir / "from";
  std::filesystem::create_directories(dir);
  PortedSeed out;
  out.lineage = {{"from", std::filesystem::absolute(from).lexically_normal().string()}, {"ports", json::array()}};
  for (const CudaKernel& k : cuda_kernels(from, task, top)) {
    const std::filesystem::path cu = dir / (std::filesystem::path(k.name).stem().string() + ".cu");
    write_file_atomic(cu, k.source);
    const translate::Translation t = translate::translate_file(cu, task);
    json untranslated = json::array();
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
    json port = {{"cuda", k.name}, {"cuda_file", cu.string()},  {"speedup_on_cuda", k.speedup},
                 {"status", status}, {"untranslated", untranslated}, {"notes", t.notes}};
    if (!metal.empty()) port["metal_file"] = metal.string();
    out.lineage["ports"].push_back(port);
    const std::string origin = k.candidate ? fmt::format("cuda {} ({:.2f}x over the cuda seed)", k.name, k.speedup) : k.name;
    out.events.push_back(status == "seed"     ? fmt::format("ported {}: the metal search's seed (round 0)", origin)
                         : status == "ported" ? fmt::format("ported {}: evaluated with the seed (round 0), a root of its own", origin)
                                              : fmt::format("not translated: {}{}", origin, problems));
  }
  if (store::RunStore::exists(from)) carry_hypotheses(from, target, out);
  return out;
}

search::Transfer use_ported_seed(Task& task, const json& run_config) {
  search::Transfer transfer;
  const json from = run_config.value("from", json::object());
  if (!from.contains("seed")) return transfer;
  tasks::add_metal_entry_from_cuda(task);
  task.entries["metal"].seed = from["seed"].get<std::string>();
  for (const auto& port : from.value("ports", json::array())) {
    if (port.value("status", "") == "seed") transfer.seed_origin = port_origin(from, port);
    if (port.value("status", "") != "ported") continue;
    const std::string note = "port of cuda " + port.value("cuda", "");
    transfer.kernels.push_back(
        {read_file(port.at("metal_file").get<std::string>()), note, "port", json{{"carried_from", port_origin(from, port)}}});
  }
  transfer.hypotheses = from.value("hypotheses", json::array());
  return transfer;
}

}  // namespace ksearch::cli
