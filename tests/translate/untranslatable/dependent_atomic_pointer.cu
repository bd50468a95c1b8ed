// Untranslatable: an atomicAdd whose pointer's type depends on the kernel's template parameter (line 13).
#include <cuda_runtime.h>
#include <stdint.h>
template <typename T> struct View {
  T* ptr;
  __host__ __device__ T& operator()(int64_t i) const { return ptr[i]; }
};
struct Counts { View<const int32_t> values; View<int32_t> bins; };
template <typename F>
__global__ void k_dependent_atomic(const F f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&f.bins(f.values(i)), 1);
}
