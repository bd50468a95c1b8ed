// Bins through float round trips: __int2float_rn of the value, __float2int_rn / __float2int_rz back, and
// __float_as_uint / __uint_as_float of the bits; global atomicAdd per element.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void histogram_bits(const int* __restrict__ x, int* __restrict__ counts, int n) {
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float f = __int2float_rn(__ldg(x + i)) + 0.25f;
    const unsigned bits = __float_as_uint(f);
    const float back = __uint_as_float(bits);
    const int near = __float2int_rn(back);
    const int down = __float2int_rz(back);
    atomicAdd(&counts[near == down ? down : near], 1);
  }
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemset(counts, 0, 64 * sizeof(int));
  histogram_bits<<<3, 192, 0, stream>>>(x, counts, (int)n);
}
