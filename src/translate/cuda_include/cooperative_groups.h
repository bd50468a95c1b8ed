// Part of the translator's CUDA declarations (ksearch_cuda.h): cooperative groups. The block and its
// 32-thread tiles (Apple SIMD groups are 32 wide) are mapped (mappings.toml, `thread_block::...`,
// `thread_block_tile::...`), and the grid's ranks and sizes; grid-wide sync and clusters are reported (no Metal
// equivalent).
#pragma once
#include "ksearch_cuda.h"
namespace cooperative_groups {
struct grid_group {
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_blocks() const;
  __device__ bool is_valid() const;
};
// A group of either kind, chosen at run time (the CUDA guide's `thread_group g = this_thread_block()`,
// `tiled_partition(g, 32)`): the port writes each handle as the group it holds (thread_groups.cpp).
struct thread_group {
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
};
struct thread_block : thread_group {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;  // CUDA 12's name for group_dim()
};
template <unsigned N> struct thread_block_tile : thread_group {
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned meta_group_rank() const;
  __device__ unsigned meta_group_size() const;
  template <class T> __device__ T shfl(T var, int src_lane) const;
  template <class T> __device__ T shfl_up(T var, unsigned delta) const;
  template <class T> __device__ T shfl_down(T var, unsigned delta) const;
  template <class T> __device__ T shfl_xor(T var, unsigned lane_mask) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned ballot(int predicate) const;
};
// The active lanes at a call, and partitions by a value: reported (mappings.toml [untranslatable]).
struct coalesced_group {
  __device__ unsigned thread_rank() const; __device__ unsigned size() const; __device__ unsigned num_threads() const;
  __device__ void sync() const;
  template <class T> __device__ T shfl(T var, unsigned src_rank) const;
  template <class T> __device__ T shfl_down(T var, unsigned delta) const;
  __device__ unsigned ballot(int predicate) const;
  __device__ int any(int predicate) const; __device__ int all(int predicate) const;
};
// Thread block clusters (sm_90): reported at this_cluster() (mappings.toml [untranslatable]).
struct cluster_group {
  __device__ void sync() const;
  __device__ unsigned block_rank() const;
  __device__ unsigned num_blocks() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_blocks() const;
  template <class T> __device__ T* map_shared_rank(T* address, unsigned rank) const;
  __device__ unsigned query_shared_rank(const void* address) const;
};
__device__ cluster_group this_cluster();
__device__ coalesced_group coalesced_threads();
template <class Parent> __device__ coalesced_group labeled_partition(const Parent&, int label);
template <class Parent> __device__ coalesced_group binary_partition(const Parent&, bool predicate);
__device__ grid_group this_grid();
__device__ thread_block this_thread_block();
__device__ thread_block_tile<1> this_thread();
template <unsigned N, class Parent> __device__ thread_block_tile<N> tiled_partition(const Parent&);
__device__ thread_group tiled_partition(const thread_group& parent, unsigned tile_size);
template <class T> struct plus { __device__ T operator()(T, T) const; };
template <class T> struct less { __device__ T operator()(T, T) const; };
template <class T> struct greater { __device__ T operator()(T, T) const; };
// (defined, so that an operator of a type without linkage, a lambda, is no "used but not defined" error)
template <class Group, class T, class Op> __device__ T reduce(const Group&, T value, Op) { return value; }
// cg::invoke_one: fn(args...) called by one thread of a tile (and its value given to every thread)
template <class Group, class Fn, class... Args> __device__ void invoke_one(const Group&, Fn&& fn, Args&&... args) { fn(args...); }
template <class Group, class Fn, class... Args>
__device__ auto invoke_one_broadcast(const Group&, Fn&& fn, Args&&... args) -> decltype(fn(args...)) { return fn(args...); }
// cooperative_groups/scan.h: a tile's or a coalesced group's prefix scans, by default of cg::plus
template <class Group, class T> __device__ T inclusive_scan(const Group&, T value) { return value; }
template <class Group, class T, class Op> __device__ T inclusive_scan(const Group&, T value, Op) { return value; }
template <class Group, class T> __device__ T exclusive_scan(const Group&, T value) { return value; }
template <class Group, class T, class Op> __device__ T exclusive_scan(const Group&, T value, Op) { return value; }
// cooperative_groups/memcpy_async.h: a group's collective copy of `bytes` bytes and the waits for it
template <class Group, class T, class Size> __device__ void memcpy_async(const Group&, T* dst, const T* src, const Size& bytes);
template <class Group> __device__ void wait(const Group&);
template <class Group> __device__ void sync(const Group&);  // the group's sync()
template <unsigned Stages, class Group> __device__ void wait_prior(const Group&);
}  // namespace cooperative_groups
