// Part of the translator's CUDA declarations (ksearch_cuda.h): cooperative groups, parsed so that
// their use is reported (grid-wide sync has no Metal equivalent).
#pragma once
#include "ksearch_cuda.h"
namespace cooperative_groups {
struct grid_group {
  __device__ void sync();
};
struct thread_block {
  __device__ void sync();
};
__device__ grid_group this_grid();
__device__ thread_block this_thread_block();
}  // namespace cooperative_groups
