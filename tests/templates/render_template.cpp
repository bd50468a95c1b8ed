// Development tool: prints the families of a task, or one rendered candidate.
//   render_template TASK                      -> families and knobs (one per line)
//   render_template TASK FAMILY [knob=value]  -> candidate source on stdout
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "proposers/builtin/catalog.hpp"
#include "tasks/registry.hpp"

using ksearch::tasks::Task;
using ksearch::tasks::resolve_task;

int main(int argc, char** argv) {
  using namespace ksearch;
  if (argc < 2) {
    fmt::print(stderr, "usage: render_template TASK [FAMILY [knob=value ...]] [--backend B]\n");
    return 2;
  }
  try {
    std::string backend = "cpu";
    std::vector<std::string> rest;
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) == "--backend" && i + 1 < argc) backend = argv[++i];
      else rest.push_back(argv[i]);
    }
    const Task task = resolve_task(argv[1]);
    if (rest.empty()) {
      for (const auto& f : proposers::builtin::families_for(task, backend)) {
        fmt::print("{}", f.name);
        for (const auto& k : f.knobs) fmt::print(" {}={}[{}]", k.name, k.default_value, fmt::join(k.values, ","));
        fmt::print("\n");
      }
      return 0;
    }
    auto provider = proposers::builtin::provider_for(backend);
    if (!provider) throw Error("no template provider for backend " + backend);
    proposers::builtin::KnobValues knobs;
    for (size_t i = 1; i < rest.size(); ++i) {
      const auto eq = rest[i].find('=');
      if (eq == std::string::npos) throw Error("expected knob=value, got " + rest[i]);
      knobs[rest[i].substr(0, eq)] = std::stoll(rest[i].substr(eq + 1));
    }
    fmt::print("{}", provider->render(task, rest[0], knobs));
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
