// Part of the translator's CUDA declarations (ksearch_cuda.h): libcu++'s cuda::std, which the <cuda/std/...> headers
// declare as the standard library's names (the port writes both cuda::std:: and std:: as metal::).
#pragma once
namespace cuda {
namespace std {
using namespace ::std;
}  // namespace std
}  // namespace cuda
