// The CUDA API as ksearch's translator sees it (docs/TRANSLATE.md): declarations only, so that clang
// parses CUDA sources without the CUDA toolkit. Every name here is either mapped to Metal by the
// translator or reported as untranslatable with its reason; a name missing here is a parse error.
#pragma once
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// Occupancy hints, dropped by the port (Metal has no counterpart to ask for): launch bounds with any argument count
// (CUDA 12 added a third, the blocks per cluster, which clang's attribute lacks), nvcc 12.4's register limit
#define __launch_bounds__(...)
#define __maxnreg__(...)
// a kernel's cluster shape (sm_90): dropped by the port; the cluster API it serves is reported (cooperative_groups.h)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
// What nvcc defines (CUDART_VERSION: its implicit cuda_runtime.h), which conditionals of the file test to choose the
// device branch (`#ifdef __CUDACC__`, `#if CUDART_VERSION >= 9000`): the port keeps the branch nvcc takes.
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#define CUDART_VERSION 12080

// ---------------------------------------------------------------- vector types
#define KSEARCH_VEC(T, NAME, A)                                            \
  struct __attribute__((aligned(A * 1))) NAME##1 { T x; };                 \
  struct __attribute__((aligned(A * 2))) NAME##2 { T x, y; };              \
  struct NAME##3 { T x, y, z; };                                           \
  struct __attribute__((aligned(A * 4 > 16 ? 16 : A * 4))) NAME##4 { T x, y, z, w; }; \
  __host__ __device__ NAME##1 make_##NAME##1(T x);                         \
  __host__ __device__ NAME##2 make_##NAME##2(T x, T y);                    \
  __host__ __device__ NAME##3 make_##NAME##3(T x, T y, T z);               \
  __host__ __device__ NAME##4 make_##NAME##4(T x, T y, T z, T w);
KSEARCH_VEC(float, float, 4)
KSEARCH_VEC(int, int, 4)
KSEARCH_VEC(unsigned int, uint, 4)
KSEARCH_VEC(short, short, 2)
KSEARCH_VEC(unsigned short, ushort, 2)
KSEARCH_VEC(signed char, char, 1)
KSEARCH_VEC(unsigned char, uchar, 1)
KSEARCH_VEC(long long, longlong, 8)
KSEARCH_VEC(double, double, 8)
#undef KSEARCH_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// ---------------------------------------------------------------- built-in variables
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

// ---------------------------------------------------------------- half and bfloat16
// 16-bit floats: storage, conversion from and to float, and a pair type with Metal's arithmetic.
// The intrinsics are declared for both (cuda_bf16.h overloads __hadd & co. for bfloat16).
#define KSEARCH_FP16(T)                                               \
  struct T##_raw {                                                    \
    unsigned short x;                                                 \
  };                                                                  \
  struct T {                                                          \
    unsigned short bits;                                              \
    T() = default;                                                    \
    __host__ __device__ T(float);                                     \
    __host__ __device__ T(const T##_raw&);                            \
    __host__ __device__ operator float() const;                       \
    __host__ __device__ operator T##_raw() const;                     \
  };                                                                  \
  struct __attribute__((aligned(4))) T##2 {                           \
    T x, y;                                                           \
    __device__ T##2 operator+(T##2) const;                            \
    __device__ T##2 operator-(T##2) const;                            \
    __device__ T##2 operator*(T##2) const;                            \
    __device__ T##2 operator/(T##2) const;                            \
  };                                                                  \
  __device__ T __hadd(T, T);                                          \
  __device__ T __hsub(T, T);                                          \
  __device__ T __hmul(T, T);                                          \
  __device__ T __hdiv(T, T);                                          \
  __device__ T __hfma(T, T, T);                                       \
  __device__ T##2 __hadd2(T##2, T##2);                                \
  __device__ T##2 __hmul2(T##2, T##2);                                \
  __device__ T##2 __hfma2(T##2, T##2, T##2);                          \
  __device__ float __low2float(T##2);                                 \
  __device__ float __high2float(T##2);                                \
  __device__ T __hmax(T, T);                                          \
  __device__ T __hmin(T, T);                                          \
  __device__ T __hneg(T);                                             \
  __device__ T __habs(T);                                             \
  __device__ bool __hgt(T, T);                                        \
  __device__ bool __hge(T, T);                                        \
  __device__ bool __hlt(T, T);                                        \
  __device__ bool __hle(T, T);                                        \
  __device__ bool __heq(T, T);                                        \
  __device__ bool __hne(T, T);                                        \
  __device__ T##2 __hsub2(T##2, T##2);                                \
  __device__ T##2 __h2div(T##2, T##2);                                \
  __device__ T##2 __hmax2(T##2, T##2);                                \
  __device__ T##2 __hmin2(T##2, T##2);                                \
  __device__ T##2 __hneg2(T##2);                                      \
  __device__ T##2 __habs2(T##2);                                      \
  __device__ T##2 __lowhigh2highlow(T##2);                            \
  __device__ T hexp(T);                                               \
  __device__ T hlog(T);                                               \
  __device__ T hsqrt(T);                                              \
  __device__ T hrsqrt(T);                                             \
  __device__ T hrcp(T);                                               \
  __device__ T hceil(T);                                              \
  __device__ T hfloor(T);                                             \
  __device__ T htrunc(T);                                             \
  __device__ T hrint(T);                                              \
  __device__ bool __hisnan(T);                                        \
  __device__ int __hisinf(T);                                         \
  __device__ T##2 h2exp(T##2);                                        \
  __device__ T##2 h2log(T##2);                                        \
  __device__ T##2 h2sqrt(T##2);                                       \
  __device__ T##2 h2rsqrt(T##2);                                      \
  __device__ T##2 h2rcp(T##2);                                        \
  __device__ T##2 h2floor(T##2);                                      \
  __device__ T##2 h2ceil(T##2);                                       \
  __device__ T##2 __heq2(T##2, T##2);                                 \
  __device__ T##2 __hne2(T##2, T##2);                                 \
  __device__ T##2 __hgt2(T##2, T##2);                                 \
  __device__ T##2 __hge2(T##2, T##2);                                 \
  __device__ T##2 __hlt2(T##2, T##2);                                 \
  __device__ T##2 __hle2(T##2, T##2);                                 \
  __device__ bool __hbeq2(T##2, T##2);                                \
  __device__ bool __hbgt2(T##2, T##2);                                \
  __device__ bool __hblt2(T##2, T##2);
KSEARCH_FP16(__half)
KSEARCH_FP16(__nv_bfloat16)
#define KSEARCH_FP16_MORE(T, NAME)                                                                              \
  __device__ T __hadd_sat(T, T); __device__ T __hsub_sat(T, T); __device__ T __hmul_sat(T, T);                     \
  __device__ T __hadd_rn(T, T); __device__ T __hsub_rn(T, T); __device__ T __hmul_rn(T, T);                        \
  __device__ T __hfma_sat(T, T, T); __device__ T __hfma_relu(T, T, T); __device__ T __hmax_nan(T, T);             \
  __device__ T __hmin_nan(T, T); __device__ T##2 __hadd2_sat(T##2, T##2); __device__ T##2 __hsub2_sat(T##2, T##2); \
  __device__ T##2 __hmul2_sat(T##2, T##2); __device__ T##2 __hadd2_rn(T##2, T##2);                                \
  __device__ T##2 __hsub2_rn(T##2, T##2); __device__ T##2 __hmul2_rn(T##2, T##2);                                 \
  __device__ T##2 __hfma2_sat(T##2, T##2, T##2); __device__ T##2 __hfma2_relu(T##2, T##2, T##2);                  \
  __device__ T##2 __hmax2_nan(T##2, T##2); __device__ T##2 __hmin2_nan(T##2, T##2);                               \
  __device__ T##2 __hcmadd(T##2, T##2, T##2); __device__ T##2 __hisnan2(T##2);                                    \
  __device__ bool __hequ(T, T); __device__ bool __hneu(T, T); __device__ bool __hgeu(T, T);                       \
  __device__ bool __hgtu(T, T); __device__ bool __hleu(T, T); __device__ bool __hltu(T, T);                       \
  __device__ bool __hbne2(T##2, T##2); __device__ bool __hbge2(T##2, T##2); __device__ bool __hble2(T##2, T##2);  \
  __device__ T##2 __hequ2(T##2, T##2); __device__ T##2 __hneu2(T##2, T##2); __device__ T##2 __hgeu2(T##2, T##2);  \
  __device__ T##2 __hgtu2(T##2, T##2); __device__ T##2 __hleu2(T##2, T##2); __device__ T##2 __hltu2(T##2, T##2);  \
  __device__ bool __hbequ2(T##2, T##2); __device__ bool __hbneu2(T##2, T##2); __device__ bool __hbgeu2(T##2, T##2); \
  __device__ bool __hbgtu2(T##2, T##2); __device__ bool __hbleu2(T##2, T##2); __device__ bool __hbltu2(T##2, T##2); \
  __device__ unsigned __heq2_mask(T##2, T##2); __device__ unsigned __hne2_mask(T##2, T##2);                       \
  __device__ unsigned __hgt2_mask(T##2, T##2); __device__ unsigned __hge2_mask(T##2, T##2);                       \
  __device__ unsigned __hlt2_mask(T##2, T##2); __device__ unsigned __hle2_mask(T##2, T##2);                       \
  __device__ T hlog2(T); __device__ T hlog10(T); __device__ T hexp2(T); __device__ T hexp10(T); __device__ T hcos(T); \
  __device__ T hsin(T); __device__ T htanh(T); __device__ T##2 h2log2(T##2); __device__ T##2 h2log10(T##2);         \
  __device__ T##2 h2exp2(T##2); __device__ T##2 h2exp10(T##2); __device__ T##2 h2cos(T##2); __device__ T##2 h2sin(T##2); \
  __device__ T##2 h2tanh(T##2); __device__ T##2 h2trunc(T##2); __device__ T##2 h2rint(T##2);                      \
  __device__ T##2 __lows2##NAME##2(T##2, T##2); __device__ T##2 __highs2##NAME##2(T##2, T##2);                    \
  __device__ T __float2##NAME##_rz(float); __device__ T __float2##NAME##_rd(float);                               \
  __device__ T __float2##NAME##_ru(float); __device__ T __double2##NAME(double);                                  \
  KSEARCH_FP16_INTEGER(T, NAME, int, int) KSEARCH_FP16_INTEGER(T, NAME, uint, unsigned)                          \
  KSEARCH_FP16_INTEGER(T, NAME, short, short) KSEARCH_FP16_INTEGER(T, NAME, ushort, unsigned short)              \
  KSEARCH_FP16_INTEGER(T, NAME, ll, long long) KSEARCH_FP16_INTEGER(T, NAME, ull, unsigned long long)
#define KSEARCH_FP16_INTEGER(T, NAME, I, C) KSEARCH_FP16_ROUNDED(T, NAME, I, C, rn) KSEARCH_FP16_ROUNDED(T, NAME, I, C, rz) \
  KSEARCH_FP16_ROUNDED(T, NAME, I, C, rd) KSEARCH_FP16_ROUNDED(T, NAME, I, C, ru)
#define KSEARCH_FP16_ROUNDED(T, NAME, I, C, R) __device__ C __##NAME##2##I##_##R(T); __device__ T __##I##2##NAME##_##R(C);
KSEARCH_FP16_MORE(__half, half)
KSEARCH_FP16_MORE(__nv_bfloat16, bfloat16)
#undef KSEARCH_FP16_ROUNDED
#undef KSEARCH_FP16_INTEGER
#undef KSEARCH_FP16_MORE
#undef KSEARCH_FP16
__device__ __half __low2half(__half2);
__device__ __half __high2half(__half2);
__device__ __half2 __halves2half2(__half, __half);
__device__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162);
__device__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162);
__device__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16, __nv_bfloat16);
__device__ __half2 make_half2(__half, __half);
__device__ __nv_bfloat162 make_bfloat162(__nv_bfloat16, __nv_bfloat16);
__device__ __half2 __low2half2(__half2);
__device__ __half2 __high2half2(__half2);
__device__ __nv_bfloat162 __low2bfloat162(__nv_bfloat162);
__device__ __nv_bfloat162 __high2bfloat162(__nv_bfloat162);
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
__device__ __half __float2half(float);
__device__ __half __float2half_rn(float);
__device__ float __half2float(__half);
__device__ __half2 __floats2half2_rn(float, float);
__device__ __half2 __float2half2_rn(float);
__device__ float2 __half22float2(__half2);
__device__ __half2 __float22half2_rn(float2);
__device__ __half2 __half2half2(__half);
__device__ __nv_bfloat16 __float2bfloat16(float);
__device__ __nv_bfloat16 __float2bfloat16_rn(float);
__device__ float __bfloat162float(__nv_bfloat16);
__device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);
__device__ float2 __bfloat1622float2(__nv_bfloat162);
__device__ __nv_bfloat162 __float22bfloat162_rn(float2);
__device__ __nv_bfloat162 __float2bfloat162_rn(float);
__device__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16);
__device__ unsigned short __half_as_ushort(__half);
__device__ short __half_as_short(__half);
__device__ __half __ushort_as_half(unsigned short);
__device__ __half __short_as_half(short);
__device__ unsigned short __bfloat16_as_ushort(__nv_bfloat16);
__device__ short __bfloat16_as_short(__nv_bfloat16);
__device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short);
__device__ __nv_bfloat16 __short_as_bfloat16(short);

// ---------------------------------------------------------------- synchronization and warps
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence_block();
__device__ void __threadfence();
__device__ void __threadfence_system();
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32);
__device__ unsigned __ballot_sync(unsigned mask, int predicate);
__device__ int __all_sync(unsigned mask, int predicate);
__device__ int __any_sync(unsigned mask, int predicate);
__device__ unsigned __activemask();
template <class T> __device__ unsigned __match_any_sync(unsigned mask, T value);
template <class T> __device__ unsigned __match_all_sync(unsigned mask, T value, int* pred);
template <class T> __device__ T __reduce_add_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_min_sync(unsigned mask, T value);
template <class T> __device__ T __reduce_max_sync(unsigned mask, T value);
__device__ unsigned __reduce_and_sync(unsigned mask, unsigned value);
__device__ unsigned __reduce_or_sync(unsigned mask, unsigned value);
__device__ unsigned __reduce_xor_sync(unsigned mask, unsigned value);
__device__ int __uni_sync(unsigned mask, int predicate);
__device__ void __trap();
__device__ void __brkpt();
__device__ void __prof_trigger(int);

// ---------------------------------------------------------------- integer intrinsics
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ unsigned __brev(unsigned);
__device__ int __mulhi(int, int);
__device__ unsigned __umulhi(unsigned, unsigned);
__device__ unsigned __sad(int, int, unsigned);
__device__ unsigned __usad(unsigned, unsigned, unsigned);
__device__ unsigned __byte_perm(unsigned, unsigned, unsigned);
__device__ unsigned __fns(unsigned, unsigned, int);
__device__ unsigned __funnelshift_l(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_lc(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_r(unsigned, unsigned, unsigned);
__device__ unsigned __funnelshift_rc(unsigned, unsigned, unsigned);
__device__ unsigned umin(unsigned, unsigned);
__device__ unsigned umax(unsigned, unsigned);
__device__ long long llmin(long long, long long);
__device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ void __nanosleep(unsigned);
// the SIMD video intrinsics: two 16-bit or four 8-bit lanes of a word
#define KSEARCH_VIDEO(OP, ...) __device__ unsigned OP##2(unsigned, ##__VA_ARGS__); __device__ unsigned OP##4(unsigned, ##__VA_ARGS__);
KSEARCH_VIDEO(__vabs) KSEARCH_VIDEO(__vabsss) KSEARCH_VIDEO(__vneg) KSEARCH_VIDEO(__vnegss)
KSEARCH_VIDEO(__vadd, unsigned) KSEARCH_VIDEO(__vsub, unsigned) KSEARCH_VIDEO(__vaddss, unsigned)
KSEARCH_VIDEO(__vaddus, unsigned) KSEARCH_VIDEO(__vsubss, unsigned) KSEARCH_VIDEO(__vsubus, unsigned)
KSEARCH_VIDEO(__vabsdiffs, unsigned) KSEARCH_VIDEO(__vabsdiffu, unsigned) KSEARCH_VIDEO(__vsads, unsigned)
KSEARCH_VIDEO(__vsadu, unsigned) KSEARCH_VIDEO(__vavgs, unsigned) KSEARCH_VIDEO(__vavgu, unsigned)
KSEARCH_VIDEO(__vhaddu, unsigned) KSEARCH_VIDEO(__vmaxs, unsigned) KSEARCH_VIDEO(__vmaxu, unsigned)
KSEARCH_VIDEO(__vmins, unsigned) KSEARCH_VIDEO(__vminu, unsigned) KSEARCH_VIDEO(__vcmpeq, unsigned)
KSEARCH_VIDEO(__vseteq, unsigned) KSEARCH_VIDEO(__vcmpne, unsigned) KSEARCH_VIDEO(__vsetne, unsigned)
KSEARCH_VIDEO(__vcmpges, unsigned) KSEARCH_VIDEO(__vsetges, unsigned) KSEARCH_VIDEO(__vcmpgeu, unsigned)
KSEARCH_VIDEO(__vsetgeu, unsigned) KSEARCH_VIDEO(__vcmpgts, unsigned) KSEARCH_VIDEO(__vsetgts, unsigned)
KSEARCH_VIDEO(__vcmpgtu, unsigned) KSEARCH_VIDEO(__vsetgtu, unsigned) KSEARCH_VIDEO(__vcmples, unsigned)
KSEARCH_VIDEO(__vsetles, unsigned) KSEARCH_VIDEO(__vcmpleu, unsigned) KSEARCH_VIDEO(__vsetleu, unsigned)
KSEARCH_VIDEO(__vcmplts, unsigned) KSEARCH_VIDEO(__vsetlts, unsigned) KSEARCH_VIDEO(__vcmpltu, unsigned)
KSEARCH_VIDEO(__vsetltu, unsigned)
#undef KSEARCH_VIDEO
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned __uhadd(unsigned, unsigned);
__device__ unsigned __urhadd(unsigned, unsigned);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ unsigned long long __brevll(unsigned long long);
// DPX: three-way and add-then max/min, ReLU'd, and with the side that won; 32-bit values or 16-bit lane pairs
#define KSEARCH_DPX(OP)                                                                                       \
  __device__ int __vi##OP##3_s32(int, int, int); __device__ unsigned __vi##OP##3_u32(unsigned, unsigned, unsigned); \
  __device__ unsigned __vi##OP##3_s16x2(unsigned, unsigned, unsigned);                                        \
  __device__ unsigned __vi##OP##3_u16x2(unsigned, unsigned, unsigned);                                        \
  __device__ int __viadd##OP##_s32(int, int, int);                                                            \
  __device__ unsigned __viadd##OP##_u32(unsigned, unsigned, unsigned);                                        \
  __device__ unsigned __viadd##OP##_s16x2(unsigned, unsigned, unsigned);                                      \
  __device__ unsigned __viadd##OP##_u16x2(unsigned, unsigned, unsigned);                                      \
  __device__ int __vib##OP##_s32(int, int, bool*); __device__ unsigned __vib##OP##_u32(unsigned, unsigned, bool*); \
  __device__ unsigned __vib##OP##_s16x2(unsigned, unsigned, bool*, bool*);                                     \
  __device__ unsigned __vib##OP##_u16x2(unsigned, unsigned, bool*, bool*);                                     \
  __device__ int __vi##OP##_s32_relu(int, int); __device__ unsigned __vi##OP##_s16x2_relu(unsigned, unsigned);  \
  __device__ int __vi##OP##3_s32_relu(int, int, int);                                                         \
  __device__ unsigned __vi##OP##3_s16x2_relu(unsigned, unsigned, unsigned);                                   \
  __device__ int __viadd##OP##_s32_relu(int, int, int);                                                       \
  __device__ unsigned __viadd##OP##_s16x2_relu(unsigned, unsigned, unsigned);
KSEARCH_DPX(max) KSEARCH_DPX(min)
#undef KSEARCH_DPX

// ---------------------------------------------------------------- atomics
#define KSEARCH_ATOMIC(NAME)                                                          \
  __device__ int NAME(int*, int);                                                     \
  __device__ unsigned NAME(unsigned*, unsigned);                                      \
  __device__ unsigned long long NAME(unsigned long long*, unsigned long long);        \
  __device__ long long NAME(long long*, long long);
KSEARCH_ATOMIC(atomicAdd)
KSEARCH_ATOMIC(atomicSub)
KSEARCH_ATOMIC(atomicMax)
KSEARCH_ATOMIC(atomicMin)
KSEARCH_ATOMIC(atomicExch)
KSEARCH_ATOMIC(atomicAnd)
KSEARCH_ATOMIC(atomicOr)
KSEARCH_ATOMIC(atomicXor)
// The scoped forms (sm_60): the same operations, atomic for the block's threads or the whole system.
#define KSEARCH_SCOPED_ATOMIC(NAME) KSEARCH_ATOMIC(NAME##_block) KSEARCH_ATOMIC(NAME##_system)
KSEARCH_SCOPED_ATOMIC(atomicAdd)
KSEARCH_SCOPED_ATOMIC(atomicSub)
KSEARCH_SCOPED_ATOMIC(atomicMax)
KSEARCH_SCOPED_ATOMIC(atomicMin)
KSEARCH_SCOPED_ATOMIC(atomicExch)
KSEARCH_SCOPED_ATOMIC(atomicAnd)
KSEARCH_SCOPED_ATOMIC(atomicOr)
KSEARCH_SCOPED_ATOMIC(atomicXor)
#undef KSEARCH_ATOMIC
#undef KSEARCH_SCOPED_ATOMIC
// CUDA 12.8's builtins with a memory order and a scope (mapped as the atomics above: relaxed, as Metal's are)
#define __NV_ATOMIC_RELAXED 0
#define __NV_ATOMIC_CONSUME 1
#define __NV_ATOMIC_ACQUIRE 2
#define __NV_ATOMIC_RELEASE 3
#define __NV_ATOMIC_ACQ_REL 4
#define __NV_ATOMIC_SEQ_CST 5
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4
#define KSEARCH_NV_ATOMIC(NAME) \
  template <class T, class U> __device__ T NAME(T* p, U v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_add)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_sub)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_min)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_max)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_and)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_or)
KSEARCH_NV_ATOMIC(__nv_atomic_fetch_xor)
KSEARCH_NV_ATOMIC(__nv_atomic_exchange_n)
#undef KSEARCH_NV_ATOMIC
template <class T> __device__ T __nv_atomic_load_n(const T* p, int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
template <class T, class U> __device__ void __nv_atomic_store_n(T* p, U v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM);
__device__ float atomicAdd(float*, float);
__device__ double atomicAdd(double*, double);
__device__ __half atomicAdd(__half*, __half);
// sm_90: a float2 or float4 added lane by lane, each lane atomic (not the vector as a whole)
__device__ float2 atomicAdd(float2*, float2);
__device__ float4 atomicAdd(float4*, float4);
__device__ __half2 atomicAdd(__half2*, __half2);
__device__ __nv_bfloat162 atomicAdd(__nv_bfloat162*, __nv_bfloat162);
__device__ __nv_bfloat16 atomicAdd(__nv_bfloat16*, __nv_bfloat16);
__device__ float atomicExch(float*, float);
__device__ int atomicCAS(int*, int, int);
__device__ unsigned atomicCAS(unsigned*, unsigned, unsigned);
__device__ unsigned long long atomicCAS(unsigned long long*, unsigned long long, unsigned long long);
__device__ unsigned atomicInc(unsigned*, unsigned);
__device__ unsigned atomicDec(unsigned*, unsigned);
// the scoped forms of the float, compare-and-swap and wrapping atomics
#define KSEARCH_SCOPED(S)                                                                                      \
  __device__ float atomicAdd##S(float*, float); __device__ double atomicAdd##S(double*, double);              \
  __device__ float2 atomicAdd##S(float2*, float2); __device__ float4 atomicAdd##S(float4*, float4);           \
  __device__ float atomicExch##S(float*, float); __device__ int atomicCAS##S(int*, int, int);                 \
  __device__ unsigned atomicCAS##S(unsigned*, unsigned, unsigned);                                            \
  __device__ unsigned atomicInc##S(unsigned*, unsigned); __device__ unsigned atomicDec##S(unsigned*, unsigned);
KSEARCH_SCOPED(_block)
KSEARCH_SCOPED(_system)
#undef KSEARCH_SCOPED

// ---------------------------------------------------------------- math intrinsics
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ float __fdividef(float, float);
__device__ float __frcp_rn(float);
__device__ float __fsqrt_rn(float);
__device__ float __saturatef(float);
__device__ float __fmaf_rn(float, float, float);
__device__ float __fadd_rn(float, float);
// the warp shuffles before CUDA 9 (no mask; every lane of the warp takes part)
template <class T> __device__ T __shfl(T var, int src_lane, int width = 32);
template <class T> __device__ T __shfl_up(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor(T var, int lane_mask, int width = 32);
__device__ int __mul24(int, int);
__device__ unsigned __umul24(unsigned, unsigned);
__device__ int __dp4a(int, int, int);
__device__ unsigned __dp4a(unsigned, unsigned, unsigned);
__device__ int __dp4a(char4, char4, int);
__device__ unsigned __dp4a(uchar4, uchar4, unsigned);
#define KSEARCH_DP2A(NAME)                                                                                    \
  __device__ int NAME(int, int, int); __device__ unsigned NAME(unsigned, unsigned, unsigned);                 \
  __device__ int NAME(short2, char4, int); __device__ unsigned NAME(ushort2, uchar4, unsigned);
KSEARCH_DP2A(__dp2a_lo)
KSEARCH_DP2A(__dp2a_hi)
#undef KSEARCH_DP2A
__device__ float __frsqrt_rn(float);
__device__ float __fmul_rn(float, float);
__device__ float __fsub_rn(float, float);
__device__ float __fdiv_rn(float, float);
// double arithmetic and conversions rounded to nearest (the port narrows double to float); the bit views of a double
__device__ double __dadd_rn(double, double);
__device__ double __dsub_rn(double, double);
__device__ double __dmul_rn(double, double);
__device__ double __ddiv_rn(double, double);
__device__ double __drcp_rn(double);
__device__ double __dsqrt_rn(double);
__device__ double __fma_rn(double, double, double);
__device__ float __double2float_rn(double);
__device__ int __double2int_rn(double);
__device__ int __double2int_rz(double);
__device__ unsigned __double2uint_rn(double);
__device__ unsigned __double2uint_rz(double);
__device__ long long __double2ll_rn(double);
__device__ long long __double2ll_rz(double);
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned);
__device__ double __ll2double_rn(long long);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);
__device__ double __hiloint2double(int, int);
__device__ size_t __cvta_generic_to_shared(const void*);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ unsigned __float_as_uint(float);
__device__ float __uint_as_float(unsigned);
__device__ int __float2int_rn(float);
// rounded down, up or toward zero
#define KSEARCH_DIRECTED(R)                                                                                    \
  __device__ float __fadd_##R(float, float); __device__ float __fsub_##R(float, float);                       \
  __device__ float __fmul_##R(float, float); __device__ float __fdiv_##R(float, float);                       \
  __device__ float __frcp_##R(float); __device__ float __fsqrt_##R(float);                                     \
  __device__ float __fmaf_##R(float, float, float); __device__ float __int2float_##R(int);                    \
  __device__ float __uint2float_##R(unsigned); __device__ float __ll2float_##R(long long);                    \
  __device__ float __ull2float_##R(unsigned long long);
KSEARCH_DIRECTED(rd) KSEARCH_DIRECTED(ru) KSEARCH_DIRECTED(rz)
#undef KSEARCH_DIRECTED
__device__ float __ll2float_rn(long long);
__device__ float __ull2float_rn(unsigned long long);
__device__ unsigned __float2uint_rd(float);
__device__ unsigned __float2uint_ru(float);
__device__ long long __float2ll_rn(float);
__device__ unsigned long long __float2ull_rn(float);
__device__ long long __float2ll_rz(float);
__device__ unsigned long long __float2ull_rz(float);
__device__ long long __float2ll_rd(float);
__device__ unsigned long long __float2ull_rd(float);
__device__ long long __float2ll_ru(float);
__device__ unsigned long long __float2ull_ru(float);
__device__ int __float2int_rz(float);
__device__ int __float2int_rd(float);
__device__ int __float2int_ru(float);
__device__ unsigned __float2uint_rn(float);
__device__ unsigned __float2uint_rz(float);
__device__ float __int2float_rn(int);
__device__ float __uint2float_rn(unsigned);
__device__ float fdividef(float, float);
__host__ __device__ float rsqrtf(float);  // (CUDA's math library has it for the host too: an attention scale)
__device__ float rsqrt(float);
__device__ float exp10f(float);
__device__ void sincosf(float, float*, float*);
__device__ void __sincosf(float, float*, float*);
template <class T> __device__ T __ldg(const T*);
template <class T> __device__ T __ldcs(const T*);
template <class T> __device__ T __ldcg(const T*);
template <class T> __device__ T __ldcv(const T*);
template <class T> __device__ T __ldca(const T*);
template <class T> __device__ T __ldlu(const T*);
template <class T> __device__ void __stcs(T*, T);
template <class T> __device__ void __stcg(T*, T);
template <class T> __device__ void __stwb(T*, T);
template <class T> __device__ void __stwt(T*, T);
// min and max as CUDA overloads them (math_functions.hpp): mixed signedness converts to unsigned,
// float with double to double; the template covers the other types.
#define KSEARCH_MINMAX(F)                                                                                       \
  __host__ __device__ int F(int, int);                                                                          \
  __host__ __device__ unsigned F(unsigned, unsigned);                                                           \
  __host__ __device__ unsigned F(int, unsigned);                                                                \
  __host__ __device__ unsigned F(unsigned, int);                                                                \
  __host__ __device__ long F(long, long);                                                                       \
  __host__ __device__ unsigned long F(unsigned long, unsigned long);                                            \
  __host__ __device__ unsigned long F(long, unsigned long);                                                     \
  __host__ __device__ unsigned long F(unsigned long, long);                                                     \
  __host__ __device__ long long F(long long, long long);                                                        \
  __host__ __device__ unsigned long long F(unsigned long long, unsigned long long);                             \
  __host__ __device__ unsigned long long F(long long, unsigned long long);                                      \
  __host__ __device__ unsigned long long F(unsigned long long, long long);                                      \
  __host__ __device__ float F(float, float);                                                                    \
  __host__ __device__ double F(double, double);                                                                 \
  __host__ __device__ double F(float, double);                                                                  \
  __host__ __device__ double F(double, float);                                                                  \
  template <class T> __host__ __device__ T F(T, T);
KSEARCH_MINMAX(min)
KSEARCH_MINMAX(max)
#undef KSEARCH_MINMAX
// std::swap in device code: <utility>'s is a host function before C++20 (where it became constexpr,
// which clang's CUDA mode makes callable from the device too).
namespace std {
template <class T> __device__ void swap(T& a, T& b);
}
extern "C" __device__ int printf(const char*, ...);  // dropped by the port (Metal kernels cannot print)
// memcpy and memset in device code (declared for the device by CUDA's own headers too): byte loops in Metal
extern "C" __device__ void* memcpy(void* dst, const void* src, size_t bytes);
extern "C" __device__ void* memset(void* dst, int value, size_t bytes);
// The device heap (malloc and free in device code): declared so that the port names it ([untranslatable])
extern "C" __device__ void* malloc(size_t bytes);
extern "C" __device__ void free(void* p);
// cp.async's pipeline primitives (cuda_pipeline_primitives.h, also through cuda_pipeline.h)
__device__ void __pipeline_memcpy_async(void* dst, const void* src, size_t size, size_t zfill = 0);
__device__ void __pipeline_commit();
__device__ void __pipeline_wait_prior(size_t prior);
__device__ long long clock64();
__device__ unsigned clock();

// ---------------------------------------------------------------- host API
typedef struct CUstream_st* cudaStream_t;
typedef int cudaError_t;
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_mem = 0, cudaStream_t stream = 0);
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared_mem = 0, cudaStream_t stream = 0);
extern "C" cudaError_t cudaGetLastError();
extern "C" cudaError_t cudaPeekAtLastError();
extern "C" const char* cudaGetErrorString(cudaError_t);
extern "C" const char* cudaGetErrorName(cudaError_t);
extern "C" cudaError_t cudaDeviceSynchronize();
extern "C" cudaError_t cudaStreamSynchronize(cudaStream_t stream);
// Streams the host function makes and destroys (a side stream that events order after the main one): MLX runs a
// call's kernels one after the other, so a launch on one is read as any other.
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
extern "C" cudaError_t cudaStreamCreate(cudaStream_t* stream);
extern "C" cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
extern "C" cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
extern "C" cudaError_t cudaStreamDestroy(cudaStream_t stream);
extern "C" cudaError_t cudaStreamQuery(cudaStream_t stream);
extern "C" cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t stream = 0);
// CUDA 12's launch with a config (the port reads `cudaLaunchKernelEx(&config, kernel, args...)` as a <<<>>> launch);
// its attributes (clusters, programmatic dependent launch, priority) change no result of an MLX call.
enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1, cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3, cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5, cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
  char pad[64];
  struct { unsigned int x, y, z; } clusterDim;
  int cooperative;
  int priority;
  int programmaticStreamSerializationAllowed;
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};
template <typename... Expected, typename... Actual>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Expected...), Actual&&... args);
// programmatic dependent launch in device code: MLX runs a stream's kernels one after the other
__device__ void cudaGridDependencySynchronize();
__device__ void cudaTriggerProgrammaticLaunchCompletion();
extern "C" cudaError_t cudaFuncSetAttribute(const void*, int, int);
template <class F> cudaError_t cudaFuncSetAttribute(F* kernel, int attribute, int value);
// the kernel's and device's cache and shared-memory preferences: hints the port leaves behind with the host code
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15
};
enum cudaSharedCarveout { cudaSharedmemCarveoutDefault = -1, cudaSharedmemCarveoutMaxShared = 100, cudaSharedmemCarveoutMaxL1 = 0 };
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1, cudaSharedMemBankSizeEightByte = 2 };
extern "C" cudaError_t cudaFuncSetCacheConfig(const void* kernel, cudaFuncCache config);
template <class F> cudaError_t cudaFuncSetCacheConfig(F* kernel, cudaFuncCache config);
extern "C" cudaError_t cudaFuncSetSharedMemConfig(const void* kernel, cudaSharedMemConfig config);
template <class F> cudaError_t cudaFuncSetSharedMemConfig(F* kernel, cudaSharedMemConfig config);
extern "C" cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
extern "C" cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
extern "C" cudaError_t cudaSetDevice(int device);
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1, cudaStreamCaptureStatusInvalidated = 2 };
extern "C" cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
// Events timing the launches (the CUDA samples' cudaEventRecord around a launch): host code that changes no result.
typedef struct CUevent_st* cudaEvent_t;
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
extern "C" cudaError_t cudaEventCreate(cudaEvent_t* event);
extern "C" cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
extern "C" cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
extern "C" cudaError_t cudaEventQuery(cudaEvent_t event);
extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t event);
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
extern "C" cudaError_t cudaEventDestroy(cudaEvent_t event);
extern "C" cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
extern "C" cudaError_t cudaMemset(void*, int, size_t);
extern "C" cudaError_t cudaMalloc(void** p, size_t bytes);
extern "C" cudaError_t cudaFree(void* p);
extern "C" cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream = 0);
extern "C" cudaError_t cudaFreeAsync(void* p, cudaStream_t stream = 0);
template <class T> cudaError_t cudaMalloc(T** p, size_t bytes);
template <class T> cudaError_t cudaMallocAsync(T** p, size_t bytes, cudaStream_t stream = 0);
extern "C" cudaError_t cudaGetDevice(int* device);
// device queries: the port answers those a launch size may read for the Metal target (launch.cpp, device_answers)
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};
extern "C" cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device);
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor, l2CacheSize;
  int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], major, minor, multiProcessorCount,
      maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor, clockRate, memoryClockRate, memoryBusWidth;
};
extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes, preferredShmemCarveout;
};
extern "C" cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* function);
template <class F> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, F* kernel);
extern "C" cudaError_t cudaGetDeviceCount(int* count);
extern "C" cudaError_t cudaRuntimeGetVersion(int* version);
extern "C" cudaError_t cudaDriverGetVersion(int* version);
extern "C" cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
extern "C" cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags);
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
extern "C" cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);
template <class T> cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0, int kind = 1);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0, int kind = 1, cudaStream_t stream = 0);
// the occupancy API: a launch size it chooses is known only on the device (reported at the launch)
template <class F>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, F kernel, size_t dynamic_shared = 0, int block_limit = 0);
template <class F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F kernel, int block_size, size_t dynamic_shared);
// launches through the runtime API and host copies (reported at the call)
extern "C" cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem = 0,
                                        cudaStream_t stream = 0);
template <class F>
cudaError_t cudaLaunchKernel(F* func, dim3 grid, dim3 block, void** args, size_t shared_mem = 0, cudaStream_t stream = 0);
extern "C" cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem = 0,
                                                   cudaStream_t stream = 0);
template <class F>
cudaError_t cudaLaunchCooperativeKernel(F* func, dim3 grid, dim3 block, void** args, size_t shared_mem = 0, cudaStream_t stream = 0);
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
extern "C" cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
extern "C" cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
#define cudaSuccess 0

// ---------------------------------------------------------------- reported as untranslatable
typedef unsigned long long cudaTextureObject_t;
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t, int);
template <class T> __device__ T tex2D(cudaTextureObject_t, float, float);

// Device overloads of the math library (host declarations come from math.h).
#define KSEARCH_MATH1(F) __device__ float F##f(float); __device__ float F(float); __device__ double F(double);
#define KSEARCH_MATH2(F) __device__ float F##f(float, float); __device__ float F(float, float); __device__ double F(double, double);
KSEARCH_MATH1(exp) KSEARCH_MATH1(exp2) KSEARCH_MATH1(expm1) KSEARCH_MATH1(log) KSEARCH_MATH1(log2) KSEARCH_MATH1(log10) KSEARCH_MATH1(log1p) KSEARCH_MATH1(sqrt) KSEARCH_MATH1(cbrt) KSEARCH_MATH1(sin) KSEARCH_MATH1(cos) KSEARCH_MATH1(tan) KSEARCH_MATH1(asin) KSEARCH_MATH1(acos) KSEARCH_MATH1(atan) KSEARCH_MATH1(sinh) KSEARCH_MATH1(cosh) KSEARCH_MATH1(tanh) KSEARCH_MATH1(asinh) KSEARCH_MATH1(acosh) KSEARCH_MATH1(atanh) KSEARCH_MATH1(erf) KSEARCH_MATH1(erfc) KSEARCH_MATH1(fabs) KSEARCH_MATH1(floor) KSEARCH_MATH1(ceil) KSEARCH_MATH1(round) KSEARCH_MATH1(trunc) KSEARCH_MATH1(rint)
KSEARCH_MATH2(pow) KSEARCH_MATH2(fmax) KSEARCH_MATH2(fmin) KSEARCH_MATH2(fmod) KSEARCH_MATH2(atan2) KSEARCH_MATH2(copysign) KSEARCH_MATH2(hypot)
KSEARCH_MATH1(sinpi) KSEARCH_MATH1(cospi) KSEARCH_MATH1(erfinv) KSEARCH_MATH1(nearbyint) KSEARCH_MATH1(rcbrt)
KSEARCH_MATH2(fdim) KSEARCH_MATH2(rhypot) KSEARCH_MATH2(nextafter)
KSEARCH_MATH1(erfcinv) KSEARCH_MATH1(normcdfinv) KSEARCH_MATH1(erfcx) KSEARCH_MATH1(lgamma) KSEARCH_MATH1(tgamma)
KSEARCH_MATH1(j0) KSEARCH_MATH1(j1) KSEARCH_MATH1(y0) KSEARCH_MATH1(y1) KSEARCH_MATH1(cyl_bessel_i0)
KSEARCH_MATH1(cyl_bessel_i1) KSEARCH_MATH1(logb) KSEARCH_MATH2(remainder)
#define KSEARCH_MATH_FLOAT(R, F, ...) __device__ R F##f(float, ##__VA_ARGS__); __device__ R F(float, ##__VA_ARGS__);
KSEARCH_MATH_FLOAT(float, ldexp, int) KSEARCH_MATH_FLOAT(float, scalbn, int) KSEARCH_MATH_FLOAT(float, frexp, int*)
KSEARCH_MATH_FLOAT(float, modf, float*) KSEARCH_MATH_FLOAT(int, ilogb) KSEARCH_MATH_FLOAT(long, lrint)
KSEARCH_MATH_FLOAT(long long, llrint) KSEARCH_MATH_FLOAT(long, lround) KSEARCH_MATH_FLOAT(long long, llround)
KSEARCH_MATH_FLOAT(void, sincospi, float*, float*) KSEARCH_MATH_FLOAT(float, norm3d, float, float)
KSEARCH_MATH_FLOAT(float, rnorm3d, float, float) KSEARCH_MATH_FLOAT(float, norm4d, float, float, float)
KSEARCH_MATH_FLOAT(float, rnorm4d, float, float, float)
KSEARCH_MATH_FLOAT(float, remquo, float, int*) KSEARCH_MATH_FLOAT(float, scalbln, long)
// <cmath>'s std:: forms of those with a second result through a pointer are host functions: their device overloads
namespace std {
__device__ float frexp(float, int*);
__device__ float modf(float, float*);
__device__ float remquo(float, float, int*);
}
__device__ float jnf(int, float);
__device__ float jn(int, float);
__device__ double jn(int, double);
__device__ float ynf(int, float);
__device__ float yn(int, float);
__device__ double yn(int, double);
__device__ float normf(int, const float*);
__device__ float rnormf(int, const float*);
__device__ float nanf(const char*);
#undef KSEARCH_MATH_FLOAT
#undef KSEARCH_MATH1
#undef KSEARCH_MATH2
__device__ float fmaf(float, float, float);
__device__ float fma(float, float, float);
__device__ double fma(double, double, double);
__device__ bool isnan(float);
__device__ bool isinf(float);
__device__ bool isfinite(float);
__device__ bool signbit(float);
__device__ float normcdff(float);
__device__ float normcdf(float);
__device__ double normcdf(double);
__device__ float abs(float);
__device__ int abs(int);
__device__ long abs(long);
__device__ long long abs(long long);
__device__ long labs(long);
__device__ long long llabs(long long);
