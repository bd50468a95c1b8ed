// Untranslatable: two __device__ overloads that differ only in what their pointer parameter points to (the second at
// line 7), both called: once each pointer's type is a template parameter (the caller's address space), the calls
// would be ambiguous. Reported at the later overload.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float4 load(const float4* p, int64_t i) { return p[i]; }

__global__ void rowsum_k(const float* x, float* y, int64_t cols) {
  const float* row = x + int64_t(blockIdx.x) * cols;
  float s = 0.f;
  int64_t c = 0;
  if (cols % 4 == 0)
    for (; c < cols; c += 4) {
      const float4 v = load(reinterpret_cast<const float4*>(row + c), 0);
      s += v.x + v.y + v.z + v.w;
    }
  for (; c < cols; ++c) s += load(row, c);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_k<<<rows, 32, 0, stream>>>(x, y, cols);
}
