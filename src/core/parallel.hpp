#pragma once
// core/parallel: splits element ranges over every core. The evaluator's host-side work (drawing
// inputs, converting them for the reference, poisoning outputs, comparing results) is linear in a
// workload's size, and GPU workloads hold 10^8 elements: one thread would take seconds per pass.
#include <cstddef>
#include <functional>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Calls work(chunk, begin, end) for each chunk of `chunk_elements` consecutive elements of [0, n),
// on up to one thread per core; returns when all are done. Chunks are fixed by n and
// chunk_elements alone, so per-chunk results (and seeds) do not depend on the number of threads.
void for_each_chunk(size_t n, size_t chunk_elements, const std::function<void(size_t chunk, size_t begin, size_t end)>& work);

}  // namespace ksearch
