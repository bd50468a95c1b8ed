// cuda::std::pair in device code: a warp's argmax over (value, lane) pairs compared with `<` as std::pair is, built by
// two values, a brace list and make_pair, unpacked by a structured binding and by .first/.second; each lane keeps its
// register top 4 sorted and gives up its head when it wins.
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <cuda_runtime.h>
#include <stdint.h>

// the larger value, then the lower lane: (value, -lane) pairs compared lexicographically
__device__ cuda::std::pair<float, int> warp_argmax(float v, int lane) {
  cuda::std::pair<float, int> best(v, -lane);
  for (int offset = 16; offset > 0; offset >>= 1) {
    const cuda::std::pair<float, int> other =
        cuda::std::make_pair(__shfl_xor_sync(0xffffffffu, best.first, offset), __shfl_xor_sync(0xffffffffu, best.second, offset));
    if (best < other) best = other;
  }
  return {best.first, -best.second};
}

__global__ void topk_pairs(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  const int lane = threadIdx.x;
  const float lowest = -cuda::std::numeric_limits<float>::infinity();
  float top[4] = {lowest, lowest, lowest, lowest};
  for (int c = lane; c < cols; c += 32) {
    float v = row[c];
    for (int i = 0; i < 4; ++i)
      if (v > top[i]) {
        const float t = top[i];
        top[i] = v;
        v = t;
      }
  }
  int head = 0;
  for (int k = 0; k < 4; ++k) {
    auto [best, who] = warp_argmax(head < 4 ? top[head] : lowest, lane);
    if (lane == who) ++head;
    if (lane == 0) y[(int64_t)blockIdx.x * 4 + k] = best;
  }
}

extern "C" void topk(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  topk_pairs<<<rows, 32, 0, stream>>>(x, y, (int)cols);
}
