#pragma once
// core/timing_lock: one timing at a time on this machine, across ksearch processes.

namespace ksearch {

// Serializes timing (and ceiling measurements) across every ksearch process on the machine:
// concurrent timings disturb each other. A file lock in the cache folder, released on destruction.
class TimingLock {
 public:
  TimingLock();
  ~TimingLock();
  TimingLock(const TimingLock&) = delete;
  TimingLock& operator=(const TimingLock&) = delete;

 private:
  int fd_;
};

}  // namespace ksearch
