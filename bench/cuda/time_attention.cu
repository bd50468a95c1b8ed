// Times a rendered attention_bf16 cuda candidate's entry on B1 H32 L4096 D128 (causal with argument 1): CUDA
// events around one call, 3 warm-ups, median and min of 22 calls, no L2 flush (the kernel re-reads K/V from L2
// anyway). For quick A/B of template variants on the device; bench/cuda/bench.py is the side-by-side benchmark.
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -DKERNEL='"variant.cu"' -DLABEL='"name"' \
//     bench/cuda/time_attention.cu -o t -lcuda && ./t 0 && ./t 1
#include KERNEL
#include <cstdio>
#include <vector>
#include <algorithm>
int main(int argc, char** argv) {
  int b = 1, hq = 32, hkv = 32, lq = 4096, lk = 4096, d = 128, causal = argc > 1 ? atoi(argv[1]) : 0;
  size_t nq = size_t(b) * hq * lq * d, nk = size_t(b) * hkv * lk * d;
  bf16 *q, *k, *v, *o;
  cudaMalloc(&q, nq * 2); cudaMalloc(&k, nk * 2); cudaMalloc(&v, nk * 2); cudaMalloc(&o, nq * 2);
  std::vector<bf16> h(nk);
  for (size_t i = 0; i < nk; ++i) h[i] = __float2bfloat16(float((i * 2654435761u) % 1000) / 500.0f - 1.0f);
  cudaMemcpy(q, h.data(), nq * 2, cudaMemcpyHostToDevice); cudaMemcpy(k, h.data(), nk * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(v, h.data(), nk * 2, cudaMemcpyHostToDevice);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ts;
  for (int r = 0; r < 25; ++r) {
    cudaEventRecord(e0);
    attention(q, k, v, o, b, hq, hkv, lq, lk, d, causal, 0);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 3) ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  double flops = 4.0 * b * hq * d * (causal ? double(lq) * (lq + 1) / 2 : double(lq) * lk);
  printf("%-28s causal=%d  median %.4f ms  min %.4f  %.0f TFLOP/s  (%s)\n", LABEL, causal, ts[ts.size() / 2], ts[0],
         flops / ts[ts.size() / 2] / 1e9, cudaGetErrorString(cudaGetLastError()));
}
