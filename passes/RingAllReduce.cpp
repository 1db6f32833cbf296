//===- RingAllReduce.cpp - ring all-reduce schedules ----------------------===//
//
// The ring of Patarasuk & Yuan: n-1 reduce-scatter steps then n-1 all-gather
// steps around r -> r+1, written once for every rank (maps of the rank d0
// and loop indices), so the IR does not grow with the world.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

/// Builds the body of one ring all-reduce task. Maps take (r, c, s): the
/// rank, the pipelined chunk and the step within a phase.
class RingAllReduceBuilder {
public:
  RingAllReduceBuilder(OpBuilder &b, Location loc, int64_t n, int64_t chunks,
                       int64_t channels)
      : b(b), loc(loc), n(n), chunks(chunks), parts(n * chunks * channels) {}

  void buildTask(int64_t channel, bool inPlace, bool finalize, bool wire) {
    MLIRContext *ctx = b.getContext();
    AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
    AffineExpr s = getAffineDimExpr(2, ctx);
    if (n == 1) {
      if (!inPlace)
        CopyOp::create(b, loc, part(BufferKind::Input, {r}, channel, c, r),
                       part(BufferKind::Output, {r}, channel, c, r));
      return;
    }
    // Inside the chunk loop, maps take (r, c); inside step loops (r, c, s).
    auto next = peer(r + 1, 2), prev = peer(r + n - 1, 2);
    auto nextS = peer(r + 1, 3), prevS = peer(r + n - 1, 3);
    withLoop(0, chunks, [&] {
      // Reduce-scatter: step 0 sends the own part, steps 1..n-2 add and pass
      // on part r-s, step n-1 completes part r+1 and starts the all-gather.
      SendOp::create(b, loc, part(BufferKind::Input, {r, c}, channel, c, r),
                     next, part(BufferKind::Scratch, {r, c}, channel, c, r));
      withLoop(1, n - 1, [&] {
        AffineExpr j = r - s + n;
        RecvReduceSendOp::create(
            b, loc, prevS, part(BufferKind::Scratch, {r, c, s}, channel, c, j),
            part(BufferKind::Input, {r, c, s}, channel, c, j), PartAttr(),
            /*finalize=*/UnitAttr(), nextS,
            part(BufferKind::Scratch, {r, c, s}, channel, c, j));
      });
      AffineExpr owned = r + 1;
      if (wire) {
        buildWireAllGather(channel, r, c, s, prev, next, prevS, nextS);
        return;
      }
      RecvReduceSendOp::create(
          b, loc, prev, part(BufferKind::Scratch, {r, c}, channel, c, owned),
          part(BufferKind::Input, {r, c}, channel, c, owned),
          part(BufferKind::Output, {r, c}, channel, c, owned),
          finalize ? b.getUnitAttr() : UnitAttr(), next,
          part(BufferKind::Output, {r, c}, channel, c, owned));
      // All-gather: forward part r+1-s straight into the next rank's output.
      withLoop(1, n - 1, [&] {
        AffineExpr j = r + 1 - s + n;
        RecvCopySendOp::create(
            b, loc, prevS, part(BufferKind::Output, {r, c, s}, channel, c, j),
            nextS, part(BufferKind::Output, {r, c, s}, channel, c, j));
      });
      // The last part forwarded to this rank: r+2 (also for n = 2).
      RecvOp::create(b, loc, prev,
                     part(BufferKind::Output, {r, c}, channel, c, r + 2));
    });
  }

private:
  /// The end of the reduce-scatter and the all-gather over a narrow wire:
  /// the completed part stays in wire-typed scratch (the owner keeps the
  /// rounded value, as every other rank will), and each forwarded part is
  /// read once from scratch into the next rank's scratch and this output.
  void buildWireAllGather(int64_t channel, AffineExpr r, AffineExpr c,
                          AffineExpr s, AffineMapAttr prev, AffineMapAttr next,
                          AffineMapAttr prevS, AffineMapAttr nextS) {
    AffineExpr owned = r + 1;
    RecvReduceSendOp::create(
        b, loc, prev, part(BufferKind::Scratch, {r, c}, channel, c, owned),
        part(BufferKind::Input, {r, c}, channel, c, owned),
        part(BufferKind::Scratch, {r, c}, channel, c, owned), UnitAttr(), next,
        part(BufferKind::Scratch, {r, c}, channel, c, owned));
    CopyOp::create(b, loc, part(BufferKind::Scratch, {r, c}, channel, c, owned),
                   part(BufferKind::Output, {r, c}, channel, c, owned));
    withLoop(1, n - 1, [&] {
      AffineExpr j = r + 1 - s + n;
      RecvCopySendOp::create(
          b, loc, prevS, part(BufferKind::Scratch, {r, c, s}, channel, c, j),
          nextS, part(BufferKind::Scratch, {r, c, s}, channel, c, j),
          part(BufferKind::Output, {r, c, s}, channel, c, j));
    });
    RecvOp::create(b, loc, prev,
                   part(BufferKind::Scratch, {r, c}, channel, c, r + 2));
    CopyOp::create(b, loc, part(BufferKind::Scratch, {r, c}, channel, c, r + 2),
                   part(BufferKind::Output, {r, c}, channel, c, r + 2));
  }

  /// Part j (mod n) of pipelined chunk c on `channel`: the buffer is split
  /// into channels x chunks blocks of n parts each.
  PartAttr part(BufferKind kind, ArrayRef<AffineExpr> dims, int64_t channel,
                AffineExpr c, AffineExpr j) {
    unsigned numDims = dims.size();
    AffineExpr chunk = numDims > 1 ? c : getAffineConstantExpr(0, b.getContext());
    AffineExpr index = (chunk + channel * chunks) * n + j % n;
    return PartAttr::get(b.getContext(), kind,
                         AffineMap::get(numDims, 0, index), parts);
  }

  AffineMapAttr peer(AffineExpr rank, unsigned numDims) {
    return ringPeer(rank, n, numDims);
  }
  template <typename Fn> void withLoop(int64_t lower, int64_t upper, Fn body) {
    buildLoop(b, loc, lower, upper, body);
  }

  OpBuilder &b;
  Location loc;
  int64_t n, chunks, parts;
};

} // namespace

ProgramOp ccopt::buildRingAllReduce(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape, int64_t chunks,
                                    int64_t channels, const RingOrders &orders) {
  int64_t n = shape.ranks, count = shape.count;
  // Every pipelined piece keeps at least one element per ring part.
  int64_t blocks = std::max<int64_t>(1, count / n);
  int64_t numChannels = std::min<int64_t>(channels, blocks);
  int64_t numChunks =
      n == 1 ? 1 : std::max<int64_t>(1, std::min<int64_t>(chunks, blocks / numChannels));
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce,
                              shape, /*hasRedop=*/true, count, count,
                              /*scratch=*/n > 1 ? count : 0, std::nullopt,
                              "ring", numChannels, numChunks);
  OpBuilder::InsertionGuard guard(b);
  RingAllReduceBuilder ring(b, loc, n, numChunks, numChannels);
  bool finalize = shape.redop == ccl::ReductionKind::Avg && !program.getPrescale();
  bool wire = static_cast<bool>(program.getWire());
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    buildTask(b, loc, program, channel, orders);
    ring.buildTask(channel, shape.inPlace, finalize, wire);
  }
  return program;
}

ccopt::RingOrders ccopt::toScheduleRanks(const std::vector<std::vector<int>> &orders,
                                         llvm::ArrayRef<int> participants) {
  RingOrders out;
  for (const std::vector<int> &order : orders) {
    std::vector<int64_t> &ranks = out.emplace_back();
    for (int world : order)
      ranks.push_back(llvm::find(participants, world) - participants.begin());
  }
  return out;
}
