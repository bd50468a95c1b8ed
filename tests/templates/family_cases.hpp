#pragma once
// The template-family test cases shared by the cpu and metal template tests: every family of the given
// tasks at its defaults and with each knob at its first, second and last allowed value, the latter on a
// copy of the task with small odd-sized workloads (small_task); and the check every case must pass.
#include <ostream>
#include <string>
#include <vector>

#include "proposers/builtin/catalog.hpp"
#include "tasks/task.hpp"

namespace ksearch {

struct FamilyCase {
  std::string task, family, combo;
  proposers::builtin::KnobValues knobs;
  std::string load_error;  // the task file did not load (skipped with this message)
  bool small = false;      // evaluated on the small-workload copy of the task
};

void PrintTo(const FamilyCase& c, std::ostream* os);
std::string family_case_name(const FamilyCase& c);

// The cases of every family of `tasks` on `backend`; the defaults run on the task's own workloads unless
// `defaults_small`.
std::vector<FamilyCase> family_cases(const std::string& backend, const std::vector<std::string>& tasks,
                                     bool defaults_small);

// A copy of the built-in task with small odd-sized workloads (tails, sizes no block size divides, GQA,
// causal with lq < lk, fixed/grouped B/C, n != 16, logits and scores large enough that exp overflows unless the
// row max is subtracted, inputs of fewer than 8 elements, which MLX passes in constant memory) and trivial costs
// (nothing is timed).
tasks::Task small_task(const std::string& name);

// Renders the case on `backend`: the render passes the backend's rules, builds and matches the reference
// on every workload (gtest failures otherwise).
void expect_family_passes(const FamilyCase& c, const std::string& backend);

}  // namespace ksearch
