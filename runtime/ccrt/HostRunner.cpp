#include "runtime/ccrt/HostRunner.h"

#include "runtime/ccrt/Validate.h"

#include <atomic>

namespace ccopt::rt {
namespace {

class HostCollective final : public Collective {
public:
  HostCollective(Schedule schedule, std::shared_ptr<HostModule> module, KernelFn fn, LaunchOptions options,
                 const std::vector<RankBuffers>& buffers)
      : Collective(std::move(schedule)), module_(std::move(module)), fn_(fn), options_(options),
        // The caller's buffers replace input and output; only scratch and sync are ours.
        world_(schedule_.ranks, schedule_.channels, 0, 0, schedule_.scratchBytes(), false,
               size_t(schedule_.mailboxBytes)) {
    for (const RankBuffers& b : buffers) {
      world_.bind(b.rank, CC_BUF_INPUT, b.input.data);
      world_.bind(b.rank, CC_BUF_OUTPUT, schedule_.inPlace ? b.input.data : b.output.data);
    }
  }

  Status launch(const std::vector<void*>&) override {
    if (int e = error_.load(); e != CC_OK)
      return Status::error(Code::InvalidUsage, "launch after an error (" + kernelStatus(e, schedule_.kernel).message +
                                                   ")");
    if (aborted_.load()) {
      error_ = CC_ERR_ABORTED;
      return kernelStatus(CC_ERR_ABORTED, schedule_.kernel);
    }
    // An abort arriving while the threads start may let this launch finish;
    // aborted_ stays set, so the next launch reports it.
    running_ = true;
    int rc = CC_OK;
    try {
      rc = world_.launch(fn_, options_.timeout);
    } catch (const std::exception& e) {
      running_ = false;
      error_ = CC_ERR_ABORTED;
      return Status::error(Code::Internal, std::string("host launch: ") + e.what());
    }
    running_ = false;
    error_ = rc;
    return kernelStatus(rc, schedule_.kernel);
  }

  Status asyncError() const override {
    const int running = running_.load() ? world_.lastError() : CC_OK;
    const int e = running != CC_OK ? running : error_.load();
    return kernelStatus(e == CC_OK && aborted_.load() ? CC_ERR_ABORTED : e, schedule_.kernel);
  }

  void abort() override {
    aborted_ = true;
    world_.requestAbort();
  }

  Status reset() override {
    if (running_.load()) return Status::error(Code::InvalidUsage, "reset while a launch runs");
    // HostWorld zeroes the counters itself before the launch after a failed one.
    aborted_ = false;
    error_ = CC_OK;
    return Status::success();
  }

private:
  std::shared_ptr<HostModule> module_;  // keeps fn_ loaded
  KernelFn fn_;
  LaunchOptions options_;
  mutable HostWorld world_;
  std::atomic<int> error_{CC_OK};
  std::atomic<bool> aborted_{false}, running_{false};
};

}  // namespace

std::unique_ptr<HostProgram> HostProgram::compile(const KernelLibrary& library, Status& status) {
  std::string error;
  std::unique_ptr<HostModule> module = HostModule::compile(library.source, error);
  if (!module) {
    status = Status::error(Code::CompileError, "host compile: " + error);
    return nullptr;
  }
  status = Status::success();
  return std::unique_ptr<HostProgram>(new HostProgram(library, std::move(module)));
}

std::unique_ptr<Collective> HostProgram::bind(const std::string& kernel, const std::vector<RankBuffers>& buffers,
                                              const LaunchOptions& options, Status& status) const {
  const Schedule* schedule = library_.find(kernel);
  if (!schedule) {
    status = Status::error(Code::InvalidArgument, "no schedule '" + kernel + "' in the kernel library");
    return nullptr;
  }
  if (status = validateOptions(options); !status.ok()) return nullptr;
  if (status = validateBuffers(*schedule, buffers, RankCoverage::All); !status.ok()) return nullptr;
  std::string error;
  KernelFn fn = module_->kernel(kernel, error);
  if (!fn) {
    status = Status::error(Code::Internal, error);
    return nullptr;
  }
  status = Status::success();
  return std::make_unique<HostCollective>(*schedule, module_, fn, options, buffers);
}

}  // namespace ccopt::rt
