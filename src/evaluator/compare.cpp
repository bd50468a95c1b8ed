#include "evaluator/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ksearch {

Comparison compare_output(const std::string& name, const void* output, DType dtype, const std::vector<double>& reference,
                          const Tolerance& tolerance) {
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
  }
  return c;
}

}  // namespace ksearch
