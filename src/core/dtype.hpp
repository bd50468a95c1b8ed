#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ksearch {

enum class DType { f32, f64, f16, bf16, i32, i64, u8, boolean };

DType parse_dtype(std::string_view name);  // throws Error on unknown names
std::string_view dtype_name(DType dtype);
size_t dtype_size(DType dtype);
bool dtype_is_float(DType dtype);
// C/C++ spelling used in generated entry signatures (bf16/f16 spelled as the backend prefers).
std::string_view dtype_c_type(DType dtype, std::string_view backend);

// Element access through double, so that generation, poisoning and comparison are written once.
double load_as_double(const void* base, size_t index, DType dtype);
void store_from_double(void* base, size_t index, DType dtype, double value);

float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);
float bfloat_to_float(uint16_t bits);
uint16_t float_to_bfloat(float value);

}  // namespace ksearch
