// cuda_fp16.h's __half_raw: the sum's bits stored in a raw-bits struct (its `x`) and converted back to __half by
// __half's constructor, as code that packs or hashes halves does.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k(const __half* x, const __half* w, __half* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half_raw r;
  r.x = __half_as_ushort(__float2half(alpha * __half2float(x[i]) + __half2float(w[i])));
  y[i] = __half(r);
}
extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  k<<<(unsigned)((n + 127) / 128), 128, 0, stream>>>(x, w, y, (int)n, alpha);
}
