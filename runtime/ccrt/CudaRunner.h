// Backends (a)-(c) of libccrt: a kernel library JIT-compiled with NVRTC (and
// the on-disk cache) for each device, and its schedules bound to device
// buffers as
//   (a) virtual ranks: every rank on one GPU, all in one launch (so they are
//       co-resident) — how a single GPU tests the kernels;
//   (b) N GPUs in one process, rank r on buffers[r].device, peer access;
//   (c) one process per GPU: the caller's NCCL communicator bootstraps the
//       world (buffers, scratch and sync areas exchanged as CUDA IPC handles
//       with ncclAllGather).
// Launches go on the caller's streams and are two kernel launches (the
// epoch bump, then the collective), so they can be captured in CUDA graphs
// and every replay is a new epoch.
#pragma once

#include "runtime/ccrt/Collective.h"
#include "runtime/jit/CudaDriver.h"
#include "runtime/jit/JitCache.h"

#include <map>
#include <memory>

namespace ccopt::rt {

class CudaProgram {
public:
  /// Compiles `library` for the architecture of each of `devices` (through
  /// `cache`: a hit costs microseconds) and loads it there. NoDevice when
  /// the driver or a device is missing.
  static std::unique_ptr<CudaProgram> compile(const KernelLibrary& library, const std::vector<int>& devices,
                                              const JitCache& cache, Status& status);

  /// (a) Every rank's buffers on `device`, one launch for all of them.
  std::unique_ptr<Collective> bindVirtualRanks(const std::string& kernel, int device,
                                               const std::vector<RankBuffers>& buffers, const LaunchOptions& options,
                                               Status& status) const;
  /// (b) Rank r on device buffers[r].device (distinct devices, peer access
  /// enabled between them); launch() takes one stream per rank in rank order.
  std::unique_ptr<Collective> bindDevices(const std::string& kernel, const std::vector<RankBuffers>& buffers,
                                          const LaunchOptions& options, Status& status) const;
  /// (c) This process's rank of `ncclComm` (an ncclComm_t whose size is the
  /// schedule's ranks; NCCL rank = schedule rank). Collective: every process
  /// of the communicator binds together.
  std::unique_ptr<Collective> bindNccl(const std::string& kernel, void* ncclComm, const RankBuffers& mine,
                                       const LaunchOptions& options, Status& status) const;

  const KernelLibrary& library() const { return library_; }
  /// Wall time of compile(): NVRTC (or cache reads) and module loads.
  double compileSeconds() const { return compileSeconds_; }
  /// Whether every architecture's CUBIN came from the cache.
  bool cacheHit() const { return cacheHit_; }

  struct Loaded {
    std::shared_ptr<CudaContext> context;
    std::shared_ptr<CudaModule> module;
  };

private:
  CudaProgram() = default;
  const Loaded* loaded(int device, Status& status) const;

  KernelLibrary library_;
  std::map<int, Loaded> devices_;  // by device ordinal
  double compileSeconds_ = 0;
  bool cacheHit_ = true;
};

/// The source NVRTC compiles for `library`: the emitted kernels plus the
/// runtime's epoch-bump kernel.
std::string cudaProgramSource(const KernelLibrary& library);

}  // namespace ccopt::rt
