// An optimizer-update style kernel (llm.c's adamw_kernel3 layout): a lerp helper, a grid-stride loop over
// size_t, and the scalars passed one by one; computes y = alpha * x + w as lerp_(w, w + x, alpha).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float lerp_(float start, float end, float weight) {
  return fma(weight, end, fma(-weight, start, start));
}

__global__ void update_kernel(float* __restrict__ out, const float* __restrict__ params, const float* __restrict__ grads,
                              size_t num_parameters, float learning_rate) {
  for (size_t idx = blockIdx.x * blockDim.x + threadIdx.x; idx < num_parameters; idx += (size_t)blockDim.x * gridDim.x) {
    const float grad = grads[idx];
    const float param = params[idx];
    out[idx] = lerp_(param, param + grad, learning_rate);
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int block_size = 512;
  const int num_blocks = (int)((n + block_size - 1) / block_size);
  update_kernel<<<num_blocks, block_size, 0, stream>>>(y, w, x, (size_t)n, alpha);
}
