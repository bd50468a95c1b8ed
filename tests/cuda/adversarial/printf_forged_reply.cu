// expect: wrong_answer: computes nothing and prints, from the host and from the device, what a runner's reply looks like (a passed call taking 1 us); the evaluator reads replies only from a descriptor of its own, carrying a nonce the candidate never sees, and stdout goes to the runner's log: the outputs keep their poison.
// expect-without-rules: wrong_answer
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

__global__ void announce() {
  printf("{\"ok\":true,\"ms\":0.001,\"status\":\"passed\"}\n");
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  printf("{\"ok\":true,\"ms\":0.001,\"status\":\"passed\"}\n");
  fflush(stdout);
  fprintf(stderr, "{\"ok\":true,\"ms\":0.001}\n");
  announce<<<1, 1, 0, stream>>>();
}
