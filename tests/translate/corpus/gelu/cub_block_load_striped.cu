// cub::BlockLoad with BLOCK_LOAD_STRIPED (item i of every thread, then item i + 1) over a tile of 3 items x 64
// threads, the tail guarded by Load(ptr, items, valid, oob); the results written at the striped positions by hand,
// so only CUB's striped arrangement passes. Odd blocks store through BlockStore's striped form.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK, int ITEMS>
__global__ void gelu_striped(const float* __restrict__ x, float* __restrict__ y, int n) {
  using Load = cub::BlockLoad<float, BLOCK, ITEMS, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, BLOCK, ITEMS, cub::BLOCK_STORE_STRIPED>;
  __shared__ typename Load::TempStorage load_temp;
  __shared__ typename Store::TempStorage store_temp;
  const int base = blockIdx.x * BLOCK * ITEMS;
  const int valid = min(BLOCK * ITEMS, n - base);
  float v[ITEMS];
  Load(load_temp).Load(x + base, v, valid, 0.f);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) v[i] = 0.5f * v[i] * (1.f + erff(v[i] * 0.70710678f));
  if (blockIdx.x % 2 == 0) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
      if (i * BLOCK + (int)threadIdx.x < valid) y[base + i * BLOCK + threadIdx.x] = v[i];
  } else {
    Store(store_temp).Store(y + base, v, valid);
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kTile = 64 * 3;
  gelu_striped<64, 3><<<(n + kTile - 1) / kTile, 64, 0, stream>>>(x, y, (int)n);
}
