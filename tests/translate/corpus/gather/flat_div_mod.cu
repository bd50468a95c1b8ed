// One thread per output element of a flattened index: row and column by integer division and
// modulo by the runtime row length, 64-bit grid-stride, an index bounds check against the table.
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

template <typename scalar_t, typename index_t>
__global__ void index_select_flat(const scalar_t* __restrict__ src, const index_t* __restrict__ index, scalar_t* __restrict__ dst,
                                  int64_t num_indices, int64_t src_rows, int64_t row_len) {
  const int64_t total = num_indices * row_len;
  for (int64_t linear = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; linear < total; linear += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = linear / row_len;
    const int64_t j = linear % row_len;
    const index_t src_row = index[i];
    dst[linear] = (src_row >= 0 && src_row < src_rows) ? src[src_row * row_len + j] : scalar_t(0);
  }
}

extern "C" void gather(const float* x, const int* idx, float* y, int64_t n, int64_t m, int64_t d, cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((m * d + threads - 1) / threads, 8);
  index_select_flat<float, int><<<blocks, threads, 0, stream>>>(x, idx, y, m, n, d);
}
