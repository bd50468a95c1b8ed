#pragma once
// evaluator/compare: a candidate's outputs against the reference's, elementwise and per row, with
// the task's tolerances.
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "tasks/task.hpp"

namespace ksearch::evaluator {

struct Comparison {
  bool ok = true;
  double max_abs_err = 0;
  double max_rel_err = 0;
  size_t mismatches = 0;
  std::string message;  // why it failed: first bad element, NaN, constant output...
};

// Checks every element: |out - ref| <= atol + rtol * |ref|, no NaN/Inf where the reference is
// finite, and no constant output where the reference varies; then every row of `row_length`
// consecutive elements against the tolerance's norm-wise bound.
// What norm-wise checks call a row of a tensor of this shape: its innermost dimension.
size_t row_length(const std::optional<std::vector<int64_t>>& shape);

Comparison compare_output(const std::string& name, const void* output, DType dtype, const std::vector<double>& reference,
                          const tasks::Tolerance& tolerance, size_t row_length);

}  // namespace ksearch::evaluator
