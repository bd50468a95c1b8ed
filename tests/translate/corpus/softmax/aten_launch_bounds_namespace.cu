// PyTorch/ATen style (without at::cuda): C10_LAUNCH_BOUNDS_1 and C10_WARP_SIZE macros, nested
// namespaces at::native with an anonymous one, a WARP_SHFL_DOWN template with default width and
// mask arguments, a blockReduce helper over static shared memory, accscalar_t templates,
// std::numeric_limits<float>::lowest() and ::infinity().
#include <cuda_runtime.h>
#include <stdint.h>

#include <limits>

#define C10_WARP_SIZE 32
#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= 0) ? 1024 : ((val) <= 1024 ? (val) : 1024))
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))

namespace at {
namespace native {

template <typename T>
__device__ __forceinline__ T WARP_SHFL_DOWN(T value, unsigned int delta, int width = warpSize, unsigned int mask = 0xffffffff) {
  return __shfl_down_sync(mask, value, delta, width);
}

namespace {

constexpr int kThreads = 128;

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a < b ? b : a; }
};

struct AddOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

// Every thread returns the block's value; `shared` holds one value per warp.
template <typename accscalar_t, class Op>
__device__ accscalar_t blockReduce(accscalar_t* shared, accscalar_t val, const Op& op, accscalar_t identity) {
  const int lane = threadIdx.x % C10_WARP_SIZE, wid = threadIdx.x / C10_WARP_SIZE;
  for (int offset = C10_WARP_SIZE / 2; offset > 0; offset >>= 1) val = op(val, WARP_SHFL_DOWN(val, offset));
  __syncthreads();  // the previous call's readers are done with `shared`
  if (lane == 0) shared[wid] = val;
  __syncthreads();
  val = threadIdx.x < blockDim.x / C10_WARP_SIZE ? shared[lane] : identity;
  if (wid == 0)
    for (int offset = C10_WARP_SIZE / 2; offset > 0; offset >>= 1) val = op(val, WARP_SHFL_DOWN(val, offset));
  if (threadIdx.x == 0) shared[0] = val;
  __syncthreads();
  return shared[0];
}

template <typename scalar_t, typename accscalar_t, typename outscalar_t>
C10_LAUNCH_BOUNDS_1(kThreads)
__global__ void cunn_SoftMaxForward(outscalar_t* output, const scalar_t* input, int classes) {
  __shared__ accscalar_t sdata[C10_WARP_SIZE];
  input += static_cast<int64_t>(blockIdx.x) * classes;
  output += static_cast<int64_t>(blockIdx.x) * classes;
  accscalar_t threadMax = std::numeric_limits<accscalar_t>::lowest();
  for (int i = threadIdx.x; i < classes; i += blockDim.x) threadMax = MaxOp()(threadMax, static_cast<accscalar_t>(input[i]));
  const accscalar_t max_k = blockReduce<accscalar_t>(sdata, threadMax, MaxOp(), -std::numeric_limits<accscalar_t>::infinity());
  accscalar_t threadExp = 0;
  for (int i = threadIdx.x; i < classes; i += blockDim.x) threadExp += std::exp(static_cast<accscalar_t>(input[i]) - max_k);
  const accscalar_t sumAll = blockReduce<accscalar_t>(sdata, threadExp, AddOp(), accscalar_t(0));
  const accscalar_t inv = accscalar_t(1) / sumAll;
  for (int i = threadIdx.x; i < classes; i += blockDim.x)
    output[i] = static_cast<outscalar_t>(std::exp(static_cast<accscalar_t>(input[i]) - max_k) * inv);
}

}  // namespace
}  // namespace native
}  // namespace at

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  using namespace at::native;
  cunn_SoftMaxForward<float, float, float><<<rows, kThreads, 0, stream>>>(y, x, (int)cols);
}
