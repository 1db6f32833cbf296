//===- RingScatterGather.cpp - ring reduce-scatter and all-gather ---------===//
//
// The two halves of the ring all-reduce as collectives of their own: n-1
// steps around r -> r+1, written once for every rank. Rank j's block of the
// n-block buffer is contiguous (elements [j*m, (j+1)*m)), split into a
// share per channel, and each share into `chunks` pipelined pieces (one
// more on odd channels when staggered).
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

enum class Half { ReduceScatter, AllGather };

class RingHalfBuilder {
public:
  RingHalfBuilder(OpBuilder &b, Location loc, int64_t n, int64_t channels)
      : b(b), loc(loc), n(n), channels(channels) {}

  /// Builds `channel`'s task, its share in `pieces` pieces.
  void buildTask(Half half, int64_t channel, int64_t pieces, bool finalize) {
    chunks = pieces;
    MLIRContext *ctx = b.getContext();
    AffineExpr r = getAffineDimExpr(0, ctx), s = getAffineDimExpr(2, ctx);
    BufferKind whole = half == Half::ReduceScatter ? BufferKind::Input
                                                   : BufferKind::Output;
    BufferKind own = half == Half::ReduceScatter ? BufferKind::Output
                                                 : BufferKind::Input;
    auto next = peer(r + 1, 2), prev = peer(r + n - 1, 2);
    auto nextS = peer(r + 1, 3), prevS = peer(r + n - 1, 3);
    withLoop(0, chunks, [&] {
      if (n == 1) {
        CopyOp::create(b, loc, ownPart(BufferKind::Input, channel, 2),
                       ownPart(BufferKind::Output, channel, 2));
        return;
      }
      if (half == Half::ReduceScatter) {
        // Block r-1-s travels one hop per step, gathering contributions,
        // and block r completes here at step n-1.
        SendOp::create(b, loc, rankPart(whole, r - 1, channel, 2), next,
                       rankPart(BufferKind::Scratch, r - 1, channel, 2));
        withLoop(1, n - 1, [&] {
          AffineExpr j = r - s - 1;
          RecvReduceSendOp::create(
              b, loc, prevS, rankPart(BufferKind::Scratch, j, channel, 3),
              rankPart(whole, j, channel, 3), PartAttr(), UnitAttr(), nextS,
              rankPart(BufferKind::Scratch, j, channel, 3));
        });
        RecvOp::create(b, loc, prev, rankPart(BufferKind::Scratch, r, channel, 2));
        ReduceOp::create(b, loc, rankPart(BufferKind::Scratch, r, channel, 2),
                         rankPart(whole, r, channel, 2), ownPart(own, channel, 2),
                         finalize ? b.getUnitAttr() : UnitAttr());
        return;
      }
      // All-gather: the own block into place and around the ring in one
      // pass; block r-s is forwarded at step s.
      SendOp::create(b, loc, ownPart(own, channel, 2), next,
                     rankPart(whole, r, channel, 2), rankPart(whole, r, channel, 2));
      withLoop(1, n - 1, [&] {
        RecvCopySendOp::create(b, loc, prevS, rankPart(whole, r - s, channel, 3),
                               nextS, rankPart(whole, r - s, channel, 3));
      });
      RecvOp::create(b, loc, prev, rankPart(whole, r + 1, channel, 2));
    });
  }

private:
  /// Piece (channel, c) of the block of the rank at ring position j of an
  /// n-block buffer.
  PartAttr rankPart(BufferKind kind, AffineExpr j, int64_t channel,
                    unsigned numDims) {
    AffineExpr c = getAffineDimExpr(1, b.getContext());
    AffineExpr index = orderAt(order, (j + n) % n) * blocks() + c + channel * chunks;
    return PartAttr::get(b.getContext(), kind,
                         AffineMap::get(numDims, 0, index), n * blocks());
  }
public:
  /// The ring order of the next channel built (schedule ranks by
  /// position; empty: the identity).
  ArrayRef<int64_t> order;

private:
  /// Piece (channel, c) of a one-block buffer.
  PartAttr ownPart(BufferKind kind, int64_t channel, unsigned numDims) {
    AffineExpr c = getAffineDimExpr(1, b.getContext());
    return PartAttr::get(b.getContext(), kind,
                         AffineMap::get(numDims, 0, c + channel * chunks), blocks());
  }
  AffineMapAttr peer(AffineExpr rank, unsigned numDims) {
    return ringPeer(rank, n, numDims);
  }
  template <typename Fn> void withLoop(int64_t lower, int64_t upper, Fn body) {
    buildLoop(b, loc, lower, upper, body);
  }

  OpBuilder &b;
  Location loc;
  int64_t n, channels;
  int64_t chunks = 1; // pieces of the task being built
  /// Parts of a block in the task's grid: every channel's share in `chunks`.
  int64_t blocks() const { return chunks * channels; }
};

ProgramOp buildRingHalf(OpBuilder &b, Location loc, StringRef name, Half half,
                        const ccopt::AllReduceShape &shape, int64_t chunks,
                        int64_t channels, const ccopt::RingOrders &orders,
                        bool staggered) {
  int64_t n = shape.ranks, m = shape.count;
  int64_t numChannels = std::min<int64_t>(channels, std::max<int64_t>(1, m));
  int64_t numChunks =
      std::max<int64_t>(1, std::min<int64_t>(chunks, m / numChannels));
  bool scatter = half == Half::ReduceScatter;
  auto program = buildProgram(
      b, loc, name,
      scatter ? ccl::CollectiveKind::ReduceScatter : ccl::CollectiveKind::AllGather,
      shape, /*hasRedop=*/scatter, /*input=*/scatter ? n * m : m,
      /*output=*/scatter ? m : n * m, /*scratch=*/scatter && n > 1 ? n * m : 0,
      std::nullopt, staggered ? "staggered_ring" : "ring", numChannels, numChunks);
  OpBuilder::InsertionGuard guard(b);
  RingHalfBuilder ring(b, loc, n, numChannels);
  bool stagger = staggered && numChunks < m / numChannels;
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    ring.order = buildTask(b, loc, program, channel, orders).getRankMap().value_or(
        ArrayRef<int64_t>());
    ring.buildTask(half, channel, numChunks + (stagger && channel % 2),
                   shape.redop == ccl::ReductionKind::Avg && !program.getPrescale());
  }
  return program;
}

} // namespace

ProgramOp ccopt::buildRingReduceScatter(OpBuilder &b, Location loc,
                                        StringRef name, const AllReduceShape &shape,
                                        int64_t chunks, int64_t channels,
                                        const RingOrders &orders, bool staggered) {
  return buildRingHalf(b, loc, name, Half::ReduceScatter, shape, chunks,
                       channels, orders, staggered);
}

ProgramOp ccopt::buildRingAllGather(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape, int64_t chunks,
                                    int64_t channels, const RingOrders &orders,
                                    bool staggered) {
  return buildRingHalf(b, loc, name, Half::AllGather, shape, chunks, channels,
                       orders, staggered);
}
