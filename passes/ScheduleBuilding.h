//===- ScheduleBuilding.h - pieces every schedule builder uses ----*- C++ -*-===//
//
// Internal to the algorithm builders (RingAllReduce.cpp, RingScatterGather.cpp,
// TreeAllReduce.cpp, ChainAndPairwise.cpp, HierarchicalAllReduce.cpp, ...).
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_SCHEDULEBUILDING_H
#define CCOPT_PASSES_SCHEDULEBUILDING_H

#include "passes/Algorithms.h"

namespace ccopt::detail {

/// An empty sched.program for `shape`: the collective's buffers, scratch,
/// root, algorithm and pieces; the program rank_map places the ranks.
mlir::sched::ProgramOp buildProgram(mlir::OpBuilder &b, mlir::Location loc,
                                    llvm::StringRef name,
                                    mlir::ccl::CollectiveKind kind,
                                    const AllReduceShape &shape, bool hasRedop,
                                    int64_t inputCount, int64_t outputCount,
                                    int64_t scratchCount, std::optional<int64_t> root,
                                    llvm::StringRef algorithm, int64_t channels,
                                    int64_t chunks);

/// A parametric task on `channel` that follows orders[channel % size] (no
/// rank_map for the identity), appended to `program`; `b` is left at the
/// start of its body.
mlir::sched::TaskOp buildTask(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::sched::ProgramOp program, int64_t channel,
                              const RingOrders &orders = {});

/// `rank mod n` as a peer map over `numDims` dimensions.
mlir::AffineMapAttr ringPeer(mlir::AffineExpr rank, int64_t n, unsigned numDims);

/// {channels, chunks} clamped so that every piece of `count` elements keeps
/// an element.
std::pair<int64_t, int64_t> clampPieces(int64_t count, int64_t chunks,
                                        int64_t channels);

/// Starts a task (one rank, or every rank) and a loop over the chunks; the
/// builder inserts into the loop until the guard goes.
mlir::sched::LoopOp taskWithChunkLoop(mlir::OpBuilder &b, mlir::Location loc,
                                      int64_t channel, std::optional<int64_t> rank,
                                      int64_t chunks);

/// Ranks node-major in nodes of G: rank d0 is GPU d0 mod G of node
/// d0 floordiv G, and the GPUs of the same index share a NIC rail. Affine
/// expressions over d0 for the node-aware builders.
class NodeMajorRanks {
public:
  NodeMajorRanks(mlir::MLIRContext *ctx, int64_t ranks, int64_t perNode)
      : ctx(ctx), n(ranks), G(perNode), M(ranks / perNode) {}

  mlir::AffineExpr rank() const { return mlir::getAffineDimExpr(0, ctx); }
  mlir::AffineExpr local() const { return rank() % G; }
  mlir::AffineExpr node() const { return rank().floorDiv(G); }
  /// The rank of GPU `gpu` (mod G) on this rank's node.
  mlir::AffineExpr onNode(mlir::AffineExpr gpu) const { return node() * G + gpu % G; }
  /// The same GPU `hops` nodes on (mod the nodes): along its rail.
  mlir::AffineExpr alongRail(int64_t hops) const {
    return (rank() + ((hops % M + M) % M) * G) % n;
  }
  /// The same GPU `hops` (an expression in [0, M]) nodes on, or back.
  mlir::AffineExpr alongRail(mlir::AffineExpr hops) const { return (rank() + hops * G) % n; }
  mlir::AffineExpr backAlongRail(mlir::AffineExpr hops) const {
    return (rank() + n - hops * G) % n;
  }
  mlir::AffineMapAttr peer(mlir::AffineExpr rank, unsigned numDims) const {
    return mlir::AffineMapAttr::get(mlir::AffineMap::get(numDims, 0, rank));
  }

protected:
  mlir::MLIRContext *ctx;
  int64_t n, G, M;
};

/// `sched.loop lower to upper` around what `body` builds (nothing when the
/// range is empty); `b` comes back to where it was.
template <typename Fn>
void buildLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t lower,
               int64_t upper, Fn body) {
  if (upper <= lower)
    return;
  auto loop = mlir::sched::LoopOp::create(b, loc, lower, upper);
  loop.getBody().emplaceBlock();
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loop.getBody().front());
  body();
}

} // namespace ccopt::detail

#endif
