#pragma once
// core/dtype: the element types of task tensors and parameters, their names, sizes and conversions
// (f16 and bf16 bits to and from float).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

enum class DType { f32, f64, f16, bf16, i32, i64, u8, boolean };

DType parse_dtype(std::string_view name);  // throws Error on unknown names
std::string_view dtype_name(DType dtype);
size_t dtype_size(DType dtype);
bool dtype_is_float(DType dtype);
// The finite values an element holds; a value drawn outside would wrap (integers) or overflow (f16) when stored.
struct ValueRange {
  double lo, hi;
};
ValueRange dtype_range(DType dtype);
// C/C++ spelling in generated entry signatures; f16 and bf16 are their bits (uint16_t) unless a
// backend's CallConvention (tasks/signature.hpp) names its own types.
std::string_view dtype_c_type(DType dtype);

// Element access through double, so that generation, poisoning and comparison are written once.
double load_as_double(const void* base, size_t index, DType dtype);
void store_from_double(void* base, size_t index, DType dtype, double value);

float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);
float bfloat_to_float(uint16_t bits);
uint16_t float_to_bfloat(float value);

}  // namespace ksearch
