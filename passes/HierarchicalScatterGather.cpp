//===- HierarchicalScatterGather.cpp - node-aware RS and all-gather -------===//
//
// The halves of the hierarchical all-reduce as collectives of their own, for
// N nodes of P GPUs (rank v*P + l is GPU l of node v). Block j of the n-block
// buffer belongs to rank j, so GPU l of every node owns the blocks k*P + l:
//  - reduce-scatter: inside each node GPU l collects every GPU's copies of
//    the blocks k*P + l (NVLink) and adds them; a ring over the N GPUs l
//    (NIC rail l) then reduce-scatters those N node sums;
//  - all-gather: a ring over rail l gathers the N blocks k*P + l, and each
//    block goes on to the node's other GPUs as soon as it arrives.
// Only 1/P of the data crosses each NIC, in N-1 network hops instead of n-1.
// The intra-node exchange runs in the order the ring consumes (produces)
// the blocks, so the two phases overlap.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

class HierarchicalHalfBuilder : NodeMajorRanks {
public:
  HierarchicalHalfBuilder(OpBuilder &b, Location loc, ProgramOp program, int64_t P,
                          int64_t C, int64_t scratchBlocks, int64_t channel)
      : NodeMajorRanks(b.getContext(), program.getRanks(), P), b(b), loc(loc), C(C),
        scratchBlocks(scratchBlocks), ch(channel),
        finalize(program.getRedop() == ccl::ReductionKind::Avg &&
                 !program.getPrescale()) {}

  void reduceScatter();
  void allGather();

private:
  AffineExpr dim(unsigned i) { return getAffineDimExpr(i, ctx); }
  AffineExpr constant(int64_t v) { return getAffineConstantExpr(v, ctx); }
  PartAttr part(BufferKind kind, AffineExpr index, int64_t parts, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, index), parts);
  }
  /// This channel's piece of block j of the n-block buffer.
  PartAttr block(BufferKind kind, AffineExpr j, unsigned dims) {
    return part(kind, j * C + ch, n * C, dims);
  }
  /// This channel's piece of the one-block buffer.
  PartAttr own(BufferKind kind, unsigned dims) {
    return part(kind, constant(ch), C, dims);
  }
  /// This channel's piece of scratch block i.
  PartAttr scratch(AffineExpr i, unsigned dims) {
    return part(BufferKind::Scratch, i * C + ch, scratchBlocks * C, dims);
  }
  /// The block of GPU `gpu` on the node `back` nodes before this one.
  AffineExpr blockOf(AffineExpr back, AffineExpr gpu) {
    return ((node() - back + M) % M) * G + gpu % G;
  }
  /// GPU l+t and GPU l-t of this node.
  AffineMapAttr toGpu(AffineExpr t, unsigned dims) { return peer(onNode(local() + t), dims); }
  AffineMapAttr fromGpu(AffineExpr t, unsigned dims) {
    return peer(onNode(local() - t + G), dims);
  }

  /// `body(i, t)` for ring steps i in [0, N) and the node's other GPUs,
  /// t in [1, P) (dimensions 1 and 2).
  template <typename Fn> void forEachBlockAndGpu(Fn body) {
    if (G > 1)
      buildLoop(b, loc, 0, M, [&] {
        buildLoop(b, loc, 1, G, [&] { body(dim(1), dim(2)); });
      });
  }

  /// Reduce-scatter scratch: slot (t, i) holds what GPU l-t sent for ring
  /// step i; then the node sums (with P > 1) and the ring's staging blocks.
  AffineExpr slot(AffineExpr t, AffineExpr i) { return (t - 1) * M + i; }
  int64_t sumsBase() { return (G - 1) * M; }
  int64_t stagingBase() { return sumsBase() + (G > 1 ? M : 0); }

  /// The node's sum of the block that ring step i handles: its own copy
  /// (from the input) with P = 1.
  PartAttr nodeSum(AffineExpr i, unsigned dims) {
    if (G == 1)
      return block(BufferKind::Input, blockOf(i + 1, local()), dims);
    return scratch(sumsBase() + i, dims);
  }
  /// Receives the node's copies for ring step i and adds them into `dst`:
  /// this GPU's own first, then GPU l-1, l-2, ... (a fixed order).
  void addNodeCopies(AffineExpr i, unsigned dims, PartAttr dst, PartAttr dstInLoop,
                     bool last) {
    buildLoop(b, loc, 1, G, [&] {
      RecvOp::create(b, loc, fromGpu(dim(dims), dims + 1),
                     scratch(slot(dim(dims), i), dims + 1));
    });
    auto reduce = [&](PartAttr lhs, PartAttr rhs, PartAttr to, bool fin) {
      ReduceOp::create(b, loc, lhs, rhs, to,
                       fin && finalize ? b.getUnitAttr() : UnitAttr());
    };
    reduce(block(BufferKind::Input, blockOf(i + 1, local()), dims),
           scratch(slot(constant(1), i), dims), dst, last && G == 2);
    buildLoop(b, loc, 2, G - 1, [&] {
      reduce(dstInLoop, scratch(slot(dim(dims), i), dims + 1), dstInLoop, false);
    });
    if (G > 2)
      reduce(dst, scratch(slot(constant(G - 1), i), dims), dst, last);
  }

  OpBuilder &b;
  Location loc;
  int64_t C, scratchBlocks, ch;
  bool finalize;
};

void HierarchicalHalfBuilder::reduceScatter() {
  if (n == 1) {
    CopyOp::create(b, loc, block(BufferKind::Input, constant(0), 1),
                   own(BufferKind::Output, 1));
    return;
  }
  // Ring step i reduces the block of node v-1-i (its GPU l's), so send the
  // node's other GPUs their copies in that order.
  forEachBlockAndGpu([&](AffineExpr i, AffineExpr t) {
    SendOp::create(b, loc, block(BufferKind::Input, blockOf(i + 1, local() + t), 3),
                   toGpu(t, 3), scratch(slot(t, i), 3));
  });
  if (M == 1) {
    addNodeCopies(constant(0), 1, own(BufferKind::Output, 1),
                  own(BufferKind::Output, 2), /*last=*/true);
    return;
  }
  // The ring over rail l, as the flat ring reduce-scatter: the node sum of
  // step i joins what arrived from the node before and goes on.
  auto sum = [&](AffineExpr i, unsigned dims) {
    if (G > 1)
      addNodeCopies(i, dims, nodeSum(i, dims), nodeSum(i, dims + 1), false);
  };
  auto staging = [&](AffineExpr i, unsigned dims) {
    return scratch(stagingBase() + i - 1, dims);
  };
  sum(constant(0), 1);
  SendOp::create(b, loc, nodeSum(constant(0), 1), peer(alongRail(1), 1),
                 staging(constant(1), 1));
  buildLoop(b, loc, 1, M - 1, [&] {
    AffineExpr i = dim(1);
    sum(i, 2);
    RecvReduceSendOp::create(b, loc, peer(alongRail(-1), 2), staging(i, 2),
                             nodeSum(i, 2), PartAttr(), UnitAttr(),
                             peer(alongRail(1), 2), staging(i + 1, 2));
  });
  AffineExpr last = constant(M - 1);
  sum(last, 1);
  RecvOp::create(b, loc, peer(alongRail(-1), 1), staging(last, 1));
  ReduceOp::create(b, loc, staging(last, 1), nodeSum(last, 1),
                   own(BufferKind::Output, 1),
                   finalize ? b.getUnitAttr() : UnitAttr());
}

void HierarchicalHalfBuilder::allGather() {
  CopyOp::create(b, loc, own(BufferKind::Input, 1), block(BufferKind::Output, rank(), 1));
  // Every block this GPU has or gets goes on to the node's other GPUs.
  auto passOn = [&](PartAttr src, AffineExpr j, unsigned dims) {
    buildLoop(b, loc, 1, G, [&] {
      SendOp::create(b, loc, src, toGpu(dim(dims), dims + 1),
                     block(BufferKind::Output, j, dims + 1));
    });
  };
  if (M > 1)
    SendOp::create(b, loc, own(BufferKind::Input, 1), peer(alongRail(1), 1),
                   block(BufferKind::Output, rank(), 1));
  passOn(own(BufferKind::Input, 2), rank(), 1);
  // Ring step s brings the block of GPU l of node v-s.
  buildLoop(b, loc, 1, M - 1, [&] {
    AffineExpr j = blockOf(dim(1), local());
    RecvCopySendOp::create(b, loc, peer(alongRail(-1), 2),
                           block(BufferKind::Output, j, 2), peer(alongRail(1), 2),
                           block(BufferKind::Output, j, 2));
    passOn(block(BufferKind::Output, j, 3), j, 2);
  });
  if (M > 1) {
    AffineExpr j = blockOf(constant(M - 1), local());
    RecvOp::create(b, loc, peer(alongRail(-1), 1), block(BufferKind::Output, j, 1));
    passOn(block(BufferKind::Output, j, 2), j, 1);
  }
  // GPU l-t passes its blocks on in its ring's order: nodes v, v-1, ...
  forEachBlockAndGpu([&](AffineExpr s, AffineExpr t) {
    RecvOp::create(b, loc, fromGpu(t, 3),
                   block(BufferKind::Output, blockOf(s, local() - t + G), 3));
  });
}

enum class Half { ReduceScatter, AllGather };

ProgramOp buildHierarchicalHalf(OpBuilder &b, Location loc, StringRef name, Half half,
                                const ccopt::AllReduceShape &shape, int64_t perNode,
                                int64_t channels) {
  int64_t n = shape.ranks, m = shape.count, P = perNode, N = n / P;
  assert(P >= 1 && n % P == 0 && "nodes must hold the same number of ranks");
  assert(!shape.inPlace && "the buffers differ in size");
  int64_t C = std::clamp<int64_t>(m, 1, channels);
  bool scatter = half == Half::ReduceScatter;
  // Slots for the node's copies, the node sums, the ring's staging blocks.
  int64_t scratchBlocks = 0;
  if (scatter && n > 1)
    scratchBlocks = (P - 1) * N + (P > 1 && N > 1 ? N : 0) + (N - 1);
  auto program = buildProgram(
      b, loc, name,
      scatter ? ccl::CollectiveKind::ReduceScatter : ccl::CollectiveKind::AllGather,
      shape, /*hasRedop=*/scatter, /*input=*/scatter ? n * m : m,
      /*output=*/scatter ? m : n * m, scratchBlocks * m, std::nullopt,
      "hierarchical", C, 1);
  OpBuilder::InsertionGuard guard(b);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    HierarchicalHalfBuilder builder(b, loc, program, P, C, scratchBlocks, ch);
    if (scatter)
      builder.reduceScatter();
    else
      builder.allGather();
  }
  return program;
}

} // namespace

ProgramOp ccopt::buildHierarchicalReduceScatter(OpBuilder &b, Location loc,
                                                StringRef name,
                                                const AllReduceShape &shape,
                                                int64_t perNode, int64_t channels) {
  return buildHierarchicalHalf(b, loc, name, Half::ReduceScatter, shape, perNode,
                               channels);
}

ProgramOp ccopt::buildHierarchicalAllGather(OpBuilder &b, Location loc, StringRef name,
                                            const AllReduceShape &shape,
                                            int64_t perNode, int64_t channels) {
  return buildHierarchicalHalf(b, loc, name, Half::AllGather, shape, perNode,
                               channels);
}
