// Part of the translator's CUDA declarations (ksearch_cuda.h): CUB's collectives, declared so that a
// kernel using them parses and each use is reported (mappings.toml, `namespace cub`): CUB is a
// library of its own, whose algorithms the port does not rewrite.
#pragma once
#include "../ksearch_cuda.h"
namespace cub {
template <class T> struct Sum { __device__ T operator()(const T&, const T&) const; };
template <class T> struct Max { __device__ T operator()(const T&, const T&) const; };
template <class T> struct Min { __device__ T operator()(const T&, const T&) const; };
template <class T, int BLOCK_DIM_X, int ALGORITHM = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
struct BlockReduce {
  struct TempStorage {};
  __device__ BlockReduce(TempStorage&);
  __device__ T Sum(T);
  __device__ T Sum(T, int);
  template <class Op> __device__ T Reduce(T, Op);
  template <class Op> __device__ T Reduce(T, Op, int);
};
template <class T, int BLOCK_DIM_X, int ALGORITHM = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
struct BlockScan {
  struct TempStorage {};
  __device__ BlockScan(TempStorage&);
  __device__ void InclusiveSum(T, T&);
  __device__ void ExclusiveSum(T, T&);
  __device__ void ExclusiveSum(T, T&, T&);
};
template <class T, int LOGICAL_WARP_THREADS = 32>
struct WarpReduce {
  struct TempStorage {};
  __device__ WarpReduce(TempStorage&);
  __device__ T Sum(T);
  template <class Op> __device__ T Reduce(T, Op);
};
}  // namespace cub
