// Part of the translator's CUDA declarations (ksearch_cuda.h): libcu++'s thread scopes, which <cuda/pipeline>,
// <cuda/barrier> and <cuda/atomic> take.
#pragma once
namespace cuda {
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };
}  // namespace cuda
