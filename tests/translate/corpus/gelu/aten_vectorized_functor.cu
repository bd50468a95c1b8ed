// ATen's vectorized elementwise kernel: an aligned_vector<scalar_t, vec_size> struct with alignas,
// loads and stores of whole vectors through reinterpret_cast, a GeluFunctor with operator(),
// `template <int vec_size, typename func_t>`, a num_threads() constexpr function in the launch,
// the remainder handled by an unrolled scalar loop.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int num_threads() { return 64; }
constexpr int thread_work_size() { return 4; }

template <typename scalar_t, int vec_size>
struct alignas(sizeof(scalar_t) * vec_size) aligned_vector {
  scalar_t val[vec_size];
};

struct GeluFunctor {
  __device__ __forceinline__ float operator()(float x) const {
    constexpr float kAlpha = 0.70710678118654752440f;
    return x * 0.5f * (1.0f + ::erff(x * kAlpha));
  }
};

template <int vec_size, typename func_t>
__global__ void vectorized_elementwise_kernel(int N, func_t f, const float* __restrict__ in, float* __restrict__ out) {
  using vec_t = aligned_vector<float, vec_size>;
  const int block_work = vec_size * num_threads();
  const int base = block_work * blockIdx.x;
  const int remaining = N - base;
  if (remaining < block_work) {
#pragma unroll
    for (int i = 0; i < vec_size; ++i) {
      const int idx = base + threadIdx.x + i * num_threads();
      if (idx < N) out[idx] = f(in[idx]);
    }
    return;
  }
  const vec_t* in_vec = reinterpret_cast<const vec_t*>(in + base);
  vec_t* out_vec = reinterpret_cast<vec_t*>(out + base);
  vec_t v = in_vec[threadIdx.x];
#pragma unroll
  for (int i = 0; i < vec_size; ++i) v.val[i] = f(v.val[i]);
  out_vec[threadIdx.x] = v;
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  constexpr int vec_size = thread_work_size();
  const int64_t grid = (n + vec_size * num_threads() - 1) / (vec_size * num_threads());
  vectorized_elementwise_kernel<vec_size><<<grid, num_threads(), 0, stream>>>((int)n, GeluFunctor(), x, y);
}
