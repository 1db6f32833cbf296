//===- DirectAllToAll.cpp - all-to-all to every peer at once --------------===//
//
// NCCL's all-to-all is a group of send/recv pairs, one per peer, launched
// together: every peer's transfer runs at once, spread over the channels
// (thread blocks) NCCL gives point-to-point work. Here channel c serves the
// peers at distances c+1, c+1+C, ... (C channels), each a direct write of
// block r+s into rank r+s's block r (with more channels than peers, each
// peer's block in pieces over several channels); the channels run side by
// side, so every link carries its share of all transfers at once (pairwise
// exchange instead runs the n-1 distances one after the other on one
// channel).
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildDirectAllToAll(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape,
                                     int64_t channels) {
  int64_t n = shape.ranks;
  int64_t peers = std::max<int64_t>(1, n - 1);
  // More channels than peers: each peer's block in `split` pieces, piece p
  // of peer s on channel p * peers + s - 1 (every channel one transfer).
  int64_t split = std::clamp<int64_t>(
      channels / peers, 1, std::max<int64_t>(1, shape.count / n));
  int64_t numChannels = split > 1 ? split * peers : std::clamp<int64_t>(channels, 1, peers);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllToAll, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/0, std::nullopt, "direct", numChannels,
                              /*chunks=*/1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  AffineExpr r = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
  // Piece `piece` of block j (n * split parts).
  auto block = [&](BufferKind kind, AffineExpr j, int64_t piece, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, j % n * split + piece),
                         n * split);
  };
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    buildTask(b, loc, program, channel);
    int64_t piece = split > 1 ? channel / peers : 0;
    int64_t lane = split > 1 ? channel % peers : channel;
    int64_t lanes = split > 1 ? peers : numChannels;
    if (lane == 0)
      CopyOp::create(b, loc, block(BufferKind::Input, r, piece, 1),
                     block(BufferKind::Output, r, piece, 1));
    // Distances s = k * lanes + lane + 1 < n.
    int64_t count = n > 1 ? (n - 1 - lane + lanes - 1) / lanes : 0;
    buildLoop(b, loc, 0, count, [&] {
      AffineExpr s = k * lanes + (lane + 1);
      SendOp::create(b, loc, block(BufferKind::Input, r + s, piece, 2),
                     AffineMapAttr::get(AffineMap::get(2, 0, (r + s) % n)),
                     block(BufferKind::Output, r, piece, 2));
      RecvOp::create(b, loc,
                     AffineMapAttr::get(AffineMap::get(2, 0, (r - s + n) % n)));
    });
  }
  return program;
}
