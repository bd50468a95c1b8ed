// ATen-style exact GELU: an opmath type trait with an explicit specialization read through an alias
// template (opmath_t), M_SQRT1_2 from <math.h> as the constant (as ATen's GeluCUDAKernelImpl writes kAlpha),
// a templated functor.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<__half> { using type = float; };
template <typename T> using opmath_t = typename OpMathType<T>::type;

template <typename scalar_t>
struct GeluErfFunctor {
  __device__ __forceinline__ scalar_t operator()(scalar_t x) const {
    using acc_t = opmath_t<scalar_t>;
    constexpr acc_t kAlpha = M_SQRT1_2;
    return static_cast<scalar_t>(static_cast<acc_t>(x) * acc_t(0.5) *
                                 (acc_t(1) + ::erf(static_cast<acc_t>(x) * kAlpha)));
  }
};

template <typename scalar_t, typename func_t>
__global__ void unary_kernel(int64_t N, const scalar_t* __restrict__ in, scalar_t* __restrict__ out, func_t f) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) out[i] = f(in[i]);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  unary_kernel<float><<<blocks, kThreads, 0, stream>>>(n, x, y, GeluErfFunctor<float>());
}
