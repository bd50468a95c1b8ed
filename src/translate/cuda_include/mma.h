// nvcuda::wmma (CUDA's warp matrix API) as ksearch's translator sees it: declarations only. The port maps the
// fragments and the four sync functions to ks_wmma (metal_helpers.metal), whose fragments hold the same elements
// per lane in 8x8 SIMD-group matrix tiles.
#pragma once
#include "ksearch_cuda.h"

namespace nvcuda {
namespace wmma {
struct matrix_a;
struct matrix_b;
struct accumulator;
struct row_major;
struct col_major;
namespace precision {
struct tf32;
}
enum layout_t { mem_row_major, mem_col_major };
template <typename T> struct ks_storage { typedef T type; };
template <> struct ks_storage<precision::tf32> { typedef float type; };
template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
 public:
  typedef T element_type;
  typedef typename ks_storage<T>::type storage_element_type;
  static constexpr int num_elements = 8;
  storage_element_type x[num_elements];
};
template <typename F, typename V> __device__ void fill_fragment(F& a, const V& v);
template <typename F, typename P> __device__ void load_matrix_sync(F& a, const P* p, unsigned ldm);
template <typename F, typename P> __device__ void load_matrix_sync(F& a, const P* p, unsigned ldm, layout_t layout);
template <typename P, typename F> __device__ void store_matrix_sync(P* p, const F& a, unsigned ldm, layout_t layout);
template <typename D, typename A, typename B, typename C> __device__ void mma_sync(D& d, const A& a, const B& b, const C& c, bool satf = false);
__device__ float __float_to_tf32(float);
}  // namespace wmma
}  // namespace nvcuda
