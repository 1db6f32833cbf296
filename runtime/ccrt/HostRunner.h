// Backend (d): a kernel library compiled for the CPU (runtime/host) and its
// schedules run with one thread per rank and channel over the caller's host
// memory. How tests, ccbench --host and the trainer example run without a GPU.
#pragma once

#include "runtime/ccrt/Collective.h"
#include "runtime/host/HostBackend.h"

#include <memory>

namespace ccopt::rt {

class HostProgram {
public:
  /// Compiles `library.source` with the host compiler (about a second).
  static std::unique_ptr<HostProgram> compile(const KernelLibrary& library, Status& status);

  /// Binds schedule `kernel` to every rank's buffers (host memory).
  std::unique_ptr<Collective> bind(const std::string& kernel, const std::vector<RankBuffers>& buffers,
                                   const LaunchOptions& options, Status& status) const;

  const KernelLibrary& library() const { return library_; }

private:
  HostProgram(KernelLibrary library, std::unique_ptr<HostModule> module)
      : library_(std::move(library)), module_(std::move(module)) {}
  KernelLibrary library_;
  std::shared_ptr<HostModule> module_;  // shared with the collectives bound from it
};

}  // namespace ccopt::rt
