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
// channel). The rank's own block is copied before the first lane's
// transfers, as NCCL's send to self in the same group; or, `copyBeside`,
// by channels of their own (a piece each) beside the transfers, so that no
// transfer starts late and runs last, alone, at a channel's rate.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildDirectAllToAll(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape,
                                     int64_t channels, bool copyBeside) {
  int64_t n = shape.ranks;
  int64_t peers = std::max<int64_t>(1, n - 1);
  // In place, a peer's block r must not land on the block r this rank has
  // yet to send: blocks land in scratch and are copied out after every
  // send of the channel, and each channel takes a piece of every block
  // (so no other channel still reads what it copies over).
  bool staged = shape.inPlace && n > 1;
  int64_t maxSplit = std::max<int64_t>(1, shape.count / n);
  // More channels than peers: each peer's block in `split` pieces, piece p
  // of peer s on channel p * peers + s - 1 (every channel one transfer).
  int64_t split = staged ? std::clamp<int64_t>(channels, 1, maxSplit)
                         : std::clamp<int64_t>(channels / peers, 1, maxSplit);
  int64_t numChannels = staged      ? split
                        : split > 1 ? split * peers
                                    : std::clamp<int64_t>(channels, 1, peers);
  // Out of place: the channels that copy the own block beside them.
  int64_t copyChannels = copyBeside && !shape.inPlace && n > 1 ? split : 0;
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllToAll, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/staged ? shape.count : 0, std::nullopt,
                              "direct", numChannels + copyChannels, /*chunks=*/1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  AffineExpr r = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
  // Piece `piece` of block j (n * split parts).
  auto block = [&](BufferKind kind, AffineExpr j, int64_t piece, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, j % n * split + piece),
                         n * split);
  };
  BufferKind landing = staged ? BufferKind::Scratch : BufferKind::Output;
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    buildTask(b, loc, program, channel);
    int64_t piece = staged ? channel : split > 1 ? channel / peers : 0;
    int64_t lane = staged ? 0 : split > 1 ? channel % peers : channel;
    int64_t lanes = staged ? 1 : split > 1 ? peers : numChannels;
    if (lane == 0 && !shape.inPlace && !copyChannels)
      CopyOp::create(b, loc, block(BufferKind::Input, r, piece, 1),
                     block(BufferKind::Output, r, piece, 1));
    // Distances s = k * lanes + lane + 1 < n.
    int64_t count = n > 1 ? (n - 1 - lane + lanes - 1) / lanes : 0;
    buildLoop(b, loc, 0, count, [&] {
      AffineExpr s = k * lanes + (lane + 1);
      SendOp::create(b, loc, block(BufferKind::Input, r + s, piece, 2),
                     AffineMapAttr::get(AffineMap::get(2, 0, (r + s) % n)),
                     block(landing, r, piece, 2));
      // Rank r-s wrote its block r into block r-s here.
      RecvOp::create(b, loc, AffineMapAttr::get(AffineMap::get(2, 0, (r - s + n) % n)),
                     block(landing, r - s + n, piece, 2));
    });
    if (staged)
      buildLoop(b, loc, 1, n, [&] {
        CopyOp::create(b, loc, block(BufferKind::Scratch, r + k, piece, 2),
                       block(BufferKind::Output, r + k, piece, 2));
      });
  }
  for (int64_t piece = 0; piece < copyChannels; ++piece) {
    buildTask(b, loc, program, numChannels + piece);
    CopyOp::create(b, loc, block(BufferKind::Input, r, piece, 1),
                   block(BufferKind::Output, r, piece, 1));
  }
  return program;
}
