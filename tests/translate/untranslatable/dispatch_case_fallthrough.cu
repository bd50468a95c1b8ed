// Untranslatable: a case of the entry's switch launches and falls through into the next one (line 21, reported
// at the last launch, line 22), so both launches run for it; a switch is translated when each case that launches ends with break.
#include <cuda_runtime.h>
#include <stdint.h>

template <int THREADS>
__global__ void rowsum_thread(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * THREADS + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[(int64_t)r * cols + c];
  y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = rows > 32 ? 64 : 32;
  switch (threads) {
    case 64:
      rowsum_thread<64><<<(rows + 63) / 64, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
      // no break
    case 32:
      rowsum_thread<32><<<(rows + 31) / 32, 32, 0, stream>>>(x, y, (int)rows, (int)cols);
      break;
  }
}
