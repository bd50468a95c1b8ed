// Part of the translator's CUDA declarations (ksearch_cuda.h): assert() in device code, a call the port
// drops (mappings.toml: Metal kernels have no assert). <cassert> includes this file too.
#pragma once
#include "ksearch_cuda.h"
__host__ __device__ void __ks_assert(bool condition);
#undef assert
#define assert(e) __ks_assert(e)
