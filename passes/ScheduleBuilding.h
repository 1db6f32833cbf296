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

/// Pieces of the direct algorithms (every rank talks to every other rank
/// at once): parts over (rank, loop index), sends to all peers, slots
/// added in rank order.
class DirectBuilder {
public:
  DirectBuilder(mlir::OpBuilder &b, mlir::Location loc, mlir::sched::ProgramOp program)
      : b(b), loc(loc), ctx(b.getContext()), n(program.getRanks()),
        finalize(program.getRedop() == mlir::ccl::ReductionKind::Avg &&
                 !program.getPrescale()) {}

  /// Part `index` of `parts` of `kind`, over `numDims` dimensions.
  mlir::sched::PartAttr part(mlir::sched::BufferKind kind, mlir::AffineExpr index,
                             int64_t parts, unsigned numDims) {
    return mlir::sched::PartAttr::get(ctx, kind,
                                      mlir::AffineMap::get(numDims, 0, index), parts);
  }
  mlir::AffineExpr rank() { return mlir::getAffineDimExpr(0, ctx); }
  mlir::AffineExpr step() { return mlir::getAffineDimExpr(1, ctx); }
  mlir::AffineExpr constant(int64_t v) { return mlir::getAffineConstantExpr(v, ctx); }

  /// Sends `src(d0, s)` to rank d0+s at `dst(d0, s)` for s in [1, n), then
  /// receives from each of those ranks, at `landed(d0, s)` (what rank d0-s
  /// wrote).
  template <typename Src, typename Dst, typename Landed>
  void exchangeWithAll(Src src, Dst dst, Landed landed) {
    mlir::AffineMapAttr to = ringPeer(rank() + step(), n, 2);
    mlir::AffineMapAttr from = ringPeer(rank() - step() + n, n, 2);
    buildLoop(b, loc, 1, n,
              [&] { mlir::sched::SendOp::create(b, loc, src(), to, dst()); });
    buildLoop(b, loc, 1, n,
              [&] { mlir::sched::RecvOp::create(b, loc, from, landed()); });
  }

  /// dst = slot(0) + slot(1) + ... + slot(n-1), in that order; slot(e) is
  /// a part at slot expression e (over (d0, s) inside the loop).
  template <typename Slot>
  void addSlots(Slot slot, mlir::sched::PartAttr dst, mlir::sched::PartAttr dstInLoop) {
    auto reduce = [&](mlir::sched::PartAttr lhs, mlir::sched::PartAttr rhs,
                      mlir::sched::PartAttr to, bool last) {
      mlir::sched::ReduceOp::create(b, loc, lhs, rhs, to,
                                    last && finalize ? b.getUnitAttr()
                                                     : mlir::UnitAttr());
    };
    reduce(slot(constant(0), 1), slot(constant(1), 1), dst, n == 2);
    buildLoop(b, loc, 2, n - 1,
              [&] { reduce(dstInLoop, slot(step(), 2), dstInLoop, false); });
    if (n > 2)
      reduce(dst, slot(constant(n - 1), 1), dst, true);
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::MLIRContext *ctx;
  int64_t n;
  bool finalize;
};

} // namespace ccopt::detail

#endif
