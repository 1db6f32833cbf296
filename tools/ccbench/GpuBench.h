// ccbench on GPUs: ccopt's kernels through libccrt (virtual ranks on GPU 0,
// or one GPU per rank) and NCCL on the same inputs, timed with CUDA events.
#pragma once

#include "runtime/ccrt/CudaBuffers.h"
#include "runtime/ccrt/Schedule.h"
#include "runtime/jit/JitCache.h"
#include "tools/ccbench/Options.h"
#include "tools/ccbench/Result.h"
#include "tools/ccbench/Verifiable.h"

#include <functional>
#include <memory>

namespace ccopt::bench {

class GpuBench {
public:
  /// NoDevice (with the driver's reason) where there is no GPU; with
  /// --devices, fewer GPUs than ranks is an error too.
  static std::unique_ptr<GpuBench> create(const Options& options, rt::Status& status);
  ~GpuBench();

  std::string describe() const;
  /// Compiles every library into the JIT cache, `jobs` at a time (NVRTC is
  /// single-threaded per program; a 16-channel kernel takes seconds cold).
  void precompile(const std::vector<rt::KernelLibrary>& libraries, int jobs);
  rt::Status runCcopt(const Shape& shape, const rt::KernelLibrary& library, Result& result);
  /// Leaves `result` not run where NCCL cannot run (virtual ranks share one
  /// GPU, which NCCL does not allow; or no libnccl).
  void runNccl(const Shape& shape, Result& result);

private:
  GpuBench(Options o) : o_(std::move(o)), cache_(rt::JitCache::defaultDir()) {}
  rt::Status allocate(const Shape& shape);
  rt::Status timed(const std::function<rt::Status()>& step, Result& result);
  int64_t check(const Shape& shape);
  rt::Status clearOutputs(const Shape& shape);
  const std::shared_ptr<rt::CudaContext>& contextOf(int rank) const { return contexts_[o_.devices ? rank : 0]; }
  void* streamOf(int rank) const { return streams_[o_.devices ? rank : 0]; }

  Options o_;
  rt::JitCache cache_;
  std::vector<std::shared_ptr<rt::CudaContext>> contexts_;  // per GPU used
  std::vector<void*> streams_;                               // per GPU used
  std::vector<std::unique_ptr<rt::DeviceAllocation>> in_, out_;  // per rank
  std::vector<void*> comms_;                                 // NCCL, per rank (devices only)
  std::string ncclNote_;
};

}  // namespace ccopt::bench
