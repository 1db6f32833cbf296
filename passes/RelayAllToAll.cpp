//===- RelayAllToAll.cpp - all-to-all over the machine's own links --------===//
//
// On a machine whose fast links do not join every pair of GPUs (v100x8's
// hybrid cube mesh: each GPU has NVLinks to four of the seven others), a
// direct all-to-all sends the other pairs' blocks over PCIe and the
// sockets' link, many times slower. Here those blocks take two NVLink hops
// instead: the sender writes the block into a scratch slot of a GPU linked
// to both (the relay), which forwards it. Direct blocks go on channels
// [0, L) and relayed ones on [L, L + L*K), piece k of each on [L + L*k,
// L + L*(k+1)), so that between two ranks on one channel the messages are
// of one kind and come in the same order on both sides (sorted by
// distance, then source). Every rank has its own tasks: who relays what
// depends on the links. The all-gather is the same exchange with one block
// for everyone: a relayed block goes to its relay twice (once for it, once
// to forward), so it pays where latency rules (two hops, not a ring's n-1).
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

/// One relayed block: from `src` to `dst` through the relay, in its
/// scratch slot `slot`.
struct Job {
  int64_t src, dst, slot;
};

/// The all-to-all, or with `gather` the all-gather (`shape.count`: the
/// block each rank sends).
ProgramOp buildRelay(OpBuilder &b, Location loc, StringRef name,
                     const ccopt::AllReduceShape &shape,
                     const std::vector<std::vector<int64_t>> &via, int64_t channels,
                     bool gather) {
  int64_t n = shape.ranks;
  assert(!shape.inPlace && (gather || shape.count % n == 0) && "out of place, whole blocks");
  int64_t lanes = std::clamp<int64_t>(channels, 1, std::max<int64_t>(1, n - 1));
  auto laneOf = [&](int64_t src, int64_t dst) { return ((dst - src + n) % n - 1) % lanes; };
  // Each relay's jobs, by (distance, source): a slot each.
  std::vector<std::vector<Job>> jobs(n);
  for (int64_t s = 1; s < n; ++s)
    for (int64_t src = 0; src < n; ++src) {
      int64_t dst = (src + s) % n, relay = via[src][dst];
      if (relay >= 0)
        jobs[relay].push_back({src, dst, int64_t(jobs[relay].size())});
    }
  int64_t slots = 0;
  for (const auto &list : jobs)
    slots = std::max<int64_t>(slots, list.size());
  int64_t block = gather ? shape.count : shape.count / n;
  // Relayed blocks take two hops one after the other on their channel:
  // with channels to spare they go in pieces, each on a channel of its own,
  // so that one piece's second hop overlaps the next one's first.
  int64_t pieces = slots ? std::clamp<int64_t>(channels / (lanes + 1), 1, block) : 1;
  auto program = buildProgram(b, loc, name,
                              gather ? ccl::CollectiveKind::AllGather
                                     : ccl::CollectiveKind::AllToAll,
                              shape, /*hasRedop=*/false, gather ? block : shape.count,
                              n * block, slots * block, std::nullopt, "relay",
                              slots ? lanes + lanes * pieces : lanes, /*chunks=*/1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  auto part = [&](BufferKind kind, int64_t index, int64_t parts) {
    return fixedPart(ctx, kind, index, parts);
  };
  auto blockOf = [&](BufferKind kind, int64_t j) { return part(kind, j, n); };
  int64_t piece = 0; // of a relayed block, on the channel being built
  auto pieceOf = [&](BufferKind kind, int64_t j) {
    return part(kind, j * pieces + piece, n * pieces);
  };
  // What this rank sends `dst`: its block for it, or its one block.
  auto sent = [&](int64_t dst) {
    return gather ? part(BufferKind::Input, 0, 1) : blockOf(BufferKind::Input, dst);
  };
  auto sentPiece = [&](int64_t dst) {
    return gather ? part(BufferKind::Input, piece, pieces) : pieceOf(BufferKind::Input, dst);
  };
  auto slotOf = [&](int64_t k) {
    return part(BufferKind::Scratch, k * pieces + piece, slots * pieces);
  };
  auto rankAt = [&](int64_t r) { return fixedPeer(ctx, r); };
  for (int64_t lane = 0; lane < lanes; ++lane)
    for (int64_t r = 0; r < n; ++r) {
      // Direct blocks: the own one, then out and in by distance.
      buildRankTask(b, loc, program, lane, r);
      if (lane == 0)
        CopyOp::create(b, loc, sent(r), blockOf(BufferKind::Output, r));
      for (int64_t s = lane + 1; s < n; s += lanes)
        if (int64_t dst = (r + s) % n; via[r][dst] < 0)
          SendOp::create(b, loc, sent(dst), rankAt(dst), blockOf(BufferKind::Output, r));
      for (int64_t s = lane + 1; s < n; s += lanes)
        if (int64_t src = (r - s + n) % n; via[src][r] < 0)
          RecvOp::create(b, loc, rankAt(src), blockOf(BufferKind::Output, src));
      for (piece = 0; slots && piece < pieces; ++piece) {
        // Relayed blocks: this rank's first hops, its forwards, its arrivals.
        buildRankTask(b, loc, program, lanes + lanes * piece + lane, r);
        for (int64_t s = lane + 1; s < n; s += lanes)
          if (int64_t dst = (r + s) % n, relay = via[r][dst]; relay >= 0) {
            const Job &job = *llvm::find_if(jobs[relay], [&](const Job &j) {
              return j.src == r && j.dst == dst;
            });
            SendOp::create(b, loc, sentPiece(dst), rankAt(relay), slotOf(job.slot));
          }
        for (const Job &job : jobs[r])
          if (laneOf(job.src, job.dst) == lane) {
            RecvOp::create(b, loc, rankAt(job.src), slotOf(job.slot));
            SendOp::create(b, loc, slotOf(job.slot), rankAt(job.dst),
                           pieceOf(BufferKind::Output, job.src));
          }
        for (int64_t s = lane + 1; s < n; s += lanes)
          if (int64_t src = (r - s + n) % n, relay = via[src][r]; relay >= 0)
            RecvOp::create(b, loc, rankAt(relay), pieceOf(BufferKind::Output, src));
      }
    }
  return program;
}

} // namespace

ProgramOp ccopt::buildRelayAllToAll(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape,
                                    const std::vector<std::vector<int64_t>> &via,
                                    int64_t channels) {
  return buildRelay(b, loc, name, shape, via, channels, /*gather=*/false);
}

ProgramOp ccopt::buildRelayAllGather(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape,
                                     const std::vector<std::vector<int64_t>> &via,
                                     int64_t channels) {
  return buildRelay(b, loc, name, shape, via, channels, /*gather=*/true);
}
