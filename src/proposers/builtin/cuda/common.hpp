#pragma once
// CUDA template families: each task file supplies families whose source is one CUDA translation
// unit; knobs become #define constants prepended to it.
#include <string>
#include <vector>

#include "proposers/builtin/catalog.hpp"

namespace ksearch::builtin::cuda {

struct TaskTemplates {
  std::string task;
  std::vector<std::string> args;  // the entry arguments the sources implement
  std::vector<Family> families;
  std::vector<std::string> sources;  // one per family, same order
};

const TaskTemplates& softmax_templates();
const TaskTemplates& rmsnorm_templates();
const TaskTemplates& matmul_templates();
const TaskTemplates& attention_bf16_templates();
const TaskTemplates& selective_scan_templates();

}  // namespace ksearch::builtin::cuda
