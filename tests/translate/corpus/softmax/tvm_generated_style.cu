// TVM's CUDA codegen style: type macros, one-element local arrays as registers, ((int)threadIdx.x) casts, max() on
// floats, __activemask() masks and width-32 shuffles, a __launch_bounds__ before the name, and every pointer parameter
// without const: the input is given as const_cast<float*>(x), and bound as the read-only input it is.
#include <cuda_runtime.h>
#include <stdint.h>
#if (((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 4)) || (__CUDACC_VER_MAJOR__ > 11))
#define TVM_ENABLE_L2_PREFETCH 1
#else
#define TVM_ENABLE_L2_PREFETCH 0
#endif
#ifdef _WIN32
  using uint = unsigned int;
  using uchar = unsigned char;
#else
  #define uint unsigned int
  #define uchar unsigned char
#endif

extern "C" __global__ void __launch_bounds__(32) default_function_kernel(float* __restrict__ T_softmax_norm, float* __restrict__ data, int n) {
  float normal_reduce_temp0[1];
  float red_buf0[1];
  uint mask[1];
  float t0[1];
  float normal_reduce_temp0_1[1];
  float red_buf0_1[1];
  uint mask_1[1];
  float t0_1[1];
  __shared__ float T_softmax_maxelem_shared[1];
  __shared__ float T_softmax_expsum_shared[1];
  normal_reduce_temp0[0] = -3.402823e+38f;
  for (int k_outer = 0; k_outer < ((n + 31) >> 5); ++k_outer) {
    if (((k_outer * 32) + ((int)threadIdx.x)) < n) {
      normal_reduce_temp0[0] = max(normal_reduce_temp0[0], data[(((((int)blockIdx.x) * n) + (k_outer * 32)) + ((int)threadIdx.x))]);
    }
  }
  red_buf0[0] = normal_reduce_temp0[0];
  mask[0] = __activemask();
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 16, 32);
  red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 8, 32);
  red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 4, 32);
  red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 2, 32);
  red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 1, 32);
  red_buf0[0] = max(red_buf0[0], t0[0]);
  red_buf0[0] = __shfl_sync(mask[0], red_buf0[0], 0, 32);
  if (((int)threadIdx.x) == 0) {
    T_softmax_maxelem_shared[0] = red_buf0[0];
  }
  __syncthreads();
  normal_reduce_temp0_1[0] = 0.000000e+00f;
  for (int k_outer_1 = 0; k_outer_1 < ((n + 31) >> 5); ++k_outer_1) {
    if (((k_outer_1 * 32) + ((int)threadIdx.x)) < n) {
      normal_reduce_temp0_1[0] = (normal_reduce_temp0_1[0] + __expf((data[(((((int)blockIdx.x) * n) + (k_outer_1 * 32)) + ((int)threadIdx.x))] - T_softmax_maxelem_shared[0])));
    }
  }
  red_buf0_1[0] = normal_reduce_temp0_1[0];
  mask_1[0] = __activemask();
  t0_1[0] = __shfl_down_sync(mask_1[0], red_buf0_1[0], 16, 32);
  red_buf0_1[0] = (red_buf0_1[0] + t0_1[0]);
  t0_1[0] = __shfl_down_sync(mask_1[0], red_buf0_1[0], 8, 32);
  red_buf0_1[0] = (red_buf0_1[0] + t0_1[0]);
  t0_1[0] = __shfl_down_sync(mask_1[0], red_buf0_1[0], 4, 32);
  red_buf0_1[0] = (red_buf0_1[0] + t0_1[0]);
  t0_1[0] = __shfl_down_sync(mask_1[0], red_buf0_1[0], 2, 32);
  red_buf0_1[0] = (red_buf0_1[0] + t0_1[0]);
  t0_1[0] = __shfl_down_sync(mask_1[0], red_buf0_1[0], 1, 32);
  red_buf0_1[0] = (red_buf0_1[0] + t0_1[0]);
  red_buf0_1[0] = __shfl_sync(mask_1[0], red_buf0_1[0], 0, 32);
  if (((int)threadIdx.x) == 0) {
    T_softmax_expsum_shared[0] = red_buf0_1[0];
  }
  __syncthreads();
  for (int i1_outer = 0; i1_outer < ((n + 31) >> 5); ++i1_outer) {
    if (((i1_outer * 32) + ((int)threadIdx.x)) < n) {
      T_softmax_norm[(((((int)blockIdx.x) * n) + (i1_outer * 32)) + ((int)threadIdx.x))] = (__expf((data[(((((int)blockIdx.x) * n) + (i1_outer * 32)) + ((int)threadIdx.x))] - T_softmax_maxelem_shared[0])) / T_softmax_expsum_shared[0]);
    }
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  default_function_kernel<<<dim3((unsigned)rows), dim3(32), 0, stream>>>(y, const_cast<float*>(x), (int)cols);
}
