// Part of the translator's CUDA declarations (ksearch_cuda.h): cuRAND's device API for the Philox4_32_10 and XORWOW
// generators, which the port reproduces bit for bit (ks_curand and ks_curand_xorwow in metal_helpers.metal). The
// other generators' states are declared unavailable, so that a kernel using one is reported where it names it.
#pragma once
#include "ksearch_cuda.h"

// cuRAND's fields but its double ones (Metal has no double), laid out as the port's ks_philox_state (64 bytes), so that
// a buffer of states the host sizes with sizeof holds as many of the port's.
struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  float boxmuller_extra;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

// cuRAND's fields but its double ones, laid out as the port's ks_xorwow_state (32 bytes; cuRAND's is 48, so a buffer
// the host sizes for cuRAND's holds as many of the port's).
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  float boxmuller_extra;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

// Each name of another generator's state is unavailable (the struct tag and each typedef, as a typedef of an
// unavailable struct would itself be refused here).
#define KSEARCH_CURAND_UNPORTED(WHY) \
  __attribute__((unavailable(WHY " (curandStatePhilox4_32_10_t and curandState, i.e. XORWOW, are ported, bit for bit)")))
#define KSEARCH_CURAND_STATE(TAG, WHY)                   \
  struct KSEARCH_CURAND_UNPORTED(WHY) TAG {};            \
  struct TAG##_unported {};                              \
  typedef struct TAG##_unported KSEARCH_CURAND_UNPORTED(WHY) TAG##_t;
KSEARCH_CURAND_STATE(curandStateMRG32k3a, "curand's MRG32k3a generator is not ported")
KSEARCH_CURAND_STATE(curandStateMtgp32, "curand's MTGP32 generator (a state shared by a block) is not ported")
KSEARCH_CURAND_STATE(curandStateSobol32, "curand's Sobol quasi-random generators are not ported")
#undef KSEARCH_CURAND_STATE
#undef KSEARCH_CURAND_UNPORTED

__device__ void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                            curandStatePhilox4_32_10_t* state);
__device__ void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state);
__device__ void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state);
__device__ unsigned int curand(curandStatePhilox4_32_10_t* state);
__device__ uint4 curand4(curandStatePhilox4_32_10_t* state);
__device__ float curand_uniform(curandStatePhilox4_32_10_t* state);
__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t* state);
__device__ float curand_normal(curandStatePhilox4_32_10_t* state);
__device__ float2 curand_normal2(curandStatePhilox4_32_10_t* state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10_t* state);
__device__ float curand_log_normal(curandStatePhilox4_32_10_t* state, float mean, float stddev);
__device__ float2 curand_log_normal2(curandStatePhilox4_32_10_t* state, float mean, float stddev);
__device__ float4 curand_log_normal4(curandStatePhilox4_32_10_t* state, float mean, float stddev);
__device__ double curand_uniform_double(curandStatePhilox4_32_10_t* state);
__device__ double curand_normal_double(curandStatePhilox4_32_10_t* state);
__device__ unsigned int curand_poisson(curandStatePhilox4_32_10_t* state, double lambda);

__device__ void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                            curandStateXORWOW_t* state);
__device__ void skipahead(unsigned long long n, curandStateXORWOW_t* state);
__device__ void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state);
__device__ unsigned int curand(curandStateXORWOW_t* state);
__device__ float curand_uniform(curandStateXORWOW_t* state);
__device__ float curand_normal(curandStateXORWOW_t* state);
__device__ float2 curand_normal2(curandStateXORWOW_t* state);
__device__ float curand_log_normal(curandStateXORWOW_t* state, float mean, float stddev);
__device__ float2 curand_log_normal2(curandStateXORWOW_t* state, float mean, float stddev);
__device__ double curand_uniform_double(curandStateXORWOW_t* state);
__device__ double curand_normal_double(curandStateXORWOW_t* state);
__device__ unsigned int curand_poisson(curandStateXORWOW_t* state, double lambda);
