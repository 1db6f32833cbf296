#include "api/Executable.h"

#include "api/Buckets.h"
#include "runtime/ccrt/HostRunner.h"
#ifdef CCOPT_HAVE_CUDA_RUNTIME
#include "runtime/ccrt/CudaRunner.h"
#endif

#include <chrono>
#include <set>

namespace ccopt {

using rt::Code;
using rt::Status;

struct Executable::Backend {
  std::unique_ptr<rt::HostProgram> host;
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  std::unique_ptr<rt::CudaProgram> cuda;
#endif
};

Executable::~Executable() = default;

std::unique_ptr<Executable> Executable::load(const CompiledProgram& program, const Target& target, Status& status) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Executable> exe(new Executable());
  exe->program_ = program;
  exe->target_ = target;
  exe->backend_ = std::make_unique<Backend>();
  if (target.kind == Target::Kind::Host) {
    exe->backend_->host = rt::HostProgram::compile(program.library, status);
    if (!exe->backend_->host) return nullptr;
  } else {
#ifdef CCOPT_HAVE_CUDA_RUNTIME
    // Devices: compiled lazily at bind, when the ranks' devices are known.
    if (target.kind != Target::Kind::Devices) {
      rt::JitCache cache(target.cacheDir.empty() ? rt::JitCache::defaultDir() : target.cacheDir);
      exe->backend_->cuda = rt::CudaProgram::compile(program.library, {target.device}, cache, status);
      if (!exe->backend_->cuda) return nullptr;
    }
#else
    status = Status::error(Code::NotSupported, "built without the CUDA runtime (no NVRTC at build time)");
    return nullptr;
#endif
  }
  exe->loadSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  status = Status::success();
  return exe;
}

Status Executable::bind(const std::vector<RankMemory>& ranks) {
  std::map<int, const RankMemory*> byRank;
  for (const RankMemory& m : ranks) {
    if (m.rank < 0 || m.rank >= program_.ranks)
      return Status::error(Code::InvalidArgument, "rank " + std::to_string(m.rank) + " out of range: the program has " +
                                                      std::to_string(program_.ranks) + " ranks");
    if (!byRank.emplace(m.rank, &m).second)
      return Status::error(Code::InvalidArgument, "rank " + std::to_string(m.rank) + " given twice");
  }
  // Members checked and buckets allocated before any step binds.
  Status bucketStatus;
  std::unique_ptr<BucketMemory> buckets = BucketMemory::bind(program_, target_, ranks, bucketStatus);
  if (!buckets) return bucketStatus;
  // A buffer name (or bucket) of a rank as a view; `name` empty: no buffer.
  auto view = [&](const RankMemory& m, const std::string& name, int bucket, rt::BufferView& v) -> Status {
    if (bucket >= 0) {
      const BucketDecl& decl = program_.buckets[size_t(bucket)];
      const Memory mem = buckets->memory(bucket, m.rank);
      v = {mem.data, decl.count, decl.type, mem.bytes};
      return Status::success();
    }
    if (name.empty()) return Status::success();
    auto decl = program_.buffers.find(name);
    auto mem = m.buffers.find(name);
    if (decl == program_.buffers.end())
      return Status::error(Code::Internal, "step buffer '" + name + "' is not declared");
    if (mem == m.buffers.end())
      return Status::error(Code::InvalidArgument, "rank " + std::to_string(m.rank) + " has no buffer '" + name + "'");
    v = {mem->second.data, decl->second.count, decl->second.type, mem->second.bytes};
    return Status::success();
  };
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  if (target_.kind == Target::Kind::Devices && !backend_->cuda) {
    std::vector<int> devices;
    for (const RankMemory& m : ranks) devices.push_back(m.device);
    Status s;
    rt::JitCache cache(target_.cacheDir.empty() ? rt::JitCache::defaultDir() : target_.cacheDir);
    backend_->cuda = rt::CudaProgram::compile(program_.library, devices, cache, s);
    if (!backend_->cuda) return s;
  }
#endif
  std::vector<std::unique_ptr<rt::Collective>> bound;
  for (const CompiledStep& step : program_.steps) {
    const rt::Schedule* s = program_.library.find(step.kernel);
    if (!s) return Status::error(Code::Internal, "no schedule for " + step.kernel);
    std::vector<rt::RankBuffers> buffers;
    for (int i = 0; i < s->ranks; ++i) {
      const int world = s->rankMap.empty() ? i : s->rankMap[size_t(i)];
      auto it = byRank.find(world);
      if (it == byRank.end()) {
        if (target_.kind == Target::Kind::Nccl) continue;
        return Status::error(Code::InvalidArgument, "no memory for rank " + std::to_string(world));
      }
      rt::RankBuffers b;
      b.rank = i;
      b.device = it->second->device;
      if (Status st = view(*it->second, step.input, step.inputBucket, b.input); !st.ok()) return st;
      if (Status st = view(*it->second, step.output, step.outputBucket, b.output); !st.ok()) return st;
      if (step.input.empty()) b.input.type = s->element;
      if (step.output.empty()) b.output.type = s->element;
      buffers.push_back(b);
    }
    Status st;
    std::unique_ptr<rt::Collective> c;
    switch (target_.kind) {
      case Target::Kind::Host: c = backend_->host->bind(step.kernel, buffers, target_.launch, st); break;
#ifdef CCOPT_HAVE_CUDA_RUNTIME
      case Target::Kind::VirtualRanks:
        c = backend_->cuda->bindVirtualRanks(step.kernel, target_.device, buffers, target_.launch, st);
        break;
      case Target::Kind::Devices: c = backend_->cuda->bindDevices(step.kernel, buffers, target_.launch, st); break;
      case Target::Kind::Nccl:
        if (!s->rankMap.empty())
          return Status::error(Code::NotSupported, step.kernel + ": a group's collective under NCCL needs the "
                                                                 "group's communicator");
        if (buffers.size() != 1)
          return Status::error(Code::InvalidArgument, "under NCCL, bind this process's rank only");
        c = backend_->cuda->bindNccl(step.kernel, target_.ncclComm, buffers[0], target_.launch, st);
        break;
#endif
      default: return Status::error(Code::NotSupported, "target not built");
    }
    if (!c) return Status::error(st.code, step.kernel + ": " + st.message);
    bound.push_back(std::move(c));
  }
  steps_ = std::move(bound);  // the old steps settle before their buckets go
  buckets_ = std::move(buckets);
  return Status::success();
}

Status Executable::run(const std::vector<void*>& streams) {
  if (steps_.empty() && !program_.steps.empty()) return Status::error(Code::InvalidUsage, "run before bind");
  for (size_t i = 0; i < steps_.size(); ++i) {
    const CompiledStep& step = program_.steps[i];
    if (step.inputBucket >= 0)
      if (Status s = buckets_->copyIn(step.inputBucket, streams); !s.ok()) return s;
    if (Status s = steps_[i]->launch(streams); !s.ok()) return s;
    if (step.outputBucket >= 0)
      if (Status s = buckets_->copyOut(step.outputBucket, streams); !s.ok()) return s;
  }
  return Status::success();
}

Status Executable::asyncError() const {
  for (const auto& step : steps_)
    if (Status s = step->asyncError(); !s.ok()) return s;
  return Status::success();
}

void Executable::abort() {
  for (auto& step : steps_) step->abort();
}

Status Executable::reset() {
  for (auto& step : steps_)
    if (Status s = step->reset(); !s.ok()) return s;
  return Status::success();
}

}  // namespace ccopt
