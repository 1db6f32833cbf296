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

/// The schedule rank at position q (in [0, order.size())) of `order`, as
/// an affine expression in q (the identity for an empty order): under a
/// task's rank_map d0 and peers are positions, but a rank's block is its
/// own.
mlir::AffineExpr orderAt(llvm::ArrayRef<int64_t> order, mlir::AffineExpr q);

/// Orders of all `ranks` ranks, node-major in nodes of `perNode`, that go
/// through every node's GPUs in `nodeRings[c]`'s order (orders of one
/// node's GPUs).
RingOrders repeatOverNodes(const RingOrders &nodeRings, int64_t ranks, int64_t perNode);

/// A task on `channel` for schedule rank `rank` only, appended to
/// `program`; `b` is left at the start of its body.
mlir::sched::TaskOp buildRankTask(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::sched::ProgramOp program, int64_t channel,
                                  int64_t rank);

/// Schedule rank `rank` as a peer map over `numDims` dimensions (a
/// per-rank task's fixed peer).
mlir::AffineMapAttr fixedPeer(mlir::MLIRContext *ctx, int64_t rank, unsigned numDims = 1);

/// Part `index` of `parts` of a buffer, the same at every rank (over
/// `numDims` dimensions).
mlir::sched::PartAttr fixedPart(mlir::MLIRContext *ctx, mlir::sched::BufferKind kind,
                                int64_t index, int64_t parts, unsigned numDims = 1);

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
  /// `outer`: loops around the builder's steps (forEachPieceRound's: the
  /// piece is an expression in d1 where 1), numbered before the builder's
  /// own.
  NodeMajorRanks(mlir::MLIRContext *ctx, int64_t ranks, int64_t perNode, unsigned outer = 0)
      : ctx(ctx), n(ranks), G(perNode), M(ranks / perNode), outer(outer) {}

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
  /// Dimension i of the builder's own (0: the rank, then its loops').
  mlir::AffineExpr dim(unsigned i) const {
    return mlir::getAffineDimExpr(i == 0 ? 0 : i + outer, ctx);
  }
  /// A map over the rank and `numDims` - 1 of the builder's loops.
  mlir::AffineMap map(mlir::AffineExpr result, unsigned numDims) const {
    return mlir::AffineMap::get(numDims + outer, 0, result);
  }
  mlir::AffineMapAttr peer(mlir::AffineExpr rank, unsigned numDims) const {
    return mlir::AffineMapAttr::get(map(rank, numDims));
  }

protected:
  mlir::MLIRContext *ctx;
  int64_t n, G, M;
  unsigned outer;
};

/// The pieces channel `channel` cuts its share in where `pieces` is the
/// norm: channel 0 `pieces`, channels 1..7 more (up to 1.44 times),
/// channels 8..15 fewer (down to half), and again from the 17th; at least 1
/// and at most `most`. Channels that pipeline pieces through phases on
/// different links (NVLink, then the NIC) and run their rounds at one pace
/// fall into step, all on NVLink and then all on the network, each link
/// idle half the time; rounds of different lengths keep them spread over
/// the phases. (One piece stays one: there is no pipeline to spread.)
int64_t spreadPieces(int64_t channel, int64_t pieces, int64_t most);

/// `sched.loop lower to upper` around what `body` builds (nothing when the
/// range is empty, unless `keepEmpty`); `b` comes back to where it was.
template <typename Fn>
void buildLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t lower,
               int64_t upper, Fn body, bool keepEmpty = false) {
  if (upper <= lower && !keepEmpty)
    return;
  auto loop = mlir::sched::LoopOp::create(b, loc, lower, upper);
  loop.getBody().emplaceBlock();
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&loop.getBody().front());
  body();
}

/// A piece as forEachPieceRound builds it: its index among the channel's
/// pieces as an affine expression over `dims` dimensions (d0 the rank; in
/// the loop over the rounds, d1 its index) and that index modulo the loop's
/// rounds per iteration (the same in every iteration).
struct PipelinedPiece {
  mlir::AffineExpr index;
  int64_t residue;
  unsigned dims;
};

/// Pieces pipelined through phases: `build(piece, phase)` in the order a
/// channel's task runs them, a round at a time (round s: phase f on piece
/// s - f), channel `channel` starting each round at phase channel mod
/// `phases`, so that channels side by side are in different phases (on
/// different links) at once. The steady rounds, those in which every phase
/// works on a piece in [first, last) (pieces alike but for their index),
/// are built once, in a sched.loop of `period` rounds per iteration: a
/// kernel as long as a few rounds however many pieces there are (NVRTC
/// takes minutes over one unrolled round by round). A channel of `fewer`
/// pieces than others keeps the loop even where it never runs, so that it
/// shares a kernel body with them (codegen's shared bodies take loop bounds
/// from a table).
template <typename Fn>
void forEachPieceRound(mlir::OpBuilder &b, mlir::Location loc, int64_t channel,
                       int64_t pieces, int phases, int64_t first, int64_t last,
                       int64_t period, bool fewer, Fn build) {
  mlir::MLIRContext *ctx = b.getContext();
  int64_t rounds = pieces + phases - 1, steady = first + phases - 1;
  int64_t iterations = std::max<int64_t>(last - steady, 0) / period;
  bool looped = iterations > 0 || (fewer && last >= steady);
  if (!looped)
    steady = 0;
  // Round r (r - phase per phase) given as period * d1 + r where looped.
  auto round = [&](int64_t r, bool inLoop) {
    for (int f = 0; f < phases; ++f) {
      int phase = (channel + f) % phases;
      int64_t piece = r - phase;
      if (inLoop)
        build(PipelinedPiece{mlir::getAffineDimExpr(1, ctx) * period + piece,
                             ((piece % period) + period) % period, 2},
              phase);
      else if (piece >= 0 && piece < pieces)
        build(PipelinedPiece{mlir::getAffineConstantExpr(piece, ctx), piece % period, 1},
              phase);
    }
  };
  for (int64_t r = 0; r < steady; ++r)
    round(r, false);
  if (looped)
    buildLoop(
        b, loc, 0, iterations,
        [&] {
          for (int64_t u = 0; u < period; ++u)
            round(steady + u, true);
        },
        /*keepEmpty=*/true);
  for (int64_t r = steady + iterations * period; r < rounds; ++r)
    round(r, false);
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
