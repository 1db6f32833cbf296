#include "runtime/ccrt/Validate.h"

#include <cstdint>

namespace ccopt::rt {
namespace {

Status bad(const std::string& message) { return Status::error(Code::InvalidArgument, message); }

Status checkView(const Schedule& s, int rank, const BufferView& v, const char* which, int64_t want) {
  const std::string name = "rank " + std::to_string(rank) + " " + which;
  if (v.type != s.element)
    return bad(name + ": element type " + dtypeName(v.type) + ", the schedule was compiled for " +
               dtypeName(s.element));
  if (v.count != want)
    return bad(name + ": count " + std::to_string(v.count) + ", the schedule was compiled for " +
               std::to_string(want));
  const size_t bytes = size_t(want) * dtypeBytes(s.element);
  if (bytes == 0) return Status::success();
  if (!v.data) return bad(name + ": null pointer");
  if (uintptr_t(v.data) % dtypeBytes(s.element))
    return bad(name + ": misaligned (" + std::to_string(uintptr_t(v.data) % dtypeBytes(s.element)) +
               " bytes off a " + std::to_string(dtypeBytes(s.element)) + "-byte " + dtypeName(s.element) +
               " boundary)");
  if (v.capacityBytes < bytes)
    return bad(name + ": too small (" + std::to_string(v.capacityBytes) + " bytes, needs " + std::to_string(bytes) +
               ")");
  return Status::success();
}

}  // namespace

Status validateBuffers(const Schedule& s, const std::vector<RankBuffers>& buffers, RankCoverage coverage,
                       const std::function<Status(const RankBuffers&, const BufferView&, const char*)>& where) {
  if (coverage == RankCoverage::One && buffers.size() != 1)
    return bad("one process binds its own rank only: got " + std::to_string(buffers.size()) + " ranks' buffers");
  std::vector<bool> seen(size_t(s.ranks), false);
  for (const RankBuffers& b : buffers) {
    if (b.rank < 0 || b.rank >= s.ranks)
      return bad("rank " + std::to_string(b.rank) + " out of range: the schedule has " + std::to_string(s.ranks) +
                 " ranks");
    if (seen[size_t(b.rank)]) return bad("rank " + std::to_string(b.rank) + " bound twice");
    seen[size_t(b.rank)] = true;
    if (Status st = checkView(s, b.rank, b.input, "input", s.inputCount); !st.ok()) return st;
    if (Status st = checkView(s, b.rank, b.output, "output", s.outputCount); !st.ok()) return st;
    const uintptr_t in = uintptr_t(b.input.data), out = uintptr_t(b.output.data);
    const size_t inBytes = s.inputBytes(), outBytes = s.outputBytes();
    if (s.inPlace && in != out && inBytes && outBytes)
      return bad("rank " + std::to_string(b.rank) +
                 ": the schedule is in place: input and output must be the same buffer");
    // A send_recv rank only reads (sender) or only writes (receiver): one buffer may serve both.
    if (!s.inPlace && s.collective != "send_recv" && inBytes && outBytes && in < out + outBytes &&
        out < in + inBytes)
      return bad("rank " + std::to_string(b.rank) +
                 ": input and output overlap, but the schedule was compiled out of place");
    if (where) {
      if (Status st = where(b, b.input, "input"); !st.ok()) return st;
      if (Status st = where(b, b.output, "output"); !st.ok()) return st;
    }
  }
  if (coverage == RankCoverage::All)
    for (int r = 0; r < s.ranks; ++r)
      if (!seen[size_t(r)]) return bad("no buffers for rank " + std::to_string(r));
  return Status::success();
}

Status validateOptions(const LaunchOptions& o) {
  if (o.threadsPerBlock < 32 || o.threadsPerBlock > 1024 || o.threadsPerBlock % 32)
    return bad("threads per block " + std::to_string(o.threadsPerBlock) + ": must be a multiple of 32 in [32, 1024]");
  if (o.timeout.count() < 0) return bad("negative timeout");
  return Status::success();
}

}  // namespace ccopt::rt
