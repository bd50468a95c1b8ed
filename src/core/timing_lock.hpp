#pragma once
// core/timing_lock: one timing at a time per device, across ksearch processes.
#include <string>

namespace ksearch {  // core is the root namespace: the vocabulary every module shares

// Serializes timing (and ceiling measurements) across every ksearch process on the machine:
// concurrent timings on one device disturb each other. File locks in the cache folder, released on
// destruction. The empty key stands for the whole machine (a CPU: every timing shares its cores and
// memory bandwidth); a device's key (Backend::timing_lock_key, e.g. one GPU) serializes only the
// timings on that device, and holds the machine's lock shared, so that a whole-machine timing still
// excludes every device's.
class TimingLock {
 public:
  explicit TimingLock(const std::string& device_key = "");
  ~TimingLock();
  TimingLock(const TimingLock&) = delete;
  TimingLock& operator=(const TimingLock&) = delete;

 private:
  int machine_fd_ = -1, device_fd_ = -1;
};

}  // namespace ksearch
