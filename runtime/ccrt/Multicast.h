// Multicast memory for NVLS schedules: a buffer on each of N GPUs of one
// process, all bound to one multicast object, so that a multimem load
// through the multicast address reduces that address over every GPU (in the
// NVSwitch) and a multimem store lands on all of them. The caller allocates
// its buffers here (as NCCL's registered buffers) and binds them like any
// others; binding a `multicast` schedule looks their multicast addresses up.
#pragma once

#include "runtime/ccrt/Status.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace ccopt::rt {

class MulticastBuffers {
public:
  /// `bytes` (rounded up to the switch's granularity) on each of `devices`
  /// (distinct ordinals, rank order), every device able to read and write
  /// every buffer. NotSupported where a device has no multicast
  /// (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: Hopper with NVSwitch and a
  /// CUDA 12.1+ driver); NoDevice without a driver.
  static std::unique_ptr<MulticastBuffers> allocate(const std::vector<int>& devices, size_t bytes, Status& status);
  ~MulticastBuffers();
  MulticastBuffers(const MulticastBuffers&) = delete;
  MulticastBuffers& operator=(const MulticastBuffers&) = delete;

  /// Device `i`'s buffer (of devices[i]).
  void* data(size_t i) const;
  size_t bytes() const { return bytes_; }
  const std::vector<int>& devices() const { return devices_; }

  /// Where `bytes` at `p` lie in a live MulticastBuffers: its multicast
  /// address for the same offset on device `device`, and the buffers and
  /// offset; null when they do not (other memory, or another device's).
  struct Found {
    void* multicast = nullptr;
    const MulticastBuffers* buffers = nullptr;
    size_t offset = 0;
  };
  static Found find(const void* p, size_t bytes, int device);

private:
  MulticastBuffers() = default;
  Status release();

  std::vector<int> devices_;
  size_t bytes_ = 0;
  unsigned long long object_ = 0;                 // the multicast object
  std::vector<unsigned long long> memory_;         // per device: its physical memory
  std::vector<unsigned long long> unicast_, multicast_;  // per device: mapped addresses
};

}  // namespace ccopt::rt
