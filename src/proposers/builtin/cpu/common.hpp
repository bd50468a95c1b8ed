#pragma once
// Shared pieces of the cpu template families: how knobs become constants in the rendered source,
// and a small vector layer (AVX-512 / AVX2 / scalar) with a polynomial exp that families include.
#include <string>
#include <vector>

#include "proposers/builtin/catalog.hpp"

namespace ksearch::builtin::cpu {

// One task's families and their renderer. `args` is the cpu entry's argument list the templates
// were written for; a task with another signature gets no families.
struct TaskTemplates {
  std::string task;
  std::vector<std::string> args;
  std::vector<Family> families;
  // Body of the candidate for a family, given complete and validated knob values.
  std::string (*render)(const std::string& family, const KnobValues& knobs);
};

const TaskTemplates& softmax_templates();
const TaskTemplates& rmsnorm_templates();
const TaskTemplates& matmul_templates();
const TaskTemplates& attention_templates();
const TaskTemplates& selective_scan_templates();

// Common knobs, so that the same idea has the same name and values in every family.
Knob vector_bits_knob();   // 512 (AVX-512), 256 (AVX2), 0 (scalar loops, compiler vectorized)
Knob threads_knob();       // OpenMP on/off
Knob exp_degree_knob();    // degree of the exp polynomial

// `#define KS_VEC_BITS` (when the family has the knob) and `constexpr int NAME = value;` per knob.
std::string knob_constants(const KnobValues& knobs);
// The vector layer: type vf with VW lanes, v_* helpers and v_exp<degree> / s_exp<degree>. Uses the
// widest path KS_VEC_BITS and the machine allow (scalar when KS_VEC_BITS is undefined).
std::string vector_prelude();

}  // namespace ksearch::builtin::cpu
