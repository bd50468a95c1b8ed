#include "core/stats.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

namespace ksearch {

namespace {
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}
}  // namespace

TimingSummary summarize(std::vector<double> samples) {
  TimingSummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.samples = int(samples.size());
  s.median = quantile(samples, 0.5);
  s.p10 = quantile(samples, 0.1);
  s.p90 = quantile(samples, 0.9);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(std::max(v, 1e-300));
  return std::exp(log_sum / double(values.size()));
}

RatioInterval ratio_interval(const std::vector<double>& ratios, double confidence) {
  RatioInterval r;
  r.samples = int(ratios.size());
  if (ratios.empty()) return r;
  std::vector<double> logs;
  for (double v : ratios) logs.push_back(std::log(std::max(v, 1e-300)));
  double mean = 0;
  for (double l : logs) mean += l;
  mean /= double(logs.size());
  r.estimate = r.low = r.high = std::exp(mean);
  if (logs.size() < 2) return r;
  double variance = 0;
  for (double l : logs) variance += (l - mean) * (l - mean);
  variance /= double(logs.size() - 1);
  const boost::math::students_t t(double(logs.size() - 1));
  const double half_width = boost::math::quantile(t, 0.5 + confidence / 2) * std::sqrt(variance / double(logs.size()));
  r.low = std::exp(mean - half_width);
  r.high = std::exp(mean + half_width);
  return r;
}


Gain measured_gain(double after, double after_spread, double before, double before_spread) {
  if (after_spread <= 0) after_spread = before_spread;
  if (before_spread <= 0) before_spread = after_spread;
  Gain g;
  g.factor = before > 0 ? after / before : 0;
  g.noise = std::max(kMinSignificantGain, 0.5 * std::hypot(after_spread, before_spread));
  return g;
}

}  // namespace ksearch
