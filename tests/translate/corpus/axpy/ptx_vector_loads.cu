// An axpy through hand-written PTX loads and stores: ld.global.nc.L1::no_allocate.v4.f32 of x's float4s,
// ld.global.nc.v4.b32 of w's (moving the bits into floats), st.global.cs.v4.f32 of y's; the tail by scalar
// ld.global.nc.f32 and st.global.f32, one of them at a byte offset ([%1+4]).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float4 load_streaming(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ float4 load_bits(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.v4.b32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void store_streaming(float4* p, float4 v) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

__global__ void axpy_ptx(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int vectors = n / 4;
  if (i < vectors) {
    const float4 a = load_streaming(reinterpret_cast<const float4*>(x) + i);
    const float4 b = load_bits(reinterpret_cast<const float4*>(w) + i);
    store_streaming(reinterpret_cast<float4*>(y) + i,
                    make_float4(alpha * a.x + b.x, alpha * a.y + b.y, alpha * a.z + b.z, alpha * a.w + b.w));
  }
  const int t = 4 * vectors + i;
  if (i < n % 4) {
    float a, b;
    // x[t] read as the float after x[t - 1] (a byte offset), w[t] directly
    asm("ld.global.nc.f32 %0, [%1+4];" : "=f"(a) : "l"(x + t - 1));
    asm("ld.global.nc.f32 %0, [%1];" : "=f"(b) : "l"(w + t));
    asm volatile("st.global.f32 [%0], %1;" ::"l"(y + t), "f"(alpha * a + b) : "memory");
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 128, blocks = (int)((n / 4 + threads) / threads);
  axpy_ptx<<<blocks, threads, 0, stream>>>(x, w, y, (int)n, alpha);
}
