//===- ScheduleBuilding.h - pieces every schedule builder uses ----*- C++ -*-===//
//
// Internal to the algorithm builders (RingAllReduce.cpp, RingScatterGather.cpp,
// TreeAllReduce.cpp, ChainAndPairwise.cpp).
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
