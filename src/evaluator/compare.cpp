#include "evaluator/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ksearch {

size_t row_length(const std::optional<std::vector<int64_t>>& shape) {
  return shape && !shape->empty() ? size_t(std::max<int64_t>(shape->back(), 1)) : 1;
}

Comparison compare_output(const std::string& name, const void* output, DType dtype, const std::vector<double>& reference,
                          const Tolerance& tolerance, size_t row_length) {
  Comparison c;
  const size_t n = reference.size();
  bool first_recorded = false;
  double out_min = INFINITY, out_max = -INFINITY, ref_min = INFINITY, ref_max = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    const double o = load_as_double(output, i, dtype);
    const double r = reference[i];
    ref_min = std::min(ref_min, r);
    ref_max = std::max(ref_max, r);
    out_min = std::min(out_min, o);
    out_max = std::max(out_max, o);
    const double err = std::abs(o - r);
    const bool bad = !std::isfinite(o) ? std::isfinite(r) || std::isnan(o) : !(err <= tolerance.atol + tolerance.rtol * std::abs(r));
    if (std::isfinite(err)) {
      c.max_abs_err = std::max(c.max_abs_err, err);
      c.max_rel_err = std::max(c.max_rel_err, err / std::max(std::abs(r), tolerance.atol > 0 ? tolerance.atol : 1e-30));
    } else if (bad) {
      c.max_abs_err = c.max_rel_err = INFINITY;
    }
    if (bad) {
      ++c.mismatches;
      if (!first_recorded) {
        first_recorded = true;
        c.message = fmt::format("output '{}' element {}: got {}, expected {} (tolerance {} + {}*|expected|)", name, i, o, r,
                                tolerance.atol, tolerance.rtol);
      }
    }
  }
  if (c.mismatches) {
    c.ok = false;
    c.message += fmt::format("; {} of {} elements wrong", c.mismatches, n);
    return c;
  }
  // A constant output (all zeros, say) can sit inside the absolute tolerance when the reference values are
  // tiny; it is never right when the reference itself is not constant.
  const double spread = ref_max - ref_min;
  if (n > 1 && out_min == out_max && spread > 1e-9 * std::max(std::abs(ref_min), std::abs(ref_max))) {
    c.ok = false;
    c.message = fmt::format("output '{}' is constant ({}) while the reference varies from {} to {}", name, out_min, ref_min, ref_max);
    return c;
  }
  row_length = std::max<size_t>(1, std::min(row_length, n));
  size_t bad_rows = 0;
  for (size_t row = 0; row * row_length < n; ++row) {
    const size_t begin = row * row_length, end = std::min(n, begin + row_length);
    double error_sq = 0, reference_sq = 0;
    for (size_t i = begin; i < end; ++i) {
      const double r = reference[i], e = load_as_double(output, i, dtype) - r;
      if (!std::isfinite(r)) continue;  // the elementwise check already required the same non-finite value
      error_sq += e * e;
      reference_sq += r * r;
    }
    const double error = std::sqrt(error_sq), bound = tolerance.row_norm_rtol() * std::sqrt(reference_sq) +
                                                       tolerance.atol * std::sqrt(double(end - begin));
    if (error > bound && bad_rows++ == 0)
      c.message = fmt::format("output '{}' row {} (elements {}..{}): relative L2 error {:.3g} exceeds the norm-wise "
                              "tolerance {:.3g} (each element was within the elementwise one: a lower precision than the "
                              "task's?)", name, row, begin, end - 1, error / std::max(std::sqrt(reference_sq), 1e-300),
                              tolerance.row_norm_rtol());
  }
  if (bad_rows) {
    c.ok = false;
    c.message += fmt::format("; {} of {} rows", bad_rows, (n + row_length - 1) / row_length);
  }
  return c;
}

}  // namespace ksearch
