#pragma once
// runner/library_state: a candidate library's writable data, saved after loading and put back
// before every call (its segments come from runner/sandbox.hpp's writable_segments).
#include <string>
#include <vector>

namespace ksearch::runner {

// The writable data (.data, .bss) of a loaded candidate library, captured after loading and put
// back before every call: state kept between calls (results cached across calls or timed
// repetitions) is erased, whatever the candidate names it.
class LibraryState {
 public:
  // Captures the writable segments of the loaded library whose path is `library`.
  void capture(const std::string& library);
  void restore() const;
  size_t bytes() const;

 private:
  struct Segment {
    char* address;
    std::vector<char> snapshot;
  };
  std::vector<Segment> segments_;
};

}  // namespace ksearch::runner
