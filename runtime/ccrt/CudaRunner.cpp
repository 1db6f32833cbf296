#include "runtime/ccrt/CudaRunner.h"

#include "ccopt/device.h"
#include "runtime/ccrt/CudaBuffers.h"
#include "runtime/ccrt/Multicast.h"
#include "runtime/ccrt/Validate.h"
#include "runtime/nccl/NcclLibrary.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

namespace ccopt::rt {
namespace {

constexpr const char* kEpochKernel = "ccrt_next_epoch";

const CudaDriverApi& api() {
  std::string ignored;
  return *cudaDriverApi(ignored);  // only reached once a context exists
}

// One launch unit: a device's kernel over ranks [rankBase, rankBase + ranks).
struct Slot {
  CudaProgram::Loaded loaded;  // shared: a collective may outlive its program
  void* fn = nullptr;
  void* bump = nullptr;
  int rankBase = 0, ranks = 1;
  std::unique_ptr<DeviceAllocation> args, bufTable, syncTable, multicastTable;
};

/// Why a `multicast` schedule (NVLS) cannot run where its ranks share a
/// GPU or live in other processes.
Status multicastNeedsDevices(const Schedule& s, const char* binding) {
  return Status::error(Code::NotSupported,
                       "'" + s.kernel + "' reduces in the NVSwitch (multicast buffers), which " + binding +
                           " cannot set up: bind it with bindDevices, one GPU per rank, on buffers from "
                           "MulticastBuffers (or compile without multicast buffers)");
}

class CudaCollective final : public Collective {
public:
  CudaCollective(Schedule schedule, LaunchOptions options) : Collective(std::move(schedule)), options_(options) {}
  // Kernels still running use the memory freed below.
  ~CudaCollective() override { settle(); }

  /// The mapped flags, allocated with `context` current (any device: they
  /// are portable and the same address everywhere under UVA).
  Status init(const std::shared_ptr<CudaContext>& context) {
    std::string error;
    if (!context->makeCurrent(error)) return Status::error(Code::CudaError, error);
    Status s;
    flags_ = MappedFlags::create(s);
    return s;
  }

  /// A launch unit on `loaded`'s device for ranks [rankBase, rankBase + ranks).
  Status addSlot(const CudaProgram::Loaded& loaded, int rankBase, int ranks) {
    Slot slot;
    slot.loaded = loaded;
    slot.rankBase = rankBase;
    slot.ranks = ranks;
    std::string error;
    if (!loaded.context->makeCurrent(error)) return Status::error(Code::CudaError, error);
    if (!(slot.fn = loaded.module->function(schedule_.kernel, error)) ||
        !(slot.bump = loaded.module->function(kEpochKernel, error)))
      return Status::error(Code::Internal, error);
    // Every block of a launch waits on others: all must be resident at once.
    const CudaDriverApi& d = api();
    int perSm = 0, sms = 0;
    if (Status s = cudaStatus(d, d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, slot.fn,
                                                                               options_.threadsPerBlock, 0),
                              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        !s.ok())
      return s;
    if (Status s = cudaStatus(d, d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                                        loaded.context->cuDevice()),
                              "cuDeviceGetAttribute");
        !s.ok())
      return s;
    const long long blocks = (long long)schedule_.channels * ranks;
    if (blocks > (long long)perSm * sms)
      return Status::error(Code::NotSupported,
                           std::to_string(blocks) + " blocks (" + std::to_string(ranks) + " ranks x " +
                               std::to_string(schedule_.channels) + " channels) cannot all be resident on device " +
                               std::to_string(loaded.context->device()) + " (at most " +
                               std::to_string(perSm * sms) + " of " + std::to_string(options_.threadsPerBlock) +
                               " threads): use fewer ranks, channels or threads per block");
    slots_.push_back(std::move(slot));
    return Status::success();
  }

  /// Scratch and sync area of `rank` on `context`'s device, owned here.
  Status allocateRank(const std::shared_ptr<CudaContext>& context, int rank) {
    Status s;
    auto scratch = DeviceAllocation::create(context, schedule_.scratchBytes(), s);
    if (!s.ok()) return s;
    auto sync = DeviceAllocation::create(context, schedule_.syncBytes(), s);  // counters, LL mailbox
    if (!s.ok()) return s;
    bufTable_[size_t(rank) * CC_NUM_BUFS + CC_BUF_SCRATCH] = scratch->data();
    syncTable_[size_t(rank)] = static_cast<cc_u64*>(sync->data());
    owned_.push_back(std::move(scratch));
    syncAreas_.push_back(std::move(sync));
    return zero(context, *syncAreas_.back());  // counters (and mailbox) start at 0
  }

  void setBuffers(const RankBuffers& b) {
    bufTable_[size_t(b.rank) * CC_NUM_BUFS + CC_BUF_INPUT] = b.input.data;
    bufTable_[size_t(b.rank) * CC_NUM_BUFS + CC_BUF_OUTPUT] = schedule_.inPlace ? b.input.data : b.output.data;
  }

  /// The multicast addresses of every rank's input and output: the ranks
  /// of a block (schedule_.multicastGroup consecutive ranks, or all of
  /// them) in buffers of one MulticastBuffers over exactly their devices,
  /// each kind at the same offset on every one (the switch reduces an
  /// address over all of its devices).
  Status setMulticast(const std::vector<RankBuffers>& buffers) {
    multicastTable_.assign(bufTable_.size(), nullptr);
    size_t group = schedule_.multicastGroup ? size_t(schedule_.multicastGroup) : size_t(schedule_.ranks);
    struct Block {
      const MulticastBuffers* object = nullptr;
      int firstRank = -1;
      size_t offsets[CC_NUM_BUFS] = {};
    };
    std::vector<Block> blocks(size_t(schedule_.ranks) / group);
    for (const RankBuffers& b : buffers) {
      Block& block = blocks[size_t(b.rank) / group];
      for (int kind : {CC_BUF_INPUT, CC_BUF_OUTPUT}) {
        const BufferView& view = kind == CC_BUF_INPUT || schedule_.inPlace ? b.input : b.output;
        const char* which = kind == CC_BUF_INPUT ? "input" : "output";
        auto found = MulticastBuffers::find(view.data, size_t(view.count) * dtypeBytes(view.type), b.device);
        std::string where = "rank " + std::to_string(b.rank) + " " + which;
        if (!found.buffers)
          return Status::error(Code::InvalidArgument,
                               where + " is not multicast memory of device " + std::to_string(b.device) +
                                   " ('" + schedule_.kernel + "' reduces in the NVSwitch: allocate it with "
                                   "MulticastBuffers)");
        if (!block.object) {
          block = {found.buffers, b.rank, {}};
          if (block.object->devices().size() != group)
            return Status::error(Code::InvalidArgument,
                                 where + " is multicast over " + std::to_string(block.object->devices().size()) +
                                     " devices, the schedule's switch reaches " + std::to_string(group) + " ranks");
        }
        if (found.buffers != block.object)
          return Status::error(Code::InvalidArgument, where + " is in other multicast buffers than rank " +
                                                          std::to_string(block.firstRank) + "'s");
        if (b.rank == block.firstRank)
          block.offsets[kind] = found.offset;
        else if (found.offset != block.offsets[kind])
          return Status::error(Code::InvalidArgument,
                               where + " is at offset " + std::to_string(found.offset) + " of its buffer, rank " +
                                   std::to_string(block.firstRank) + "'s at " +
                                   std::to_string(block.offsets[kind]) + " (the switch needs the same one)");
        multicastTable_[size_t(b.rank) * CC_NUM_BUFS + kind] = found.multicast;
      }
    }
    return Status::success();
  }
  std::vector<void*>& bufTable() { return bufTable_; }
  std::vector<cc_u64*>& syncTable() { return syncTable_; }
  std::vector<std::unique_ptr<IpcMappings>>& ipc() { return ipc_; }

  /// Copies the pointer tables and a fresh argument block to every slot's device.
  Status writeTables() {
    for (Slot& slot : slots_) {
      const auto& ctx = slot.loaded.context;
      Status s;
      slot.bufTable = DeviceAllocation::create(ctx, bufTable_.size() * sizeof(void*), s);
      if (s.ok()) slot.syncTable = DeviceAllocation::create(ctx, syncTable_.size() * sizeof(cc_u64*), s);
      if (s.ok()) slot.args = DeviceAllocation::create(ctx, sizeof(cc_args), s);
      if (s.ok() && !multicastTable_.empty())
        slot.multicastTable = DeviceAllocation::create(ctx, multicastTable_.size() * sizeof(void*), s);
      if (!s.ok()) return s;
      std::string error;
      if (!ctx->copyToDevice(slot.bufTable->data(), bufTable_.data(), bufTable_.size() * sizeof(void*), error) ||
          !ctx->copyToDevice(slot.syncTable->data(), syncTable_.data(), syncTable_.size() * sizeof(cc_u64*), error) ||
          (slot.multicastTable && !ctx->copyToDevice(slot.multicastTable->data(), multicastTable_.data(),
                                                     multicastTable_.size() * sizeof(void*), error)))
        return Status::error(Code::CudaError, error);
      if (Status st = writeArgs(slot); !st.ok()) return st;
    }
    return settle();
  }

  Status launch(const std::vector<void*>& streams) override {
    if (!streams.empty() && streams.size() != slots_.size())
      return Status::error(Code::InvalidArgument, "launch: " + std::to_string(streams.size()) + " streams for " +
                                                      std::to_string(slots_.size()) + " devices");
    if (int e = *flags_->errorHost(); e != CC_OK)
      return Status::error(Code::InvalidUsage,
                           "launch after an error (" + kernelStatus(e, schedule_.kernel).message + ")");
    for (size_t i = 0; i < slots_.size(); ++i) {
      const Slot& slot = slots_[i];
      void* stream = streams.empty() ? nullptr : streams[i];
      const cc_args* args = static_cast<const cc_args*>(slot.args->data());
      std::string error;
      if (!slot.loaded.module->launch(slot.bump, {1, 1, 1}, {1, 1, 1}, 0, stream, args, error) ||
          !slot.loaded.module->launch(slot.fn, {unsigned(schedule_.channels), unsigned(slot.ranks), 1},
                                       {unsigned(options_.threadsPerBlock), 1, 1}, 0, stream, args, error))
        return Status::error(Code::CudaError, error);
    }
    return Status::success();
  }

  Status asyncError() const override { return kernelStatus(*flags_->errorHost(), schedule_.kernel); }

  void abort() override {
    *flags_->abortHost() = 1;
    __sync_synchronize();
  }

  Status reset() override {
    std::string error;
    for (const Slot& slot : slots_)
      if (!slot.loaded.context->synchronize(error)) return Status::error(Code::CudaError, error);
    for (const auto& sync : syncAreas_)
      if (Status s = zero(sync->context(), *sync); !s.ok()) return s;
    for (Slot& slot : slots_)
      if (Status s = writeArgs(slot); !s.ok()) return s;
    if (Status s = settle(); !s.ok()) return s;
    *flags_->abortHost() = 0;
    *flags_->errorHost() = CC_OK;
    __sync_synchronize();
    return Status::success();
  }

private:
  /// Waits for the memsets and copies above: they run on the legacy stream
  /// and may still be in flight when they return, while the caller's
  /// streams need not wait for that stream.
  Status settle() {
    for (const Slot& slot : slots_) {
      std::string error;
      if (!slot.loaded.context->synchronize(error)) return Status::error(Code::CudaError, error);
    }
    return Status::success();
  }

  Status writeArgs(Slot& slot) {
    cc_args a{};
    a.nranks = schedule_.ranks;
    a.nchannels = schedule_.channels;
    a.rank_base = slot.rankBase;
    a.epoch = 0;  // ccrt_next_epoch makes it 1 for the first launch
    a.timeout_ns = cc_u64(options_.timeout.count());
    a.bufs = static_cast<void* const*>(slot.bufTable->data());
    a.sync = static_cast<cc_u64* const*>(slot.syncTable->data());
    a.abort = flags_->abortDevice();
    a.error = flags_->errorDevice();
    a.multicast = slot.multicastTable ? static_cast<void* const*>(slot.multicastTable->data()) : nullptr;
    std::string error;
    if (!slot.loaded.context->copyToDevice(slot.args->data(), &a, sizeof a, error))
      return Status::error(Code::CudaError, error);
    return Status::success();
  }

  static Status zero(const std::shared_ptr<CudaContext>& ctx, const DeviceAllocation& a) {
    std::string error;
    if (!ctx->makeCurrent(error)) return Status::error(Code::CudaError, error);
    return cudaStatus(api(), api().cuMemsetD8(CUdeviceptr(uintptr_t(a.data())), 0, a.bytes()), "cuMemsetD8");
  }

  LaunchOptions options_;
  std::unique_ptr<MappedFlags> flags_;
  std::vector<Slot> slots_;
  std::vector<void*> bufTable_ = std::vector<void*>(size_t(schedule_.ranks) * CC_NUM_BUFS, nullptr);
  std::vector<cc_u64*> syncTable_ = std::vector<cc_u64*>(size_t(schedule_.ranks), nullptr);
  std::vector<void*> multicastTable_;  // NVLS schedules: like bufTable_, multicast addresses
  std::vector<std::unique_ptr<DeviceAllocation>> owned_;      // scratch
  std::vector<std::unique_ptr<DeviceAllocation>> syncAreas_;  // this process's ranks, in slot order
  std::vector<std::unique_ptr<IpcMappings>> ipc_;             // declared last: closed first
};

// Per-buffer device check for validateBuffers.
auto onDevice(int device) {
  return [device](const RankBuffers& b, const BufferView& v, const char* which) {
    return checkDevicePointer(v.data, size_t(v.count) * dtypeBytes(v.type), device,
                              "rank " + std::to_string(b.rank) + " " + which);
  };
}

}  // namespace

std::string cudaProgramSource(const KernelLibrary& library) {
  return library.source +
         "\n// libccrt: a launch is this kernel, then the collective. The epoch lives in\n"
         "// device memory, so a CUDA graph replay starts a new epoch too.\n"
         "extern \"C\" __global__ void " +
         kEpochKernel + "(cc_args* args) { args->epoch += 1; }\n";
}

std::unique_ptr<CudaProgram> CudaProgram::compile(const KernelLibrary& library, const std::vector<int>& devices,
                                                  const JitCache& cache, Status& status) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<CudaProgram> program(new CudaProgram());
  program->library_ = library;
  const std::string source = cudaProgramSource(library);
  std::map<int, std::vector<char>> cubins;  // by architecture
  for (int device : devices) {
    if (program->devices_.count(device)) continue;
    std::string error;
    auto context = CudaContext::primary(device, error);
    if (!context) {
      status = Status::error(error.rfind("no CUDA device", 0) == 0 ? Code::NoDevice : Code::CudaError, error);
      return nullptr;
    }
    auto& cubin = cubins[context->smArch()];
    if (cubin.empty()) {
      JitResult r = cache.compile(source, "ccopt_kernels.cu", context->smArch());
      if (!r.ok) {
        status = Status::error(Code::CompileError, "NVRTC (sm_" + std::to_string(context->smArch()) + "): " + r.log);
        return nullptr;
      }
      program->cacheHit_ = program->cacheHit_ && r.cacheHit;
      cubin = std::move(r.cubin);
    }
    std::unique_ptr<CudaModule> module = CudaModule::load(context, cubin, error);
    if (!module) {
      status = Status::error(Code::CudaError, error);
      return nullptr;
    }
    program->devices_[device] = Loaded{std::move(context), std::move(module)};
  }
  program->compileSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  status = Status::success();
  return program;
}

const CudaProgram::Loaded* CudaProgram::loaded(int device, Status& status) const {
  auto it = devices_.find(device);
  if (it == devices_.end()) {
    status = Status::error(Code::InvalidArgument,
                           "device " + std::to_string(device) + " is not one the program was compiled for");
    return nullptr;
  }
  return &it->second;
}

std::unique_ptr<Collective> CudaProgram::bindVirtualRanks(const std::string& kernel, int device,
                                                          const std::vector<RankBuffers>& buffers,
                                                          const LaunchOptions& options, Status& status) const {
  const Schedule* schedule = library_.find(kernel);
  if (!schedule) {
    status = Status::error(Code::InvalidArgument, "no schedule '" + kernel + "' in the kernel library");
    return nullptr;
  }
  if (schedule->multicast) {
    status = multicastNeedsDevices(*schedule, "ranks sharing one GPU");
    return nullptr;
  }
  const Loaded* dev = loaded(device, status);
  if (!dev) return nullptr;
  if (status = validateOptions(options); !status.ok()) return nullptr;
  if (status = validateBuffers(*schedule, buffers, RankCoverage::All, onDevice(device)); !status.ok()) return nullptr;
  auto c = std::make_unique<CudaCollective>(*schedule, options);
  if (status = c->init(dev->context); !status.ok()) return nullptr;
  for (const RankBuffers& b : buffers) {
    c->setBuffers(b);
    if (status = c->allocateRank(dev->context, b.rank); !status.ok()) return nullptr;
  }
  if (status = c->addSlot(*dev, 0, schedule->ranks); !status.ok()) return nullptr;
  if (status = c->writeTables(); !status.ok()) return nullptr;
  return c;
}

std::unique_ptr<Collective> CudaProgram::bindDevices(const std::string& kernel, const std::vector<RankBuffers>& in,
                                                     const LaunchOptions& options, Status& status) const {
  const Schedule* schedule = library_.find(kernel);
  if (!schedule) {
    status = Status::error(Code::InvalidArgument, "no schedule '" + kernel + "' in the kernel library");
    return nullptr;
  }
  if (status = validateOptions(options); !status.ok()) return nullptr;
  std::set<int> used;
  for (const RankBuffers& b : in) {
    if (!used.insert(b.device).second) {
      status = Status::error(Code::InvalidArgument, "device " + std::to_string(b.device) +
                                                        " holds two ranks: use bindVirtualRanks for that");
      return nullptr;
    }
    if (!loaded(b.device, status)) return nullptr;
  }
  auto where = [](const RankBuffers& b, const BufferView& v, const char* which) {
    return onDevice(b.device)(b, v, which);
  };
  if (status = validateBuffers(*schedule, in, RankCoverage::All, where); !status.ok()) return nullptr;
  std::vector<RankBuffers> buffers = in;
  std::sort(buffers.begin(), buffers.end(), [](auto& a, auto& b) { return a.rank < b.rank; });
  // Peer access between every pair: kernels write into peers' buffers.
  const CudaDriverApi& d = api();
  for (const RankBuffers& a : buffers)
    for (const RankBuffers& b : buffers) {
      if (a.device == b.device) continue;
      const Loaded *la = loaded(a.device, status), *lb = loaded(b.device, status);
      int can = 0;
      d.cuDeviceCanAccessPeer(&can, la->context->cuDevice(), lb->context->cuDevice());
      if (!can) {
        status = Status::error(Code::NotSupported, "device " + std::to_string(a.device) + " cannot access device " +
                                                       std::to_string(b.device) + " (no peer access)");
        return nullptr;
      }
      std::string error;
      if (!la->context->makeCurrent(error)) {
        status = Status::error(Code::CudaError, error);
        return nullptr;
      }
      const CUresult rc = d.cuCtxEnablePeerAccess(lb->context->handle(), 0);
      if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        status = cudaStatus(d, rc, "cuCtxEnablePeerAccess");
        return nullptr;
      }
    }
  auto c = std::make_unique<CudaCollective>(*schedule, options);
  if (status = c->init(loaded(buffers.front().device, status)->context); !status.ok()) return nullptr;
  if (schedule->multicast)
    if (status = c->setMulticast(buffers); !status.ok()) return nullptr;
  for (const RankBuffers& b : buffers) {
    const Loaded* dev = loaded(b.device, status);
    c->setBuffers(b);
    if (status = c->allocateRank(dev->context, b.rank); !status.ok()) return nullptr;
    if (status = c->addSlot(*dev, b.rank, 1); !status.ok()) return nullptr;
  }
  if (status = c->writeTables(); !status.ok()) return nullptr;
  return c;
}

std::unique_ptr<Collective> CudaProgram::bindNccl(const std::string& kernel, void* comm, const RankBuffers& mine,
                                                  const LaunchOptions& options, Status& status) const {
  const Schedule* schedule = library_.find(kernel);
  if (!schedule) {
    status = Status::error(Code::InvalidArgument, "no schedule '" + kernel + "' in the kernel library");
    return nullptr;
  }
  std::string error;
  const NcclApi* nccl = ncclApi(error);
  if (!nccl) {
    status = Status::error(Code::NoDevice, error);
    return nullptr;
  }
  if (schedule->multicast) {
    status = multicastNeedsDevices(*schedule, "one process per GPU (the NCCL binding)");
    return nullptr;
  }
  int nranks = 0, rank = -1, device = -1;
  if (nccl->ncclCommCount(comm, &nranks) != ncclSuccess || nccl->ncclCommUserRank(comm, &rank) != ncclSuccess ||
      nccl->ncclCommCuDevice(comm, &device) != ncclSuccess) {
    status = Status::error(Code::NcclError, "cannot query the NCCL communicator");
    return nullptr;
  }
  if (nranks != schedule->ranks) {
    status = Status::error(Code::InvalidArgument, "the communicator has " + std::to_string(nranks) +
                                                      " ranks, the schedule " + std::to_string(schedule->ranks));
    return nullptr;
  }
  if (mine.rank != rank) {
    status = Status::error(Code::InvalidArgument, "rank " + std::to_string(mine.rank) +
                                                      " bound in the process of NCCL rank " + std::to_string(rank));
    return nullptr;
  }
  const Loaded* dev = loaded(device, status);
  if (!dev) return nullptr;
  if (status = validateOptions(options); !status.ok()) return nullptr;
  if (status = validateBuffers(*schedule, {mine}, RankCoverage::One, onDevice(device)); !status.ok()) return nullptr;
  auto c = std::make_unique<CudaCollective>(*schedule, options);
  if (status = c->init(dev->context); !status.ok()) return nullptr;
  c->setBuffers(mine);
  if (status = c->allocateRank(dev->context, rank); !status.ok()) return nullptr;

  // Exchange every rank's input, output, scratch and sync area as IPC handles.
  struct Exported {
    IpcBuffer buf[CC_NUM_BUFS + 1];
  };
  std::vector<Exported> all(static_cast<size_t>(nranks));
  Exported& own = all[size_t(rank)];
  for (int k = 0; k < CC_NUM_BUFS; ++k)
    if (status = exportIpc(c->bufTable()[size_t(rank) * CC_NUM_BUFS + k], own.buf[k]); !status.ok()) return nullptr;
  if (status = exportIpc(c->syncTable()[size_t(rank)], own.buf[CC_NUM_BUFS]); !status.ok()) return nullptr;
  auto staging = DeviceAllocation::create(dev->context, all.size() * sizeof(Exported), status);
  if (!staging) return nullptr;
  char* gathered = static_cast<char*>(staging->data());
  const CudaDriverApi& d = api();
  if (!dev->context->copyToDevice(gathered + size_t(rank) * sizeof(Exported), &own, sizeof own, error)) {
    status = Status::error(Code::CudaError, error);
    return nullptr;
  }
  // In place (sendbuff = recvbuff + rank * sendcount), on the legacy stream, then wait.
  if (ncclResult_t rc = nccl->ncclAllGather(gathered + size_t(rank) * sizeof(Exported), gathered, sizeof(Exported),
                                            /*ncclUint8*/ 1, comm, nullptr);
      rc != ncclSuccess) {
    status = Status::error(Code::NcclError, nccl->describe("ncclAllGather", rc));
    return nullptr;
  }
  if (status = cudaStatus(d, d.cuStreamSynchronize(nullptr), "cuStreamSynchronize"); !status.ok()) return nullptr;
  if (!dev->context->copyToHost(all.data(), gathered, all.size() * sizeof(Exported), error)) {
    status = Status::error(Code::CudaError, error);
    return nullptr;
  }
  auto mappings = std::make_unique<IpcMappings>(dev->context);
  for (int p = 0; p < nranks; ++p) {
    if (p == rank) continue;
    for (int k = 0; k < CC_NUM_BUFS; ++k)
      if (status = mappings->open(all[size_t(p)].buf[k], c->bufTable()[size_t(p) * CC_NUM_BUFS + k]); !status.ok())
        return nullptr;
    void* sync = nullptr;
    if (status = mappings->open(all[size_t(p)].buf[CC_NUM_BUFS], sync); !status.ok()) return nullptr;
    c->syncTable()[size_t(p)] = static_cast<cc_u64*>(sync);
  }
  c->ipc().push_back(std::move(mappings));
  if (status = c->addSlot(*dev, rank, 1); !status.ok()) return nullptr;
  if (status = c->writeTables(); !status.ok()) return nullptr;
  return c;
}

}  // namespace ccopt::rt
