// Kernel arguments gathered in a struct with a default member initializer, brace-initialized at the
// launch (a temporary), and a second struct nested in it; grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

struct Tensor1d {
  const float* data;
  int64_t size;
};

struct AxpyArgs {
  Tensor1d x;
  const float* w;
  float* y;
  float alpha;
  int vec = 1;  // elements per step
};

__global__ void axpy_struct(AxpyArgs args) {
  const int64_t stride = (int64_t)blockDim.x * gridDim.x * args.vec;
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * args.vec; i < args.x.size; i += stride)
    args.y[i] = args.alpha * args.x.data[i] + args.w[i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 128;
  const int blocks = (int)((n + threads - 1) / threads);
  axpy_struct<<<blocks, threads, 0, stream>>>(AxpyArgs{{x, n}, w, y, alpha});
}
