// One schedule bound to the caller's buffers: launched many times, on any
// backend (host threads, virtual ranks on one GPU, N GPUs in one process,
// one process per GPU under NCCL). Binding validates everything once, so a
// bad argument is an error before anything runs or is written.
#pragma once

#include "runtime/ccrt/Schedule.h"
#include "runtime/ccrt/Status.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace ccopt::rt {

/// Caller memory for one buffer. `capacityBytes` is how much may be written
/// (on CUDA the allocation's end is used when smaller); `count` and `type`
/// are what the caller means to pass and must match the schedule.
struct BufferView {
  void* data = nullptr;
  int64_t count = 0;
  DType type = DType::F32;
  size_t capacityBytes = std::numeric_limits<size_t>::max();
};

/// One rank's buffers (rank: schedule rank, 0 <= rank < ranks). `device` is
/// the CUDA device the buffers live on (-1: host memory or "the bound device").
struct RankBuffers {
  int rank = 0;
  BufferView input, output;
  int device = -1;
};

struct LaunchOptions {
  /// A spin-wait gives up after this long and the launch reports Timeout
  /// (0: wait forever).
  std::chrono::nanoseconds timeout = std::chrono::seconds(30);
  /// CUDA threads per block (one block per rank and channel).
  int threadsPerBlock = 512;
};

class Collective {
public:
  virtual ~Collective() = default;

  const Schedule& schedule() const { return schedule_; }

  /// One run. CUDA: enqueued on `streams` (a CUstream / cudaStream_t per
  /// local device, in the order the ranks were bound; empty: the legacy
  /// default stream), returns at once and may be captured in a CUDA graph.
  /// Host: runs on threads and returns when done (streams are ignored).
  /// Refused (InvalidUsage) while an earlier error is not reset.
  virtual Status launch(const std::vector<void*>& streams = {}) = 0;

  /// The first error a kernel recorded since the last reset (Ok when none).
  /// Never blocks: a running kernel's timeout shows up here.
  virtual Status asyncError() const = 0;

  /// Raises the abort flag: running and later waits give up (Aborted).
  /// Safe from any thread while a launch runs.
  virtual void abort() = 0;

  /// After an error or abort: waits for outstanding work, clears the message
  /// counters, the abort flag and the error word. Collective across ranks
  /// under NCCL (every process must reset before the next launch).
  virtual Status reset() = 0;

protected:
  explicit Collective(Schedule schedule) : schedule_(std::move(schedule)) {}
  Schedule schedule_;
};

}  // namespace ccopt::rt
