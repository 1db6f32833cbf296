// Buckets at run time: a fused collective runs on a bucket, flat memory the
// runtime owns on each rank where that rank's buffers live. Before the
// collective the members are copied in at their offsets, after it the
// results are copied back out into the members' (output) buffers, so a
// trainer binds and reads its own named buffers as if nothing were fused.
#pragma once

#include "api/Executable.h"

#include <memory>
#include <vector>

namespace ccopt {

class BucketMemory {
public:
  /// Checks, for every rank of `ranks` that runs a step on a bucket, each
  /// member as a binding is checked (present, not null, aligned, large
  /// enough, on the rank's device for the CUDA targets; the members a
  /// bucket writes back must not overlap), then allocates that rank's
  /// buckets: host memory, or device memory on the rank's device. Null with
  /// an InvalidArgument naming the rank and buffer on a bad member.
  static std::unique_ptr<BucketMemory> bind(const CompiledProgram& program, const Target& target,
                                            const std::vector<RankMemory>& ranks, rt::Status& status);
  ~BucketMemory();
  BucketMemory(const BucketMemory&) = delete;
  BucketMemory& operator=(const BucketMemory&) = delete;

  /// Bucket `bucket` of world rank `rank`, as the collective binds it
  /// (data null when that rank does not run a step on it).
  Memory memory(int bucket, int rank) const;

  /// Copies the members of `bucket` into it on every rank bound, before a
  /// collective reads it. Host: memcpy; CUDA: enqueued on each rank's stream
  /// (`streams` as Executable::run takes them), in order with the kernels.
  rt::Status copyIn(int bucket, const std::vector<void*>& streams) const;
  /// Copies `bucket` back out into its members, after a collective wrote it.
  rt::Status copyOut(int bucket, const std::vector<void*>& streams) const;

private:
  struct Allocation;
  struct RankBucket;  // one rank's copy of one bucket
  BucketMemory() = default;
  rt::Status copy(int bucket, bool in, const std::vector<void*>& streams) const;

  Target::Kind kind_ = Target::Kind::Host;
  std::vector<std::vector<RankBucket>> buckets_;  // [bucket][participating rank]
};

}  // namespace ccopt
