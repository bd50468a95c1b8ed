#pragma once
// `ksearch export --format mlx|mlx-lm` (docs/METAL.md): a metal candidate as a Python module built on
// mx.fast.metal_kernel, with the very header and body metalsim verified and the launch computed from
// the arguments' shapes; for mlx-lm also patch(model), a drop-in for mlx-lm's Mamba prefill.
#include <string>

#include "tasks/task.hpp"

namespace ksearch::metal {

enum class MlxExport { module, mlx_lm };

struct MlxExportFile {
  std::string name;  // <task>_mlx.py or <task>_mlx_lm.py
  std::string contents;
};

// `comment` (Python comment lines, e.g. the run's verification record) heads the module. Throws Error
// when the candidate does not parse, or for mlx-lm when the task is not mlx-lm's Mamba scan.
MlxExportFile mlx_export(const tasks::Task& task, const std::string& source, const std::string& comment, MlxExport kind);

// A task expression (tasks/expr.hpp: + - * / ^, comparisons, && ||, ?:, min, max) as a Python
// expression over variables of the same names. Throws Error on a malformed expression.
std::string python_expression(const std::string& expression);
// The Python functions those expressions call (_divide, _floor, _ceil), which every exported module defines.
std::string python_expression_helpers();

}  // namespace ksearch::metal
