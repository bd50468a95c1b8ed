// ATen-like ReduceConfig passed by value: __host__ __device__ methods computing the per-thread input
// index and step from threadIdx/blockDim, a C10_HOST_DEVICE macro, a block reduction with fmaxf over a
// static shared array, a union reading the abs through the sign bit.
#include <cuda_runtime.h>
#include <stdint.h>

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__

struct ReduceConfig {
  int num_outputs;
  int num_inputs;
  int block_width;
  C10_HOST_DEVICE int step_input() const { return block_width; }
  C10_DEVICE int input_idx() const { return threadIdx.x; }
  C10_DEVICE int output_idx() const { return blockIdx.x; }
  C10_DEVICE bool should_store() const { return threadIdx.x == 0 && output_idx() < num_outputs; }
  C10_HOST_DEVICE dim3 grid() const { return dim3(num_outputs); }
  C10_HOST_DEVICE dim3 block() const { return dim3(block_width); }
};

union FloatBits {
  float f;
  uint32_t u;
};

C10_DEVICE __forceinline__ float abs_bits(float v) {
  FloatBits b;
  b.f = v;
  b.u &= 0x7fffffffu;
  return b.f;
}

__global__ void reduce_absmax(const float* __restrict__ x, float* __restrict__ y, const ReduceConfig config) {
  __shared__ float smem[32];
  const float* row = x + (size_t)config.output_idx() * config.num_inputs;
  float m = 0.f;
  for (int i = config.input_idx(); i < config.num_inputs; i += config.step_input()) m = fmaxf(m, abs_bits(row[i]));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < (blockDim.x >> 5) ? smem[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, o));
  }
  if (config.should_store()) y[config.output_idx()] = m;
}

extern "C" void absmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  ReduceConfig config;
  config.num_outputs = (int)rows;
  config.num_inputs = (int)cols;
  config.block_width = 128;
  reduce_absmax<<<config.num_outputs, config.block_width, 0, stream>>>(x, y, config);
}
