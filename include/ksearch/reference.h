/* The interface a task's reference implementation provides (see docs/TASKS.md).
 *
 * ksearch converts every input to double, calls ks_reference once per workload and random
 * input, and compares candidates against the double outputs it writes. Write the reference
 * for clarity, not speed, and accumulate in double. Absent optional tensors are NULL. */
#ifndef KSEARCH_REFERENCE_H
#define KSEARCH_REFERENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_tensor {
  const char* name;
  double* data;          /* NULL when an optional tensor is absent */
  const int64_t* shape;
  int ndim;
} ks_tensor;

typedef struct ks_reference_args {
  int n_inputs;
  const ks_tensor* inputs;
  int n_outputs;
  const ks_tensor* outputs;
  int n_values;              /* axes and scalar params of the workload, by name */
  const char* const* value_names;
  const double* values;
} ks_reference_args;

void ks_reference(const ks_reference_args* args);

#ifdef __cplusplus
}

#include <cstring>
#include <stdexcept>
#include <string>

namespace ks {
/* Named access for C++ references: ks::Args a(args); a.in("x"); a.axis("rows"). */
class Args {
 public:
  explicit Args(const ks_reference_args* args) : a_(args) {}
  const double* in(const char* name) const { return find(a_->inputs, a_->n_inputs, name)->data; }
  double* out(const char* name) const { return find(a_->outputs, a_->n_outputs, name)->data; }
  bool has(const char* name) const { return find(a_->inputs, a_->n_inputs, name)->data != nullptr; }
  double value(const char* name) const {
    for (int i = 0; i < a_->n_values; ++i)
      if (std::strcmp(a_->value_names[i], name) == 0) return a_->values[i];
    throw std::runtime_error(std::string("reference: no axis or param named ") + name);
  }
  int64_t axis(const char* name) const { return static_cast<int64_t>(value(name)); }

 private:
  static const ks_tensor* find(const ks_tensor* list, int n, const char* name) {
    for (int i = 0; i < n; ++i)
      if (std::strcmp(list[i].name, name) == 0) return &list[i];
    throw std::runtime_error(std::string("reference: no tensor named ") + name);
  }
  const ks_reference_args* a_;
};
}  // namespace ks
#endif

#endif
