#include "tools/ccbench/GpuBench.h"

#include "runtime/ccrt/CudaRunner.h"
#include "runtime/nccl/NcclLibrary.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace ccopt::bench {

using rt::Code;
using rt::Status;

namespace {
const rt::CudaDriverApi& api() {
  std::string ignored;
  return *rt::cudaDriverApi(ignored);
}
}  // namespace

std::unique_ptr<GpuBench> GpuBench::create(const Options& o, Status& status) {
  const rt::DeviceStatus dev = rt::probeCudaDevices();
  if (!dev.available) {
    status = Status::error(Code::NoDevice, dev.reason);
    return nullptr;
  }
  const int gpus = o.devices ? o.ranks : 1;
  if (gpus > dev.count) {
    status = Status::error(Code::NoDevice, std::to_string(o.ranks) + " ranks on their own GPUs, but the machine has " +
                                               std::to_string(dev.count));
    return nullptr;
  }
  std::unique_ptr<GpuBench> b(new GpuBench(o));
  const rt::CudaDriverApi& d = api();
  for (int g = 0; g < gpus; ++g) {
    std::string error;
    auto ctx = rt::CudaContext::primary(g, error);
    if (!ctx) {
      status = Status::error(Code::CudaError, error);
      return nullptr;
    }
    void* stream = nullptr;
    if (!ctx->makeCurrent(error)) {
      status = Status::error(Code::CudaError, error);
      return nullptr;
    }
    if (status = rt::cudaStatus(d, d.cuStreamCreate(&stream, rt::CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        !status.ok())
      return nullptr;
    b->contexts_.push_back(std::move(ctx));
    b->streams_.push_back(stream);
  }
  if (o.nccl && o.devices) {
    std::string error;
    if (const rt::NcclApi* nccl = rt::ncclApi(error)) {
      std::vector<int> devlist(size_t(o.ranks));
      for (int r = 0; r < o.ranks; ++r) devlist[size_t(r)] = r;
      b->comms_.assign(size_t(o.ranks), nullptr);
      if (rt::ncclResult_t rc = nccl->ncclCommInitAll(b->comms_.data(), o.ranks, devlist.data()); rc != rt::ncclSuccess) {
        b->ncclNote_ = nccl->describe("ncclCommInitAll", rc);
        b->comms_.clear();
      }
    } else {
      b->ncclNote_ = error;
    }
  } else if (o.nccl) {
    b->ncclNote_ = "NCCL needs a GPU per rank (--devices)";
  }
  status = Status::success();
  return b;
}

GpuBench::~GpuBench() {
  std::string ignored;
  if (const rt::NcclApi* nccl = rt::ncclApi(ignored))
    for (void* c : comms_) nccl->ncclCommDestroy(c);
  in_.clear();
  out_.clear();
  for (size_t g = 0; g < streams_.size(); ++g)
    if (contexts_[g]->makeCurrent(ignored)) api().cuStreamDestroy(streams_[g]);
}

std::string GpuBench::describe() const {
  std::string s = o_.devices ? std::to_string(o_.ranks) + " GPUs (one rank each, peer access)"
                             : std::to_string(o_.ranks) + " virtual ranks on GPU 0";
  s += ", sm_" + std::to_string(contexts_[0]->smArch());
  if (!ncclNote_.empty()) s += "; nccl: " + ncclNote_;
  return s;
}

void GpuBench::precompile(const std::vector<rt::KernelLibrary>& libraries, int jobs) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int j = 0; j < std::max(1, jobs); ++j)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < libraries.size();)
        cache_.compile(rt::cudaProgramSource(libraries[i]), "ccopt_kernels.cu", contexts_[0]->smArch());
    });
  for (std::thread& w : workers) w.join();
}

Status GpuBench::allocate(const Shape& s) {
  const size_t elem = rt::dtypeBytes(s.type);
  in_.clear();
  out_.clear();
  std::vector<char> host(size_t(s.inputCount) * elem);
  for (int r = 0; r < s.ranks; ++r) {
    Status st;
    in_.push_back(rt::DeviceAllocation::create(contextOf(r), size_t(s.inputCount) * elem, st));
    if (!st.ok()) return st;
    out_.push_back(rt::DeviceAllocation::create(contextOf(r), size_t(s.outputCount) * elem, st));
    if (!st.ok()) return st;
    fillInput(s, r, host.data());
    std::string error;
    if (!contextOf(r)->copyToDevice(in_.back()->data(), host.data(), host.size(), error))
      return Status::error(Code::CudaError, error);
  }
  return clearOutputs(s);
}

Status GpuBench::clearOutputs(const Shape& s) {
  for (int r = 0; r < s.ranks; ++r) {
    std::string error;
    if (!contextOf(r)->makeCurrent(error)) return Status::error(Code::CudaError, error);
    if (Status st = rt::cudaStatus(api(), api().cuMemsetD8(rt::CUdeviceptr(uintptr_t(out_[size_t(r)]->data())), 0xff,
                                                           out_[size_t(r)]->bytes()),
                                   "cuMemsetD8");
        !st.ok())
      return st;
  }
  // The memsets and copies ran on the legacy stream; the sweep's streams do not wait for it.
  for (const auto& ctx : contexts_) {
    std::string error;
    if (!ctx->synchronize(error)) return Status::error(Code::CudaError, error);
  }
  return Status::success();
}

// Warm-up, then iterations between events on every GPU's stream; the slowest GPU's time.
Status GpuBench::timed(const std::function<Status()>& step, Result& result) {
  const rt::CudaDriverApi& d = api();
  for (int i = 0; i < o_.warmup; ++i)
    if (Status s = step(); !s.ok()) return s;
  std::vector<rt::CUevent> start(streams_.size()), stop(streams_.size());
  for (size_t g = 0; g < streams_.size(); ++g) {
    std::string error;
    contexts_[g]->makeCurrent(error);
    d.cuEventCreate(&start[g], 0);
    d.cuEventCreate(&stop[g], 0);
    d.cuEventRecord(start[g], streams_[g]);
  }
  Status st;
  for (int i = 0; i < o_.iters && st.ok(); ++i) st = step();
  float worst = 0;
  for (size_t g = 0; g < streams_.size(); ++g) {
    std::string error;
    contexts_[g]->makeCurrent(error);
    d.cuEventRecord(stop[g], streams_[g]);
    if (Status s = rt::cudaStatus(d, d.cuEventSynchronize(stop[g]), "cuEventSynchronize"); !s.ok() && st.ok()) st = s;
    float ms = 0;
    d.cuEventElapsedTime(&ms, start[g], stop[g]);
    worst = std::max(worst, ms);
    d.cuEventDestroy(start[g]);
    d.cuEventDestroy(stop[g]);
  }
  if (!st.ok()) return st;
  result.us = double(worst) * 1e3 / o_.iters;
  result.ran = true;
  return Status::success();
}

int64_t GpuBench::check(const Shape& s) {
  if (!o_.check) return 0;
  int64_t wrong = 0;
  std::vector<char> host(size_t(s.outputCount) * rt::dtypeBytes(s.type));
  for (int r = 0; r < s.ranks; ++r) {
    std::string error;
    if (!contextOf(r)->copyToHost(host.data(), out_[size_t(r)]->data(), host.size(), error)) return s.outputCount;
    wrong += countWrong(s, r, host.data());
  }
  return wrong;
}

Status GpuBench::runCcopt(const Shape& s, const rt::KernelLibrary& lib, Result& result) {
  if (Status st = allocate(s); !st.ok()) return st;
  std::vector<int> devices;
  for (size_t g = 0; g < contexts_.size(); ++g) devices.push_back(int(g));
  Status st;
  auto program = rt::CudaProgram::compile(lib, devices, cache_, st);
  if (!program) return st;
  std::vector<rt::RankBuffers> views;
  for (int r = 0; r < s.ranks; ++r) {
    rt::RankBuffers b;
    b.rank = r;
    b.device = o_.devices ? r : 0;
    b.input = {in_[size_t(r)]->data(), s.inputCount, s.type, in_[size_t(r)]->bytes()};
    b.output = {out_[size_t(r)]->data(), s.outputCount, s.type, out_[size_t(r)]->bytes()};
    views.push_back(b);
  }
  rt::LaunchOptions lo;
  lo.timeout = std::chrono::nanoseconds(int64_t(o_.timeoutSeconds * 1e9));
  const std::string& kernel = lib.schedules[0].kernel;
  auto c = o_.devices ? program->bindDevices(kernel, views, lo, st)
                      : program->bindVirtualRanks(kernel, 0, views, lo, st);
  if (!c) return st;
  if (st = timed([&] { return c->launch(streams_); }, result); !st.ok()) return st;
  if (st = c->asyncError(); !st.ok()) return st;
  result.wrong = check(s);
  return Status::success();
}

void GpuBench::runNccl(const Shape& s, Result& result) {
  std::string error;
  const rt::NcclApi* nccl = rt::ncclApi(error);
  if (comms_.empty() || !nccl) return;
  if (!clearOutputs(s).ok()) return;
  const rt::ncclDataType_t type = rt::ncclTypeOf(rt::dtypeName(s.type));
  const rt::ncclRedOp_t op = rt::ncclOpOf(s.redop);
  auto step = [&]() -> Status {
    nccl->ncclGroupStart();
    for (int r = 0; r < s.ranks; ++r) {
      const void* in = in_[size_t(r)]->data();
      void* out = out_[size_t(r)]->data();
      void* comm = comms_[size_t(r)];
      void* stream = streams_[size_t(r)];
      if (s.collective == "all_reduce") nccl->ncclAllReduce(in, out, size_t(s.inputCount), type, op, comm, stream);
      else if (s.collective == "reduce_scatter")
        nccl->ncclReduceScatter(in, out, size_t(s.outputCount), type, op, comm, stream);
      else if (s.collective == "all_gather") nccl->ncclAllGather(in, out, size_t(s.inputCount), type, comm, stream);
      else nccl->ncclBroadcast(in, out, size_t(s.inputCount), type, s.root, comm, stream);
    }
    if (rt::ncclResult_t rc = nccl->ncclGroupEnd(); rc != rt::ncclSuccess)
      return Status::error(Code::NcclError, nccl->describe("ncclGroupEnd", rc));
    return Status::success();
  };
  if (!timed(step, result).ok()) {
    result.ran = false;
    return;
  }
  result.wrong = check(s);
}

}  // namespace ccopt::bench
