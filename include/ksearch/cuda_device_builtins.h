// Pre-included in every cuda candidate's build (cuda_backend.cpp): GCC built-ins that nvcc's device compiler folds to
// a constant where a constexpr host function calls them from device code, which --expt-relaxed-constexpr allows
// without a word. libstdc++ reaches them from std::countr_zero, std::countr_one, std::gcd, std::lcm, and from
// std::countl_zero, std::popcount, std::bit_width, std::bit_floor and std::bit_ceil of 64-bit types (measured with
// CUDA 13.0: std::countr_zero(v) compiles to 32 whatever v is, std::gcd(a, b) to 0 unless an argument is 0).
//
// Each is routed through a function that is the built-in itself on the host, in constant evaluation and for a literal
// argument (`__builtin_ctz(0x80000000u)` in a kernel, which nvcc folds right), and in device code at run time a call
// of an undefined device function: ptxas then refuses the build ("Unresolved extern function
// 'ksearch_device_code_calls_<built-in>'", which the cuda backend turns into a message with the fix), where nvcc alone
// would build a kernel that answers wrong. Code that does not reach them builds exactly as without this header. Also
// refused, though nvcc gets them right by folding the call: a run-time call with constant arguments outside a constant
// expression (`v >> std::countr_zero(64u)` in a kernel; `constexpr` or cuda::std:: builds).
#pragma once

#define KSEARCH_DEVICE_CHECKED_BUILTIN(builtin, result, argument)                                        \
  extern "C" __device__ result ksearch_device_code_calls_##builtin(argument);                           \
  namespace ksearch_device_checked {                                                                     \
  template <bool literal>                                                                                \
  __host__ __device__ constexpr result checked##builtin(argument x) {                                    \
    if (literal || __builtin_is_constant_evaluated()) return builtin(x);                                 \
    KSEARCH_DEVICE_CHECKED_RUNTIME(builtin, x)                                                           \
  }                                                                                                      \
  }

#ifdef __CUDA_ARCH__
#define KSEARCH_DEVICE_CHECKED_RUNTIME(builtin, x) return ksearch_device_code_calls_##builtin(x);
#else
#define KSEARCH_DEVICE_CHECKED_RUNTIME(builtin, x) return builtin(x);
#endif

// The constant-evaluation branch calls the host built-in from a __host__ __device__ function, which nvcc warns of
// where device code calls the function: that branch runs in the compiler only.
#pragma nv_diagnostic push
#pragma nv_diag_suppress 20011
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_ctz, int, unsigned int)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_ctzl, int, unsigned long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_ctzll, int, unsigned long long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_clzl, int, unsigned long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_popcountl, int, unsigned long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_ffsl, int, long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_parity, int, unsigned int)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_parityl, int, unsigned long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_parityll, int, unsigned long long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_clrsb, int, int)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_clrsbl, int, long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_clrsbll, int, long long)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_bswap16, unsigned short, unsigned short)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_bswap32, unsigned int, unsigned int)
KSEARCH_DEVICE_CHECKED_BUILTIN(__builtin_bswap64, unsigned long long, unsigned long long)
#pragma nv_diagnostic pop

#undef KSEARCH_DEVICE_CHECKED_BUILTIN
#undef KSEARCH_DEVICE_CHECKED_RUNTIME

#define __builtin_ctz(x) ::ksearch_device_checked::checked__builtin_ctz<__builtin_constant_p(x)>(x)
#define __builtin_ctzl(x) ::ksearch_device_checked::checked__builtin_ctzl<__builtin_constant_p(x)>(x)
#define __builtin_ctzll(x) ::ksearch_device_checked::checked__builtin_ctzll<__builtin_constant_p(x)>(x)
#define __builtin_clzl(x) ::ksearch_device_checked::checked__builtin_clzl<__builtin_constant_p(x)>(x)
#define __builtin_popcountl(x) ::ksearch_device_checked::checked__builtin_popcountl<__builtin_constant_p(x)>(x)
#define __builtin_ffsl(x) ::ksearch_device_checked::checked__builtin_ffsl<__builtin_constant_p(x)>(x)
#define __builtin_parity(x) ::ksearch_device_checked::checked__builtin_parity<__builtin_constant_p(x)>(x)
#define __builtin_parityl(x) ::ksearch_device_checked::checked__builtin_parityl<__builtin_constant_p(x)>(x)
#define __builtin_parityll(x) ::ksearch_device_checked::checked__builtin_parityll<__builtin_constant_p(x)>(x)
#define __builtin_clrsb(x) ::ksearch_device_checked::checked__builtin_clrsb<__builtin_constant_p(x)>(x)
#define __builtin_clrsbl(x) ::ksearch_device_checked::checked__builtin_clrsbl<__builtin_constant_p(x)>(x)
#define __builtin_clrsbll(x) ::ksearch_device_checked::checked__builtin_clrsbll<__builtin_constant_p(x)>(x)
#define __builtin_bswap16(x) ::ksearch_device_checked::checked__builtin_bswap16<__builtin_constant_p(x)>(x)
#define __builtin_bswap32(x) ::ksearch_device_checked::checked__builtin_bswap32<__builtin_constant_p(x)>(x)
#define __builtin_bswap64(x) ::ksearch_device_checked::checked__builtin_bswap64<__builtin_constant_p(x)>(x)
