// Embedding gather with the vector width as a template (4, 2 or 1 floats, chosen by the row length's
// divisibility in an else-if chain): the vector type from a trait with explicit specializations
// (VecType<4>::type = float4), int64_t indices from __ldg, a 2-D block (threadIdx.y rows).
#include <cuda_runtime.h>
#include <stdint.h>

template <int VEC> struct VecType;
template <> struct VecType<1> { using type = float; };
template <> struct VecType<2> { using type = float2; };
template <> struct VecType<4> { using type = float4; };

template <int VEC>
__global__ void gather_rows(const float* __restrict__ table, const int* __restrict__ idx, float* __restrict__ out,
                            int m, int d) {
  using vec_t = typename VecType<VEC>::type;
  const int i = blockIdx.x * blockDim.y + threadIdx.y;
  if (i >= m) return;
  const int64_t src = static_cast<int64_t>(__ldg(idx + i));
  const vec_t* s = reinterpret_cast<const vec_t*>(table + src * d);
  vec_t* o = reinterpret_cast<vec_t*>(out + static_cast<int64_t>(i) * d);
  for (int c = threadIdx.x; c < d / VEC; c += blockDim.x) o[c] = s[c];
}

extern "C" void gather(const float* x, const int* idx, float* y, int64_t n, int64_t m, int64_t d,
                       cudaStream_t stream) {
  const dim3 block(32, 4);
  const dim3 grid((unsigned)((m + 3) / 4));
  if (d % 4 == 0)
    gather_rows<4><<<grid, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
  else if (d % 2 == 0)
    gather_rows<2><<<grid, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
  else
    gather_rows<1><<<grid, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
}
