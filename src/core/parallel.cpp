#include "core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ksearch {

void for_each_chunk(size_t n, size_t chunk_elements, const std::function<void(size_t, size_t, size_t)>& work) {
  chunk_elements = std::max<size_t>(chunk_elements, 1);
  const size_t chunks = (n + chunk_elements - 1) / chunk_elements;
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t c = next++; c < chunks; c = next++) work(c, c * chunk_elements, std::min(n, (c + 1) * chunk_elements));
  };
  const size_t threads = std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < threads; ++i) helpers.emplace_back(run);
  run();
  for (auto& h : helpers) h.join();
}

}  // namespace ksearch
