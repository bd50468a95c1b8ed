// softmax in the style of PyTorch's cunn_SoftMaxForward (aten/src/ATen/native/cuda/SoftMax.cu): ilpReduce over a row with an
// alignment shift computed from the pointer (`((uint64_t)input) % ALIGN_BYTES / sizeof(scalar_t)`),
// aligned_vector<T, ILP> loads through a register array reinterpreted as the vector, reduction functors
// MaxFloat / SumExpFloat as template <typename, typename> class parameters, blockReduce over
// template <typename> class Max / Add with `extern __shared__ unsigned char smem[]` reinterpreted as
// accscalar_t, the __syncwarp(mask) of the first warp, and a SoftMaxForwardEpilogue functor written by
// WriteFpropResultsVectorized (template template parameter with three types).
#include <cuda_runtime.h>
#include <stdint.h>
#include <float.h>
#include <cmath>

#define C10_WARP_SIZE 32
constexpr int ALIGN_BYTES = 16;

template <typename scalar_t, int vec_size>
struct alignas(sizeof(scalar_t) * vec_size) aligned_vector {
  scalar_t val[vec_size];
};

template <typename T, typename AccumT>
struct MaxFloat {
  __device__ __forceinline__ AccumT operator()(AccumT max, T v) const { return ::max(max, (AccumT)v); }
};

template <typename T>
struct Max {
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};

template <typename T>
struct Add {
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

template <typename T, typename AccumT>
struct SumExpFloat {
  __device__ __forceinline__ SumExpFloat(AccumT v) : max_k(v) {}
  __device__ __forceinline__ AccumT operator()(AccumT sum, T v) const { return sum + std::exp(v - max_k); }
  const AccumT max_k;
};

template <typename T, typename AccumT, typename OutT>
struct SoftMaxForwardEpilogue {
  __device__ __forceinline__ SoftMaxForwardEpilogue(AccumT max_input, AccumT sum) : max_input(max_input), sum(sum) {}
  __device__ __forceinline__ OutT operator()(T input) const {
    return static_cast<OutT>(std::exp(input - max_input) / sum);
  }
  const AccumT max_input;
  const AccumT sum;
};

template <template <typename> class Reduction, typename AccumT>
__device__ __forceinline__ AccumT blockReduce(AccumT* smem, AccumT val, const Reduction<AccumT>& r, AccumT defaultVal) {
  // To avoid RaW races from chaining blockReduce calls together, we need a sync here
  __syncthreads();
  smem[threadIdx.x] = val;
  __syncthreads();

  AccumT warpVal = defaultVal;

  // First warp will perform per-warp reductions for the remaining warps
  uint32_t mask = (((uint64_t)1) << (blockDim.x / C10_WARP_SIZE)) - 1;
  if (threadIdx.x < C10_WARP_SIZE) {
    int lane = threadIdx.x % C10_WARP_SIZE;
    if (lane < blockDim.x / C10_WARP_SIZE) {
#pragma unroll
      for (int i = 0; i < C10_WARP_SIZE; ++i) warpVal = r(warpVal, smem[lane * C10_WARP_SIZE + i]);
      __syncwarp(mask);
      smem[lane] = warpVal;
    }
  }

  __syncthreads();

  // First thread will perform a reduction of the above per-warp reductions
  AccumT blockVal = defaultVal;

  if (threadIdx.x == 0) {
    for (int i = 0; i < blockDim.x / C10_WARP_SIZE; ++i) blockVal = r(blockVal, smem[i]);
    smem[0] = blockVal;
  }

  // Sync and broadcast
  __syncthreads();
  return smem[0];
}

template <template <typename, typename> class Reduction, int ILP, typename T, typename AccumT, typename index_t = int>
__device__ __forceinline__ AccumT ilpReduce(index_t shift, const T* data, index_t size, const Reduction<T, AccumT>& r,
                                            AccumT defaultVal) {
  using LoadT = aligned_vector<T, ILP>;
  AccumT threadVal = defaultVal;
  index_t offset = threadIdx.x;

  // shift and do 1
  if (shift > 0) {
    data -= shift;
    size += shift;
    if (threadIdx.x >= shift && threadIdx.x < size) threadVal = r(threadVal, data[offset]);
    size -= blockDim.x;
    data += blockDim.x;
  }
  index_t last = size % (ILP * (index_t)blockDim.x);  // signed: size may be negative after the shift

  T v[ILP];
  LoadT* value = reinterpret_cast<LoadT*>(&v);

  for (; offset * ILP < (size - last); offset += blockDim.x) {
    *value = reinterpret_cast<const LoadT*>(data)[offset];
#pragma unroll
    for (int j = 0; j < ILP; ++j) threadVal = r(threadVal, v[j]);
  }

  offset = size - last + threadIdx.x;
  // Epilogue
  for (; offset < size; offset += blockDim.x) threadVal = r(threadVal, data[offset]);

  return threadVal;
}

template <int ILP, typename scalar_t, typename accum_t, typename outscalar_t,
          template <typename, typename, typename> class Epilogue, typename index_t = int>
__device__ __forceinline__ void WriteFpropResultsVectorized(index_t size, const index_t shift, const scalar_t* input,
                                                            outscalar_t* output,
                                                            Epilogue<scalar_t, accum_t, outscalar_t> epilogue) {
  using LoadT = aligned_vector<scalar_t, ILP>;
  using StoreT = aligned_vector<outscalar_t, ILP>;

  index_t offset = threadIdx.x;

  // if unaligned, do one value / thread and move on, guaranteeing alignment after
  if (shift > 0) {
    input -= shift;
    output -= shift;
    size += shift;

    if (threadIdx.x >= shift && threadIdx.x < size) output[offset] = epilogue(input[offset]);
    size -= blockDim.x;
    input += blockDim.x;
    output += blockDim.x;
  }

  const index_t last = size % (ILP * (index_t)blockDim.x);  // signed: size may be negative after the shift

  scalar_t in_v[ILP];
  LoadT* in_value = reinterpret_cast<LoadT*>(&in_v);

  outscalar_t out_v[ILP];
  StoreT* out_value = reinterpret_cast<StoreT*>(&out_v);

  for (; offset * ILP < (size - last); offset += blockDim.x) {
    *in_value = reinterpret_cast<const LoadT*>(input)[offset];

#pragma unroll
    for (int j = 0; j < ILP; ++j) out_v[j] = epilogue(in_v[j]);

    reinterpret_cast<StoreT*>(output)[offset] = *out_value;
  }

  offset = size - last + threadIdx.x;
  // handle the tail
  for (; offset < size; offset += blockDim.x) output[offset] = epilogue(input[offset]);
}

template <int ILP, typename scalar_t, typename accscalar_t, typename outscalar_t,
          template <typename, typename, typename> class Epilogue>
__global__ void cunn_SoftMaxForward(outscalar_t* output, const scalar_t* input, int classes) {
  extern __shared__ unsigned char smem[];
  auto sdata = reinterpret_cast<accscalar_t*>(smem);

  // each block handles a sample in the mini-batch
  input += static_cast<int64_t>(blockIdx.x) * classes;
  output += static_cast<int64_t>(blockIdx.x) * classes;

  const int shift = ((uint64_t)input) % ALIGN_BYTES / sizeof(scalar_t);

  // find the max
  accscalar_t threadMax = ilpReduce<MaxFloat, ILP, scalar_t, accscalar_t>(
      shift, input, classes, MaxFloat<scalar_t, accscalar_t>(), -FLT_MAX);
  accscalar_t max_k = blockReduce<Max, accscalar_t>(sdata, threadMax, Max<accscalar_t>(), -FLT_MAX);

  // reduce all values
  accscalar_t threadExp = ilpReduce<SumExpFloat, ILP, scalar_t, accscalar_t>(
      shift, input, classes, SumExpFloat<scalar_t, accscalar_t>(max_k), static_cast<accscalar_t>(0));
  accscalar_t sumAll = blockReduce<Add, accscalar_t>(sdata, threadExp, Add<accscalar_t>(), static_cast<accscalar_t>(0));

  Epilogue<scalar_t, accscalar_t, outscalar_t> epilogue(max_k, sumAll);
  WriteFpropResultsVectorized<ILP, scalar_t, accscalar_t, outscalar_t, Epilogue>(classes, shift, input, output, epilogue);
}

static inline dim3 SoftMax_getBlockSize(int ILP, uint64_t dim_size) {
  uint64_t block_size = 1;
  uint64_t max_block_size = std::min(dim_size / ILP, static_cast<uint64_t>(1024));
  // the reduction needs whole warps
  max_block_size = std::max(max_block_size, static_cast<uint64_t>(C10_WARP_SIZE));
  while (block_size < max_block_size) block_size *= 2;
  // Launch at least a single warp - the kernel assumes that.
  block_size = std::max(block_size, static_cast<uint64_t>(C10_WARP_SIZE));
  return dim3(block_size);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int ILP = sizeof(float4) / sizeof(float);
  const dim3 grid((unsigned)rows);
  const dim3 block = SoftMax_getBlockSize(ILP, (uint64_t)cols);
  const size_t smem_reduction_sz = block.x * sizeof(float);
  cunn_SoftMaxForward<ILP, float, float, float, SoftMaxForwardEpilogue>
      <<<grid, block, smem_reduction_sz, stream>>>(y, x, (int)cols);
}
