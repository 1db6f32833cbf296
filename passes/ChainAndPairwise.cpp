//===- ChainAndPairwise.cpp - broadcast, reduce, all-to-all, barrier ------===//
//
// Broadcast and reduce as pipelined chains from (to) the root: a chain is
// as fast as a ring at large sizes and needs no scratch beyond one block.
// Each position in the chain has its own role, so every rank gets its own
// task (enumerated). All-to-all as pairwise exchange: at step s every rank
// writes its block for rank r+s straight into that rank's output, written
// once for every rank.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildChainBroadcast(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape, int64_t root,
                                     bool reduce, int64_t chunks, int64_t channels,
                                     ArrayRef<int64_t> order) {
  RingOrders orders;
  if (!order.empty())
    orders.emplace_back(order.begin(), order.end());
  return buildChainBroadcast(b, loc, name, shape, root, reduce, chunks, channels,
                             orders);
}

ProgramOp ccopt::buildChainBroadcast(OpBuilder &b, Location loc, StringRef name,
                                     const AllReduceShape &shape, int64_t root,
                                     bool reduce, int64_t chunks, int64_t channels,
                                     const RingOrders &orders) {
  int64_t n = shape.ranks;
  auto [numChannels, numChunks] = clampPieces(shape.count, chunks, channels);
  auto program = buildProgram(
      b, loc, name, reduce ? ccl::CollectiveKind::Reduce : ccl::CollectiveKind::Broadcast,
      shape, reduce, shape.count, shape.count,
      /*scratch=*/reduce && n > 1 ? shape.count : 0, root, "chain", numChannels,
      numChunks);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  // Channel c's chain visits orders[c] rotated to start at the root; a
  // reduce runs it backwards, ending at the root.
  auto chainOf = [&](int64_t channel) {
    std::vector<int64_t> chain;
    ArrayRef<int64_t> order;
    if (!orders.empty())
      order = orders[channel % orders.size()];
    int64_t start = llvm::find(order, root) - order.begin();
    for (int64_t i = 0; i < n; ++i)
      chain.push_back(order.empty() ? (root + i) % n : order[(start + i) % n]);
    if (reduce)
      std::reverse(chain.begin(), chain.end());
    return chain;
  };
  auto rank = [&](int64_t r) { return fixedPeer(ctx, r, 2); };
  int64_t parts = numChannels * numChunks;
  bool avg = shape.redop == ccl::ReductionKind::Avg && !program.getPrescale();
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    std::vector<int64_t> chain = chainOf(channel);
    AffineExpr piece = getAffineDimExpr(1, ctx) + channel * numChunks;
    auto part = [&](BufferKind kind) {
      return PartAttr::get(ctx, kind, AffineMap::get(2, 0, piece), parts);
    };
    for (int64_t i = 0; i < n; ++i) {
      b.setInsertionPointToEnd(&program.getBody().front());
      taskWithChunkLoop(b, loc, channel, chain[i], numChunks);
      bool first = i == 0, last = i + 1 == n;
      if (!reduce) {
        // Broadcast: the root sends its input on (out of place, storing it
        // into its output in the same pass); the others forward what
        // arrived in their output.
        bool copyOut = first && !shape.inPlace;
        if (copyOut && last)
          CopyOp::create(b, loc, part(BufferKind::Input), part(BufferKind::Output));
        if (!first)
          RecvOp::create(b, loc, rank(chain[i - 1]), part(BufferKind::Output));
        if (!last)
          SendOp::create(b, loc, part(copyOut ? BufferKind::Input : BufferKind::Output),
                         rank(chain[i + 1]), part(BufferKind::Output),
                         copyOut ? part(BufferKind::Output) : PartAttr());
        continue;
      }
      // Reduce: partial sums travel towards the root (the last rank);
      // the other ranks' outputs stay untouched.
      if (first && last) {
        if (!shape.inPlace)
          CopyOp::create(b, loc, part(BufferKind::Input), part(BufferKind::Output));
      } else if (first) {
        SendOp::create(b, loc, part(BufferKind::Input), rank(chain[i + 1]),
                       part(BufferKind::Scratch));
      } else if (last) {
        RecvOp::create(b, loc, rank(chain[i - 1]), part(BufferKind::Scratch));
        ReduceOp::create(b, loc, part(BufferKind::Scratch), part(BufferKind::Input),
                         part(BufferKind::Output), avg ? b.getUnitAttr() : UnitAttr());
      } else {
        RecvReduceSendOp::create(b, loc, rank(chain[i - 1]),
                                 part(BufferKind::Scratch), part(BufferKind::Input),
                                 PartAttr(), UnitAttr(), rank(chain[i + 1]),
                                 part(BufferKind::Scratch));
      }
    }
  }
  return program;
}

ProgramOp ccopt::buildPairwiseAllToAll(OpBuilder &b, Location loc, StringRef name,
                                       const AllReduceShape &shape) {
  int64_t n = shape.ranks;
  // In place, a peer's block r must not land on the block r this rank has
  // yet to send: blocks land in scratch, copied out after every send.
  bool staged = shape.inPlace && n > 1;
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllToAll, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/staged ? shape.count : 0, std::nullopt,
                              "pairwise", /*channels=*/1, /*chunks=*/1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  buildTask(b, loc, program, /*channel=*/0);
  AffineExpr r = getAffineDimExpr(0, ctx), s = getAffineDimExpr(1, ctx);
  auto block = [&](BufferKind kind, AffineExpr j, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, j % n), n);
  };
  BufferKind landing = staged ? BufferKind::Scratch : BufferKind::Output;
  // Own block: input block r -> output block r.
  if (!shape.inPlace)
    CopyOp::create(b, loc, block(BufferKind::Input, r, 1), block(BufferKind::Output, r, 1));
  // Step s: block r+s goes to rank r+s, landing in its block r.
  buildLoop(b, loc, 1, n, [&] {
    SendOp::create(b, loc, block(BufferKind::Input, r + s, 2),
                   AffineMapAttr::get(AffineMap::get(2, 0, (r + s) % n)),
                   block(landing, r, 2));
    RecvOp::create(b, loc, AffineMapAttr::get(AffineMap::get(2, 0, (r - s + n) % n)),
                   block(landing, r - s + n, 2));
  });
  if (staged)
    buildLoop(b, loc, 1, n, [&] {
      CopyOp::create(b, loc, block(BufferKind::Scratch, r + s, 2),
                     block(BufferKind::Output, r + s, 2));
    });
  return program;
}

ProgramOp ccopt::buildDisseminationBarrier(OpBuilder &b, Location loc,
                                           StringRef name, int64_t ranks) {
  AllReduceShape shape{ranks, 0, b.getI8Type(), ccl::ReductionKind::Sum, false, {}};
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::Barrier, shape,
                              /*hasRedop=*/false, 0, 0, /*scratch=*/0,
                              std::nullopt, "dissemination", 1, 1);
  OpBuilder::InsertionGuard guard(b);
  buildTask(b, loc, program, /*channel=*/0);
  // Round k: signal r + 2^k, hear from r - 2^k; after ceil(log2 n) rounds
  // every rank has heard from every rank (Hensgen, Finkel, Manber 1988).
  AffineExpr r = getAffineDimExpr(0, b.getContext());
  for (int64_t distance = 1; distance < ranks; distance *= 2) {
    SignalOp::create(b, loc, ringPeer(r + distance, ranks, 1));
    RecvOp::create(b, loc, ringPeer(r - distance + ranks, ranks, 1));
  }
  return program;
}

ProgramOp ccopt::buildSendRecv(OpBuilder &b, Location loc, StringRef name,
                               const AllReduceShape &shape, int64_t chunks) {
  int64_t numChunks = std::max<int64_t>(1, std::min<int64_t>(chunks, shape.count));
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::SendRecv, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/0, std::nullopt, "direct",
                              /*channels=*/1, numChunks);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  auto part = [&](BufferKind kind) {
    return PartAttr::get(ctx, kind, AffineMap::get(2, 0, getAffineDimExpr(1, ctx)),
                         numChunks);
  };
  auto rank = [&](int64_t r) { return fixedPeer(ctx, r, 2); };
  // Schedule rank 0 writes each piece straight into rank 1's buffer.
  b.setInsertionPointToEnd(&program.getBody().front());
  taskWithChunkLoop(b, loc, 0, 0, numChunks);
  SendOp::create(b, loc, part(BufferKind::Input), rank(1), part(BufferKind::Output));
  b.setInsertionPointToEnd(&program.getBody().front());
  taskWithChunkLoop(b, loc, 0, 1, numChunks);
  RecvOp::create(b, loc, rank(0), part(BufferKind::Output));
  return program;
}
