#include "core/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace ksearch {

DType parse_dtype(std::string_view name) {
  if (name == "f32" || name == "float32") return DType::f32;
  if (name == "f64" || name == "float64") return DType::f64;
  if (name == "f16" || name == "float16") return DType::f16;
  if (name == "bf16" || name == "bfloat16") return DType::bf16;
  if (name == "i32" || name == "int32") return DType::i32;
  if (name == "i64" || name == "int64") return DType::i64;
  if (name == "u8" || name == "uint8") return DType::u8;
  if (name == "bool") return DType::boolean;
  throw Error("unknown dtype '" + std::string(name) + "' (expected f32, f64, f16, bf16, i32, i64, u8 or bool)");
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
    case DType::boolean: return "bool";
  }
  return "?";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::f64: case DType::i64: return 8;
    case DType::f32: case DType::i32: return 4;
    case DType::f16: case DType::bf16: return 2;
    case DType::u8: case DType::boolean: return 1;
  }
  return 0;
}

bool dtype_is_float(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64 || dtype == DType::f16 || dtype == DType::bf16;
}

std::string_view dtype_c_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::f16: return "uint16_t";
    case DType::bf16: return "uint16_t";
    case DType::i32: return "int32_t";
    case DType::i64: return "int64_t";
    case DType::u8: return "uint8_t";
    case DType::boolean: return "bool";
  }
  return "void";
}

float half_to_float(uint16_t bits) {
  const uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      out = sign;
    } else {  // subnormal: renormalize
      int shift = 0;
      while ((mantissa & 0x400u) == 0) { mantissa <<= 1; ++shift; }
      mantissa &= 0x3ffu;
      out = sign | (uint32_t(127 - 15 - shift + 1) << 23) | (mantissa << 13);
    }
  } else {
    out = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

uint16_t float_to_half(float value) {
  // Round-to-nearest-even through the hardware-independent bit manipulation used by most converters.
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow to infinity
  if (abs < 0x38800000u) {                                   // subnormal or zero in half
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // 2^24
    return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
  }
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return uint16_t(sign | ((rounded - 0x38000000u) >> 13));
}

float bfloat_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

uint16_t float_to_bfloat(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // keep NaN a NaN
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

double load_as_double(const void* base, size_t index, DType dtype) {
  const auto* bytes = static_cast<const unsigned char*>(base) + index * dtype_size(dtype);
  switch (dtype) {
    case DType::f32: { float v; std::memcpy(&v, bytes, 4); return v; }
    case DType::f64: { double v; std::memcpy(&v, bytes, 8); return v; }
    case DType::f16: { uint16_t v; std::memcpy(&v, bytes, 2); return half_to_float(v); }
    case DType::bf16: { uint16_t v; std::memcpy(&v, bytes, 2); return bfloat_to_float(v); }
    case DType::i32: { int32_t v; std::memcpy(&v, bytes, 4); return v; }
    case DType::i64: { int64_t v; std::memcpy(&v, bytes, 8); return double(v); }
    case DType::u8: return *bytes;
    case DType::boolean: return *bytes != 0;
  }
  return 0;
}

ValueRange dtype_range(DType dtype) {
  switch (dtype) {
    case DType::f32: return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case DType::f64: return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    case DType::f16: return {-65504.0, 65504.0};
    case DType::bf16: return {-3.3895313892515355e38, 3.3895313892515355e38};
    case DType::i32: return {double(std::numeric_limits<int32_t>::min()), double(std::numeric_limits<int32_t>::max())};
    // The largest doubles below 2^63 that llround maps into int64.
    case DType::i64: return {-9223372036854775808.0, 9223372036854774784.0};
    case DType::u8: return {0.0, 255.0};
    case DType::boolean: return {0.0, 1.0};
  }
  return {0.0, 0.0};
}

void store_from_double(void* base, size_t index, DType dtype, double value) {
  auto* bytes = static_cast<unsigned char*>(base) + index * dtype_size(dtype);
  switch (dtype) {
    case DType::f32: { float v = float(value); std::memcpy(bytes, &v, 4); return; }
    case DType::f64: std::memcpy(bytes, &value, 8); return;
    case DType::f16: { uint16_t v = float_to_half(float(value)); std::memcpy(bytes, &v, 2); return; }
    case DType::bf16: { uint16_t v = float_to_bfloat(float(value)); std::memcpy(bytes, &v, 2); return; }
    case DType::i32: { int32_t v = int32_t(std::llround(value)); std::memcpy(bytes, &v, 4); return; }
    case DType::i64: { int64_t v = std::llround(value); std::memcpy(bytes, &v, 8); return; }
    case DType::u8: *bytes = uint8_t(std::llround(value)); return;
    case DType::boolean: *bytes = std::round(value) != 0; return;  // rounded as the integers are
  }
}

}  // namespace ksearch
