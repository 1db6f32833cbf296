// A compiled program loaded for one target and bound to buffers: run it on
// every training step. Binding checks every buffer once (size, alignment,
// type, count, device, rank) and refuses bad ones before anything runs.
// Fused collectives run on buckets the executable owns (Buckets.h): it
// copies the members in and the results back out around each of them.
//
//   CompiledProgram p;  compileProgram(text, {"h200x8"}, p);
//   auto exe = Executable::load(p, Target::host(), status);
//   exe->bind({{0, {{"grads", {ptr0, bytes}}}}, {1, ...}});
//   exe->run();  // every collective, in program order
#pragma once

#include "api/CompiledProgram.h"
#include "runtime/ccrt/Collective.h"

#include <memory>

namespace ccopt {

class BucketMemory;

struct Target {
  enum class Kind {
    Host,          // the CPU: one thread per rank and channel (host memory)
    VirtualRanks,  // every rank on `device`, one launch
    Devices,       // rank r on its own GPU (RankMemory::device), one process
    Nccl,          // this process's rank of `ncclComm`
  };
  Kind kind = Kind::Host;
  int device = 0;             // VirtualRanks; Nccl: the communicator's device
  void* ncclComm = nullptr;   // Nccl: an ncclComm_t over the program's world
  std::string cacheDir;       // NVRTC cache; empty: JitCache::defaultDir()
  rt::LaunchOptions launch;

  static Target host() { return {}; }
};

struct Memory {
  void* data = nullptr;
  size_t bytes = 0;
};

/// One rank's memory: ccl buffer name -> where it lives.
struct RankMemory {
  int rank = 0;
  std::map<std::string, Memory> buffers;
  int device = -1;  // Target::Kind::Devices: the rank's GPU
};

class Executable {
public:
  /// Compiles the kernels for `target` (host compiler, or NVRTC through the
  /// cache for each device used).
  static std::unique_ptr<Executable> load(const CompiledProgram& program, const Target& target, rt::Status& status);
  ~Executable();

  /// Binds every step to `ranks` (all ranks; under NCCL this process's
  /// rank only), and allocates the buckets of fused steps where each rank's
  /// buffers live. Replaces an earlier binding only when it succeeds.
  rt::Status bind(const std::vector<RankMemory>& ranks);

  /// Runs every step in program order (CUDA: enqueued on `streams`, one per
  /// local device, bucket copies included; host: returns when done).
  rt::Status run(const std::vector<void*>& streams = {});

  /// The first asynchronous error of any step (never blocks).
  rt::Status asyncError() const;
  void abort();
  rt::Status reset();

  const CompiledProgram& program() const { return program_; }
  /// Seconds load() spent compiling (host compiler or NVRTC/cache).
  double loadSeconds() const { return loadSeconds_; }

private:
  Executable() = default;
  struct Backend;
  CompiledProgram program_;
  Target target_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<BucketMemory> buckets_;  // declared before steps_: freed after them
  std::vector<std::unique_ptr<rt::Collective>> steps_;
  double loadSeconds_ = 0;
};

}  // namespace ccopt
