// Part of the translator's CUDA declarations (ksearch_cuda.h): CUB. The block and warp collectives the port
// rewrites are declared with the overloads its Metal counterparts have (metal_helpers.metal, `ks_cub`), so
// that a call of another overload fails to parse at its line; the other facilities are declared so that a
// kernel using them parses and each use is reported (mappings.toml, `cub::NAME`). Methods have empty bodies: clang
// requires a definition of a template called with a lambda, whose type has no linkage.
#pragma once
#include "../ksearch_cuda.h"
namespace cub {
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm { BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE,
                          BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED };
enum BlockStoreAlgorithm { BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE,
                           BLOCK_STORE_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED };
struct Sum { template <class T> __host__ __device__ T operator()(const T&, const T&) const { return {}; } };
struct Max { template <class T> __host__ __device__ T operator()(const T&, const T&) const { return {}; } };
struct Min { template <class T> __host__ __device__ T operator()(const T&, const T&) const { return {}; } };

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockReduce {
  struct TempStorage {};
  __device__ BlockReduce(TempStorage&);
  __device__ T Sum(T) { return {}; }
  __device__ T Sum(T, int) { return {}; }
  template <class Op> __device__ T Reduce(T, Op) { return {}; }
  template <class Op> __device__ T Reduce(T, Op, int) { return {}; }
  template <int N> __device__ T Sum(T (&)[N]) { return {}; }
  template <int N, class Op> __device__ T Reduce(T (&)[N], Op) { return {}; }
};
// The one-item scans of BlockScan and WarpScan (with or without the aggregate, with or without an initial value).
template <class T>
struct ScanOneItem {
  __device__ void InclusiveSum(T, T&) {}
  __device__ void InclusiveSum(T, T&, T&) {}
  __device__ void ExclusiveSum(T, T&) {}
  __device__ void ExclusiveSum(T, T&, T&) {}
  template <class Op> __device__ void InclusiveScan(T, T&, Op) {}
  template <class Op> __device__ void InclusiveScan(T, T&, Op, T&) {}
  template <class Op> __device__ void ExclusiveScan(T, T&, Op) {}
  template <class Op> __device__ void ExclusiveScan(T, T&, Op, T&) {}
  template <class Op> __device__ void ExclusiveScan(T, T&, T, Op) {}
  template <class Op> __device__ void ExclusiveScan(T, T&, T, Op, T&) {}
};
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
struct BlockScan : ScanOneItem<T> {
  struct TempStorage {};
  __device__ BlockScan(TempStorage&);
  using ScanOneItem<T>::InclusiveSum;
  using ScanOneItem<T>::ExclusiveSum;
  using ScanOneItem<T>::InclusiveScan;
  using ScanOneItem<T>::ExclusiveScan;
  template <int N> __device__ void InclusiveSum(T (&)[N], T (&)[N]) {}
  template <int N> __device__ void InclusiveSum(T (&)[N], T (&)[N], T&) {}
  template <int N> __device__ void ExclusiveSum(T (&)[N], T (&)[N]) {}
  template <int N> __device__ void ExclusiveSum(T (&)[N], T (&)[N], T&) {}
  template <int N, class Op> __device__ void InclusiveScan(T (&)[N], T (&)[N], Op) {}
  template <int N, class Op> __device__ void InclusiveScan(T (&)[N], T (&)[N], Op, T&) {}
  template <int N, class Op> __device__ void ExclusiveScan(T (&)[N], T (&)[N], T, Op) {}
  template <int N, class Op> __device__ void ExclusiveScan(T (&)[N], T (&)[N], T, Op, T&) {}
  // With a running prefix: a callback functor given the block's aggregate returns what precedes the block.
  template <class P> __device__ void InclusiveSum(T, T&, P&) {}
  template <class P> __device__ void ExclusiveSum(T, T&, P&) {}
  template <class Op, class P> __device__ void InclusiveScan(T, T&, Op, P&) {}
  template <class Op, class P> __device__ void ExclusiveScan(T, T&, Op, P&) {}
  template <int N, class P> __device__ void InclusiveSum(T (&)[N], T (&)[N], P&) {}
  template <int N, class P> __device__ void ExclusiveSum(T (&)[N], T (&)[N], P&) {}
  template <int N, class Op, class P> __device__ void InclusiveScan(T (&)[N], T (&)[N], Op, P&) {}
  template <int N, class Op, class P> __device__ void ExclusiveScan(T (&)[N], T (&)[N], Op, P&) {}
};
template <class T, int LOGICAL_WARP_THREADS = 32>
struct WarpReduce {
  struct TempStorage {};
  __device__ WarpReduce(TempStorage&);
  __device__ T Sum(T) { return {}; }
  __device__ T Sum(T, int) { return {}; }
  template <class Op> __device__ T Reduce(T, Op) { return {}; }
  template <class Op> __device__ T Reduce(T, Op, int) { return {}; }
};
template <class T, int LOGICAL_WARP_THREADS = 32>
struct WarpScan : ScanOneItem<T> {
  struct TempStorage {};
  __device__ WarpScan(TempStorage&);
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockLoad {
  // As CUB requires: the warp-transposing algorithms exchange a warp's items through shared memory.
  static_assert((ALGORITHM != BLOCK_LOAD_WARP_TRANSPOSE && ALGORITHM != BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED) ||
                    BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z % 32 == 0,
                "BLOCK_THREADS must be a multiple of WARP_THREADS");
  struct TempStorage {};
  __device__ BlockLoad(TempStorage&);
  template <class P> __device__ void Load(P, T (&)[ITEMS_PER_THREAD]) {}
  template <class P> __device__ void Load(P, T (&)[ITEMS_PER_THREAD], int) {}
  template <class P, class D> __device__ void Load(P, T (&)[ITEMS_PER_THREAD], int, D) {}
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
struct BlockStore {
  static_assert((ALGORITHM != BLOCK_STORE_WARP_TRANSPOSE && ALGORITHM != BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED) ||
                    BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z % 32 == 0,
                "BLOCK_THREADS must be a multiple of WARP_THREADS");
  struct TempStorage {};
  __device__ BlockStore(TempStorage&);
  template <class P> __device__ void Store(P, T (&)[ITEMS_PER_THREAD]) {}
  template <class P> __device__ void Store(P, T (&)[ITEMS_PER_THREAD], int) {}
};

// Not rewritten (reported at each use).
struct DeviceReduce {
  template <class... A> __host__ static cudaError_t Sum(A...);
  template <class... A> __host__ static cudaError_t Max(A...);
  template <class... A> __host__ static cudaError_t Min(A...);
  template <class... A> __host__ static cudaError_t Reduce(A...);
};
struct DeviceScan {
  template <class... A> __host__ static cudaError_t InclusiveSum(A...);
  template <class... A> __host__ static cudaError_t ExclusiveSum(A...);
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class V = int>
struct BlockRadixSort {
  struct TempStorage {};
  __device__ BlockRadixSort(TempStorage&);
  __device__ void Sort(T (&)[ITEMS_PER_THREAD]) {}
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS>
struct BlockHistogram {
  struct TempStorage {};
  __device__ BlockHistogram(TempStorage&);
  template <class C> __device__ void Histogram(T (&)[ITEMS_PER_THREAD], C*) {}
};
}  // namespace cub
