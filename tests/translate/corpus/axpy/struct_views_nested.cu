// Kernel arguments as views: a 1-D view (pointer and length) held twice by a parameter block, itself held by the
// launch's argument struct; a __device__ helper reading a view by reference; the argument built field by field.
#include <cuda_runtime.h>
#include <stdint.h>

struct ConstView {
  const float* ptr;
  int64_t len;
};

struct AxpyInputs {
  ConstView x;
  ConstView w;
};

struct LaunchArgs {
  AxpyInputs in;
  float* out;
  float alpha;
};

__device__ __forceinline__ float at(const ConstView& v, int64_t i) { return i < v.len ? v.ptr[i] : 0.0f; }

__global__ void axpy_views(LaunchArgs args) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < args.in.x.len) args.out[i] = args.alpha * at(args.in.x, i) + at(args.in.w, i);
}

extern "C" void axpy(const float* x, const float* w, float* y, int n, float alpha, cudaStream_t stream) {
  LaunchArgs args;
  args.in = AxpyInputs{{x, n}, {.ptr = w, .len = n}};
  args.out = y;
  args.alpha = alpha;
  const int threads = 256;
  axpy_views<<<(n + threads - 1) / threads, threads, 0, stream>>>(args);
}
