#include "api/Buckets.h"

#ifdef CCOPT_HAVE_CUDA_RUNTIME
#include "runtime/ccrt/CudaBuffers.h"
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace ccopt {

using rt::Code;
using rt::Status;

namespace {

Status bad(const std::string& message) { return Status::error(Code::InvalidArgument, message); }

/// The world ranks that run a step on each bucket, ascending.
std::vector<std::set<int>> participants(const CompiledProgram& program, Status& status) {
  std::vector<std::set<int>> ranks(program.buckets.size());
  for (const CompiledStep& step : program.steps) {
    if (step.inputBucket < 0 && step.outputBucket < 0) continue;
    const rt::Schedule* s = program.library.find(step.kernel);
    if (!s) {
      status = Status::error(Code::Internal, "no schedule for " + step.kernel);
      return {};
    }
    for (int i = 0; i < s->ranks; ++i)
      for (int bucket : {step.inputBucket, step.outputBucket})
        if (bucket >= 0) ranks[size_t(bucket)].insert(s->rankMap.empty() ? i : s->rankMap[size_t(i)]);
  }
  return ranks;
}

/// Whether `bucket` is written by a step (its members receive results).
bool writtenBack(const CompiledProgram& program, int bucket) {
  return std::any_of(program.steps.begin(), program.steps.end(),
                     [&](const CompiledStep& s) { return s.outputBucket == bucket; });
}

}  // namespace

/// Bucket memory of one rank: host (aligned_alloc) or a device allocation.
struct BucketMemory::Allocation {
  void* host = nullptr;
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  std::unique_ptr<rt::DeviceAllocation> device;
#endif
  ~Allocation() { std::free(host); }
  void* data() const {
#ifdef CCOPT_HAVE_CUDA_RUNTIME
    if (device) return device->data();
#endif
    return host;
  }
};

struct BucketMemory::RankBucket {
  struct Member {
    void* data;
    size_t offsetBytes, bytes;
  };
  int rank = 0;
  size_t stream = 0;  // index into run()'s streams
  size_t bytes = 0;
  std::unique_ptr<Allocation> memory;
  std::vector<Member> members;
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  std::shared_ptr<rt::CudaContext> context;
#endif
};

std::unique_ptr<BucketMemory> BucketMemory::bind(const CompiledProgram& program, const Target& target,
                                                 const std::vector<RankMemory>& ranks, Status& status) {
  status = Status::success();
  std::unique_ptr<BucketMemory> result(new BucketMemory());
  result->kind_ = target.kind;
  result->buckets_.resize(program.buckets.size());
  const std::vector<std::set<int>> users = participants(program, status);
  if (!status.ok()) return nullptr;
  // Devices: one stream per rank, in rank order; otherwise one stream.
  std::vector<int> order;
  for (const RankMemory& m : ranks) order.push_back(m.rank);
  std::sort(order.begin(), order.end());

  // Every member of every rank is checked before anything is allocated.
  for (size_t b = 0; b < program.buckets.size(); ++b) {
    const BucketDecl& bucket = program.buckets[b];
    const size_t elementBytes = rt::dtypeBytes(bucket.type);
    const bool written = writtenBack(program, int(b));
    for (const RankMemory& m : ranks) {
      if (!users[b].count(m.rank)) continue;
      const std::string rank = "rank " + std::to_string(m.rank);
      RankBucket rb;
      rb.rank = m.rank;
      rb.stream = target.kind == Target::Kind::Devices
                      ? size_t(std::lower_bound(order.begin(), order.end(), m.rank) - order.begin())
                      : 0;
      rb.bytes = size_t(bucket.count) * elementBytes;
      for (const BucketMember& member : bucket.members) {
        const std::string name = rank + " buffer '" + member.buffer + "' (bucket '" + bucket.name + "')";
        auto mem = m.buffers.find(member.buffer);
        if (mem == m.buffers.end()) {
          status = bad(rank + " has no buffer '" + member.buffer + "'");
          return nullptr;
        }
        const size_t bytes = size_t(member.count) * elementBytes;
        const void* data = mem->second.data;
        if (bytes && !data) status = bad(name + ": null pointer");
        else if (bytes && uintptr_t(data) % elementBytes)
          status = bad(name + ": misaligned (" + std::to_string(uintptr_t(data) % elementBytes) + " bytes off a " +
                       std::to_string(elementBytes) + "-byte " + rt::dtypeName(bucket.type) + " boundary)");
        else if (mem->second.bytes < bytes)
          status = bad(name + ": too small (" + std::to_string(mem->second.bytes) + " bytes, needs " +
                       std::to_string(bytes) + ")");
#ifdef CCOPT_HAVE_CUDA_RUNTIME
        else if (bytes && target.kind != Target::Kind::Host)
          status = rt::checkDevicePointer(data, bytes,
                                          target.kind == Target::Kind::Devices ? m.device : target.device, name);
#endif
        if (!status.ok()) return nullptr;
        rb.members.push_back({mem->second.data, size_t(member.offset) * elementBytes, bytes});
      }
      // Results of two members must not land in the same memory.
      if (written) {
        std::vector<std::pair<uintptr_t, size_t>> spans;  // (start, member index)
        for (size_t i = 0; i < rb.members.size(); ++i)
          if (rb.members[i].bytes) spans.push_back({uintptr_t(rb.members[i].data), i});
        std::sort(spans.begin(), spans.end());
        for (size_t i = 1; i < spans.size(); ++i) {
          const RankBucket::Member& prev = rb.members[spans[i - 1].second];
          if (spans[i].first < uintptr_t(prev.data) + prev.bytes) {
            status = bad(rank + ": buffers '" + bucket.members[spans[i - 1].second].buffer + "' and '" +
                         bucket.members[spans[i].second].buffer + "' of bucket '" + bucket.name + "' overlap");
            return nullptr;
          }
        }
      }
      result->buckets_[b].push_back(std::move(rb));
    }
  }

  // Then each rank's buckets where its buffers live.
  for (size_t b = 0; b < program.buckets.size(); ++b)
    for (RankBucket& rb : result->buckets_[b]) {
      rb.memory = std::make_unique<Allocation>();
      if (target.kind == Target::Kind::Host) {
        // Rounded up: aligned_alloc wants a multiple of the alignment.
        rb.memory->host = std::aligned_alloc(64, std::max<size_t>(64, (rb.bytes + 63) / 64 * 64));
        if (!rb.memory->host) {
          status = Status::error(Code::Internal, "out of host memory for bucket '" + program.buckets[b].name + "'");
          return nullptr;
        }
        continue;
      }
#ifdef CCOPT_HAVE_CUDA_RUNTIME
      const RankMemory* m = nullptr;
      for (const RankMemory& r : ranks)
        if (r.rank == rb.rank) m = &r;
      const int device = target.kind == Target::Kind::Devices ? m->device : target.device;
      std::string error;
      if (!(rb.context = rt::CudaContext::primary(device, error))) {
        status = Status::error(error.rfind("no CUDA device", 0) == 0 ? Code::NoDevice : Code::CudaError, error);
        return nullptr;
      }
      rb.memory->device = rt::DeviceAllocation::create(rb.context, rb.bytes, status);
      if (!rb.memory->device) return nullptr;
#else
      status = Status::error(Code::NotSupported, "built without the CUDA runtime (no NVRTC at build time)");
      return nullptr;
#endif
    }
  return result;
}

BucketMemory::~BucketMemory() {
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  // Copies still in flight read or write the memory freed below.
  std::set<const rt::CudaContext*> done;
  for (const auto& bucket : buckets_)
    for (const RankBucket& rb : bucket)
      if (rb.context && done.insert(rb.context.get()).second) {
        std::string ignored;
        rb.context->synchronize(ignored);
      }
#endif
}

Memory BucketMemory::memory(int bucket, int rank) const {
  for (const RankBucket& rb : buckets_[size_t(bucket)])
    if (rb.rank == rank) return {rb.memory->data(), rb.bytes};
  return {};
}

Status BucketMemory::copyIn(int bucket, const std::vector<void*>& streams) const { return copy(bucket, true, streams); }

Status BucketMemory::copyOut(int bucket, const std::vector<void*>& streams) const {
  return copy(bucket, false, streams);
}

Status BucketMemory::copy(int bucket, bool in, const std::vector<void*>& streams) const {
  const std::vector<RankBucket>& ranks = buckets_[size_t(bucket)];
  if (kind_ == Target::Kind::Host) {
    for (const RankBucket& rb : ranks) {
      char* base = static_cast<char*>(rb.memory->data());
      for (const RankBucket::Member& m : rb.members) {
        if (!m.bytes) continue;
        if (in) std::memcpy(base + m.offsetBytes, m.data, m.bytes);
        else std::memcpy(m.data, base + m.offsetBytes, m.bytes);
      }
    }
    return Status::success();
  }
#ifdef CCOPT_HAVE_CUDA_RUNTIME
  for (const RankBucket& rb : ranks)
    if (!streams.empty() && rb.stream >= streams.size())
      return bad("launch: " + std::to_string(streams.size()) + " streams, rank " + std::to_string(rb.rank) +
                 " needs stream " + std::to_string(rb.stream));
  for (const RankBucket& rb : ranks) {
    void* stream = streams.empty() ? nullptr : streams[rb.stream];
    char* base = static_cast<char*>(rb.memory->data());
    for (const RankBucket::Member& m : rb.members) {
      if (!m.bytes) continue;
      std::string error;
      const bool ok = in ? rb.context->copyAsync(base + m.offsetBytes, m.data, m.bytes, stream, error)
                         : rb.context->copyAsync(m.data, base + m.offsetBytes, m.bytes, stream, error);
      if (!ok) return Status::error(Code::CudaError, error);
    }
  }
  return Status::success();
#else
  (void)in;
  (void)streams;
  return Status::error(Code::NotSupported, "built without the CUDA runtime (no NVRTC at build time)");
#endif
}

}  // namespace ccopt
