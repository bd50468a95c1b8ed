// LeetCUDA's elementwise style: every pointer without const (the inputs given through C casts), float4 through macros
// taking an element's address, `reinterpret_cast<float4*>(&(v))[0]` and `*((float4*)(&(v)))`: loads from the inputs
// (read-only in Metal: ks_ro_cast, which keeps an input's constant memory) and a store to the output, a scalar tail.
#include <cuda_runtime.h>
#include <stdint.h>
#define FLOAT4(value) (reinterpret_cast<float4*>(&(value))[0])
#define LDST128BITS(value) (*((float4*)(&(value))))

__global__ void axpy_f32x4_kernel(float* x, float* w, float* y, float alpha, int N) {
  int idx = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (idx + 3 < N) {
    float4 reg_x = FLOAT4(x[idx]);
    float4 reg_w = LDST128BITS(w[idx]);
    float4 reg_y;
    reg_y.x = alpha * reg_x.x + reg_w.x;
    reg_y.y = alpha * reg_x.y + reg_w.y;
    reg_y.z = alpha * reg_x.z + reg_w.z;
    reg_y.w = alpha * reg_x.w + reg_w.w;
    FLOAT4(y[idx]) = reg_y;
  } else {
    for (int i = idx; i < N; ++i) y[i] = alpha * x[i] + w[i];
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 256 / 4;
  const int blocks = (int)((n + 255) / 256);
  axpy_f32x4_kernel<<<blocks, threads, 0, stream>>>((float*)x, (float*)w, y, alpha, (int)n);
}
