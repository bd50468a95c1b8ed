// vLLM's rms_norm_kernel (csrc/layernorm_kernels.cu, 2025 style): the sum of squares through
// vectorize_read_with_alignment<VEC_SIZE>(ptr, len, tid, stride, vec_op, scalar_op), which takes a
// vector fast path when the row's address and length allow and otherwise a scalar prefix up to the
// next aligned address, vectors, then a scalar tail; lambdas capturing the accumulator by reference,
// cub::BlockReduce<float, 1024> reduced with Reduce(v, CubAddOp{}, blockDim.x) under a smaller block,
// a __shared__ s_variance, the launch inside a VLLM_DISPATCH_FLOATING_TYPES-like macro over a lambda.
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <stdint.h>
#include <algorithm>

// vLLM's cub_helpers.h: CCCL 3 removed cub::Sum
using CubAddOp = cuda::std::plus<>;

namespace vllm {

template <typename T, int N>
struct alignas(sizeof(T) * N) vec_n_t {
  T val[N];
};

template <int VEC_SIZE, typename InT, typename VecOp, typename ScaOp>
__device__ inline void vectorize_read_with_alignment(const InT* in, int len, int tid, int stride, VecOp&& vec_op,
                                                     ScaOp&& scalar_op) {
  static_assert(VEC_SIZE > 0 && (VEC_SIZE & (VEC_SIZE - 1)) == 0, "VEC_SIZE must be a positive power-of-two");
  constexpr int WIDTH = VEC_SIZE * sizeof(InT);
  uintptr_t addr = reinterpret_cast<uintptr_t>(in);

  // fast path when the whole region is already aligned
  bool can_vec = ((addr & (WIDTH - 1)) == 0) && ((len & (VEC_SIZE - 1)) == 0);
  if (can_vec) {
    int num_vec = len / VEC_SIZE;
    using vin_t = vec_n_t<InT, VEC_SIZE>;
    auto* v_in = reinterpret_cast<const vin_t*>(in);
    for (int i = tid; i < num_vec; i += stride) {
      vin_t tmp = v_in[i];
      vec_op(tmp);
    }
    return;
  }

  int misalignment_offsets = addr & (WIDTH - 1);
  int alignment_bytes = WIDTH - misalignment_offsets;
  int prefix_elems = alignment_bytes & (WIDTH - 1);
  prefix_elems /= sizeof(InT);
  prefix_elems = min(prefix_elems, len);

  // 1. handle the possibly unaligned prefix with scalar access
  for (int i = tid; i < prefix_elems; i += stride) scalar_op(in[i]);

  in += prefix_elems;
  len -= prefix_elems;

  int num_vec = len / VEC_SIZE;
  using vin_t = vec_n_t<InT, VEC_SIZE>;
  auto* v_in = reinterpret_cast<const vin_t*>(in);

  // 2. vectorized traversal of the main aligned region
  for (int i = tid; i < num_vec; i += stride) {
    vin_t tmp = v_in[i];
    vec_op(tmp);
  }

  // 3. handle the tail
  int tail_start = num_vec * VEC_SIZE;
  for (int i = tid + tail_start; i < len; i += stride) scalar_op(in[i]);
}

template <typename scalar_t>
__global__ void rms_norm_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
                                const int64_t input_stride, const scalar_t* __restrict__ weight,
                                const float epsilon, const int num_tokens, const int hidden_size) {
  __shared__ float s_variance;
  float variance = 0.0f;
  const scalar_t* input_row = input + blockIdx.x * input_stride;

  constexpr int VEC_SIZE = 8;
  auto vec_op = [&variance](const vec_n_t<scalar_t, VEC_SIZE>& vec) {
#pragma unroll
    for (int i = 0; i < VEC_SIZE; ++i) {
      float x = static_cast<float>(vec.val[i]);
      variance += x * x;
    }
  };
  auto scalar_op = [&variance](const scalar_t& val) {
    float x = static_cast<float>(val);
    variance += x * x;
  };
  vectorize_read_with_alignment<VEC_SIZE>(input_row, hidden_size, threadIdx.x, blockDim.x, vec_op, scalar_op);

  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage reduceStore;
  variance = BlockReduce(reduceStore).Reduce(variance, CubAddOp{}, blockDim.x);

  if (threadIdx.x == 0) s_variance = rsqrtf(variance / hidden_size + epsilon);
  __syncthreads();

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    float x = (float)input[blockIdx.x * input_stride + idx];
    out[blockIdx.x * hidden_size + idx] = ((scalar_t)(x * s_variance)) * weight[idx];
  }
}

}  // namespace vllm

enum class ScalarType { Float, Half, BFloat16 };

#define VLLM_DISPATCH_CASE(ENUM, TYPE, ...) \
  case ENUM: {                              \
    using scalar_t = TYPE;                  \
    __VA_ARGS__();                          \
    break;                                  \
  }
#define VLLM_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)               \
  switch (TYPE) {                                                   \
    VLLM_DISPATCH_CASE(ScalarType::Float, float, __VA_ARGS__)       \
    default:                                                        \
      break;                                                        \
  }

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  const int hidden_size = (int)cols;
  const int num_tokens = (int)rows;
  const int64_t input_stride = cols;
  dim3 grid(num_tokens);
  dim3 block(std::min(hidden_size, 1024));
  const ScalarType dtype = ScalarType::Float;
  VLLM_DISPATCH_FLOATING_TYPES(dtype, "rms_norm_kernel", [&] {
    vllm::rms_norm_kernel<scalar_t><<<grid, block, 0, stream>>>(y, x, input_stride, weight, eps, num_tokens,
                                                                hidden_size);
  });
}
