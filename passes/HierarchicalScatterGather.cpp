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
// hierarchical_direct exchanges along the rail directly instead: GPU l sends
// each other node's sum (block) straight to that node's GPU l, N-1 sends at
// once, and adds (passes on) what arrives: the same bytes on the NIC, but
// one network hop per piece where the ring waits on N-1 in a row (a100x8 x4
// 256 MiB reduce-scatter in 64 x 8 pieces: 1315 -> 1219 us).
// In one piece per channel the exchange inside the node runs in the order
// the ring consumes (produces) the blocks, step by step, so the two phases
// overlap. In about Q pieces per channel (channels cut their shares in
// different numbers around Q, spreadPieces, as the hierarchical
// all-reduce's do), in round s a channel runs one phase on piece s and the
// other on piece s-1, channels of odd index starting with the second, so
// that while some channels' data is on NVLink the others' is on the network
// (as the hierarchical all-reduce's three phases overlap).
// Where not every two of a node's GPUs have NVLink, the exchange inside the
// node goes round a ring over them instead, in the order of the node's
// NVLink ring on each channel (the task's rank order; positions l are still
// the same GPU on every node, so rails stay rails), in one piece too: a
// direct exchange would cross PCIe (v100x8 x4 256 KiB reduce-scatter in one
// piece: 93.8 us direct, 30.2 round the ring). A channel in its node phase
// sends its copies and then adds what it received, a local pass that uses
// no link; channels in one phase run in step, so they would all be adding
// at once and leave NVLink idle: in every other piece of half of them (by
// channel pairs, so both phase orders have some) each block's copies are
// added as soon as that block's are sent, before the next block's go out.
//
// The hierarchical all-reduce of nodes whose GPUs all have NVLink is the
// two halves in one program: the reduce-scatter leaves block r of the
// output summed on rank r, and the all-gather takes it from there, in
// three phases per piece (the node's exchange, both rings along the rail,
// the node's exchange back) rotating as the all-reduce's do. Its scratch is
// the reduce-scatter's, n + N - 1 blocks, where the direct all-reduce's
// node phase takes P copies of the whole buffer. Its first and last pieces
// are cut in two, so that the pipeline fills and drains on half a piece
// while the others' phases keep the links busy; the all-gather alone cuts
// its first, and so does the reduce-scatter over a node's NVLink ring
// (buildHierarchicalHalf says why).
//
//===----------------------------------------------------------------------===//

#include "passes/NcclBaseline.h"
#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

class HierarchicalHalfBuilder : NodeMajorRanks {
public:
  /// Piece `piece` of `pieces` of channel `channel`'s share (of C).
  /// `order`: the task's rank order (empty: the identity).
  HierarchicalHalfBuilder(OpBuilder &b, Location loc, ProgramOp program, int64_t P,
                          int64_t C, int64_t scratchBlocks, int64_t channel,
                          const PipelinedPiece &piece, int64_t pieces, bool ringInNode,
                          ArrayRef<int64_t> order, bool sumEachBlockAsSent,
                          bool directBetweenNodes, bool allReduce = false)
      : NodeMajorRanks(b.getContext(), program.getRanks(), P, piece.dims - 1), b(b), loc(loc),
        C(C * pieces), scratchBlocks(scratchBlocks), ch(piece.index + channel * pieces),
        order(order), ringInNode(ringInNode), sumEachBlockAsSent(sumEachBlockAsSent),
        directBetweenNodes(directBetweenNodes), allReduce(allReduce),
        finalize(program.getRedop() == ccl::ReductionKind::Avg && !program.getPrescale()) {}

  /// The exchange inside the node, the ring along the rail, or both
  /// interleaved step by step (one piece per channel: each ring step's
  /// blocks move inside the node just before or after it).
  enum class Phase { Node, Rail, Both };
  /// The node's copies summed, then the rail's ring over the sums.
  void reduceScatter(Phase phase);
  /// The rail's ring, then the blocks to the node's other GPUs.
  void allGather(Phase phase);

private:
  AffineExpr constant(int64_t v) { return getAffineConstantExpr(v, ctx); }
  PartAttr part(BufferKind kind, AffineExpr index, int64_t parts, unsigned dims) {
    return PartAttr::get(ctx, kind, map(index, dims), parts);
  }
  /// This channel's piece of block j of the n-block buffer.
  PartAttr block(BufferKind kind, AffineExpr j, unsigned dims) {
    return part(kind, j * C + ch, n * C, dims);
  }
  /// This channel's piece of the one-block buffer (an all-reduce's: this
  /// rank's block of the output).
  PartAttr own(BufferKind kind, unsigned dims) {
    if (allReduce)
      return block(BufferKind::Output, blockOf(constant(0), local()), dims);
    return part(kind, ch, C, dims);
  }
  /// This channel's piece of scratch block i.
  PartAttr scratch(AffineExpr i, unsigned dims) {
    return part(BufferKind::Scratch, i * C + ch, scratchBlocks * C, dims);
  }
  /// The block of GPU `gpu` (a position) on the node `back` nodes before
  /// this one.
  AffineExpr blockOf(AffineExpr back, AffineExpr gpu) {
    return orderAt(order, ((node() - back + M) % M) * G + gpu % G);
  }
  /// GPU l+t and GPU l-t of this node.
  AffineMapAttr toGpu(AffineExpr t, unsigned dims) { return peer(onNode(local() + t), dims); }
  AffineMapAttr fromGpu(AffineExpr t, unsigned dims) {
    return peer(onNode(local() - t + G), dims);
  }

  /// `body(i, t)` for ring steps i in [first, N) and the node's other
  /// GPUs, t in [1, P) (dimensions 1 and 2).
  template <typename Fn> void forEachBlockAndGpu(int64_t first, Fn body) {
    if (G > 1)
      buildLoop(b, loc, first, M, [&] {
        buildLoop(b, loc, 1, G, [&] { body(dim(1), dim(2)); });
      });
  }

  /// The all-gather's block of ring step s from GPU l-t of this node.
  PartAttr mateBlock(AffineExpr s, AffineExpr t, unsigned dims) {
    return block(BufferKind::Output, blockOf(s, local() - t + G), dims);
  }

  /// Whether, with the phases apart, the node's exchange of the block that
  /// needs no network (the all-gather's own, the reduce-scatter's own
  /// node's) runs in the rail phase rather than the node phase: the first
  /// round (the all-gather's rail phase alone, the reduce-scatter's node
  /// phase alone) then keeps both kinds of link busy, and so does the last.
  /// (Not on the node's ring: there the own block's G-1 hops in a row
  /// would hold up the rail's steps; v100x8 x2 8 MiB all-gather in 64 x 8
  /// pieces 448 -> 521 us. Nor in the all-reduce built from the halves:
  /// it gained 1-5% at >= 32 MiB for kernels half as long again, a100x8
  /// x2 256 MiB 12853 -> 20605 lines for NVRTC.)
  bool ownBlockWithRail(Phase phase) const {
    return phase != Phase::Both && !ringInNode && !allReduce && G > 1 && M > 1;
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
  /// The node sums of ring steps [0, steps) into `dst(i, dims)` by a ring
  /// over the node's GPUs in order: block j starts at GPU j+1 and each GPU
  /// adds its copy as the block passes (the reduction rides on the
  /// transfer), GPU l ending with block l; slot (s, i) takes what arrives at
  /// ring step s. Each hop carries every step's block before the next hop
  /// starts, so the G-1 hops' latencies are paid once, not once a block.
  template <typename Dst> void ringNodeSums(int64_t steps, Dst dst, bool last) {
    auto copy = [&](AffineExpr i, AffineExpr hops, unsigned d) { // GPU l-hops's
      return block(BufferKind::Input, blockOf(i + 1, local() - hops + G), d);
    };
    buildLoop(b, loc, 0, steps, [&] {
      AffineExpr i = dim(1);
      SendOp::create(b, loc, copy(i, constant(1), 2), toGpu(constant(1), 2),
                     scratch(slot(constant(1), i), 2));
    });
    buildLoop(b, loc, 1, G - 1, [&] {
      buildLoop(b, loc, 0, steps, [&] {
        AffineExpr hop = dim(1), i = dim(2);
        RecvReduceSendOp::create(b, loc, fromGpu(constant(1), 3), scratch(slot(hop, i), 3),
                                 copy(i, hop + 1, 3), PartAttr(), UnitAttr(),
                                 toGpu(constant(1), 3), scratch(slot(hop + 1, i), 3));
      });
    });
    buildLoop(b, loc, 0, steps, [&] {
      AffineExpr i = dim(1);
      PartAttr arrived = scratch(slot(constant(G - 1), i), 2);
      RecvOp::create(b, loc, fromGpu(constant(1), 2), arrived);
      ReduceOp::create(b, loc, arrived, copy(i, constant(0), 2), dst(i, 2),
                       last && finalize ? b.getUnitAttr() : UnitAttr());
    });
  }

  /// The node's sum for ring step i into `dst(dims)` from the copies the
  /// direct exchange sent.
  template <typename Dst> void sumInNode(AffineExpr i, unsigned dims, Dst dst, bool last) {
    assert(!ringInNode && "the node's ring sums its blocks side by side");
    addNodeCopies(i, dims, dst(dims), dst(dims + 1), last);
  }

  OpBuilder &b;
  Location loc;
  int64_t C, scratchBlocks; // C and ch count pieces (a share each)
  AffineExpr ch;
  ArrayRef<int64_t> order;
  bool ringInNode, sumEachBlockAsSent, directBetweenNodes, allReduce, finalize;
};

void HierarchicalHalfBuilder::reduceScatter(Phase phase) {
  bool node = phase != Phase::Rail, rail = phase != Phase::Node;
  if (n == 1) {
    if (node)
      CopyOp::create(b, loc, block(BufferKind::Input, constant(0), 1),
                     own(BufferKind::Output, 1));
    return;
  }
  auto sumOf = [&](AffineExpr i) { return [this, i](unsigned d) { return nodeSum(i, d); }; };
  // Ring step M-1 reduces this node's own block, which the rail phase sums
  // last: its copies then move with the rail phase.
  bool ownWithRail = ownBlockWithRail(phase);
  int64_t nodeSteps = ownWithRail ? M - 1 : M;
  auto sendCopies = [&](AffineExpr i, unsigned dims) {
    buildLoop(b, loc, 1, G, [&] {
      AffineExpr t = dim(dims);
      SendOp::create(b, loc, block(BufferKind::Input, blockOf(i + 1, local() + t), dims + 1),
                     toGpu(t, dims + 1), scratch(slot(t, i), dims + 1));
    });
  };
  if (node) {
    // Ring step i reduces the block of node v-1-i (its GPU l's), so send
    // the node's other GPUs their copies in that order.
    if (!ringInNode && !rail && M > 1 && G > 1 && sumEachBlockAsSent) {
      buildLoop(b, loc, 0, nodeSteps, [&] {
        sendCopies(dim(1), 2);
        sumInNode(dim(1), 2, sumOf(dim(1)), false);
      });
      return;
    }
    // With one node the sum is this GPU's output, and the last addition.
    auto dst = [&](AffineExpr i, unsigned d) {
      return M == 1 ? own(BufferKind::Output, d) : nodeSum(i, d);
    };
    if (ringInNode && G > 1) { // every node sum now, round the ring
      ringNodeSums(nodeSteps, dst, /*last=*/M == 1);
    } else if (!ringInNode) {
      if (G > 1)
        buildLoop(b, loc, 0, nodeSteps, [&] { sendCopies(dim(1), 2); });
      if (M == 1)
        sumInNode(constant(0), 1, [&](unsigned d) { return dst(constant(0), d); },
                  /*last=*/true);
      else if (!rail && G > 1) // every node sum now
        buildLoop(b, loc, 0, nodeSteps, [&] { sumInNode(dim(1), 2, sumOf(dim(1)), false); });
    }
    if (M == 1)
      return;
  }
  if (!rail || M == 1)
    return;
  // The ring over rail l, as the flat ring reduce-scatter: the node sum of
  // step i (made just before it, when both phases run here) joins what
  // arrived from the node before and goes on.
  auto sum = [&](AffineExpr i, unsigned dims) {
    if (node && G > 1 && !ringInNode)
      sumInNode(i, dims, sumOf(i), false);
  };
  AffineExpr last = constant(M - 1);
  auto sumLast = [&] {
    if (ownWithRail) {
      sendCopies(last, 1);
      sumInNode(last, 1, sumOf(last), false);
    } else {
      sum(last, 1);
    }
  };
  auto staging = [&](AffineExpr i, unsigned dims) {
    return scratch(stagingBase() + i - 1, dims);
  };
  if (directBetweenNodes) {
    // Step i's sum to node v-1-i, whose staging block i+1 takes it; this
    // GPU's block (step M-1) then adds what the nodes v+1, ... sent.
    buildLoop(b, loc, 0, M - 1, [&] {
      AffineExpr i = dim(1);
      sum(i, 2);
      SendOp::create(b, loc, nodeSum(i, 2), peer(backAlongRail(i + 1), 2),
                     staging(i + 1, 2));
    });
    sumLast();
    buildLoop(b, loc, 1, M, [&] {
      RecvOp::create(b, loc, peer(alongRail(dim(1)), 2), staging(dim(1), 2));
    });
    PartAttr out = own(BufferKind::Output, 1);
    ReduceOp::create(b, loc, staging(constant(1), 1), nodeSum(last, 1), out,
                     M == 2 && finalize ? b.getUnitAttr() : UnitAttr());
    buildLoop(b, loc, 2, M - 1, [&] {
      ReduceOp::create(b, loc, staging(dim(1), 2), own(BufferKind::Output, 2),
                       own(BufferKind::Output, 2), UnitAttr());
    });
    if (M > 2)
      ReduceOp::create(b, loc, staging(last, 1), out, out,
                       finalize ? b.getUnitAttr() : UnitAttr());
    return;
  }
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
  sumLast();
  RecvOp::create(b, loc, peer(alongRail(-1), 1), staging(last, 1));
  ReduceOp::create(b, loc, staging(last, 1), nodeSum(last, 1),
                   own(BufferKind::Output, 1),
                   finalize ? b.getUnitAttr() : UnitAttr());
}

void HierarchicalHalfBuilder::allGather(Phase phase) {
  bool node = phase != Phase::Rail, rail = phase != Phase::Node;
  // This GPU's own block goes to its node-mates in the rail phase, after
  // its sends along the rail.
  bool ownWithRail = ownBlockWithRail(phase);
  // Every block this GPU has or gets goes on to the node's other GPUs (or
  // the next on the node's ring): as it arrives when both phases run here.
  auto passOn = [&](AffineExpr j, unsigned dims) {
    if (ringInNode && G > 1)
      SendOp::create(b, loc, block(BufferKind::Output, j, dims), toGpu(constant(1), dims),
                     block(BufferKind::Output, j, dims));
    else
      buildLoop(b, loc, 1, G, [&] {
        SendOp::create(b, loc, block(BufferKind::Output, j, dims + 1),
                       toGpu(dim(dims), dims + 1), block(BufferKind::Output, j, dims + 1));
      });
  };
  if (rail) {
    // Ring step s brings the block of GPU l of node v-s.
    AffineExpr mine = blockOf(constant(0), local());
    if (!allReduce) // an all-reduce's block is there already
      CopyOp::create(b, loc, own(BufferKind::Input, 1), block(BufferKind::Output, mine, 1));
    if (directBetweenNodes) // to every other node's GPU l at once
      buildLoop(b, loc, 1, M, [&] {
        SendOp::create(b, loc, own(BufferKind::Input, 2), peer(alongRail(dim(1)), 2),
                       block(BufferKind::Output, mine, 2));
      });
    else if (M > 1)
      SendOp::create(b, loc, own(BufferKind::Input, 1), peer(alongRail(1), 1),
                     block(BufferKind::Output, mine, 1));
    if (node || ownWithRail)
      passOn(mine, 1);
    if (directBetweenNodes) { // theirs as they come
      buildLoop(b, loc, 1, M, [&] {
        AffineExpr j = blockOf(dim(1), local());
        RecvOp::create(b, loc, peer(backAlongRail(dim(1)), 2),
                       block(BufferKind::Output, j, 2));
        if (node)
          passOn(j, 2);
      });
    } else {
      buildLoop(b, loc, 1, M - 1, [&] {
        AffineExpr j = blockOf(dim(1), local());
        RecvCopySendOp::create(b, loc, peer(alongRail(-1), 2),
                               block(BufferKind::Output, j, 2), peer(alongRail(1), 2),
                               block(BufferKind::Output, j, 2));
        if (node)
          passOn(j, 2);
      });
      if (M > 1) {
        AffineExpr j = blockOf(constant(M - 1), local());
        RecvOp::create(b, loc, peer(alongRail(-1), 1), block(BufferKind::Output, j, 1));
        if (node)
          passOn(j, 1);
      }
    }
    if (ownWithRail) // the node-mates' own blocks
      buildLoop(b, loc, 1, G, [&] {
        RecvOp::create(b, loc, fromGpu(dim(1), 2), mateBlock(constant(0), dim(1), 2));
      });
  }
  if (!node)
    return;
  int64_t first = ownWithRail ? 1 : 0;
  if (!rail) // the rail's blocks, in its order (nodes v, v-1, ...)
    buildLoop(b, loc, first, M, [&] { passOn(blockOf(dim(1), local()), 2); });
  // GPU l-t passes its blocks on in its rail's order; on the node's ring
  // they come t hops from GPU l-1, which passed on its own first, then
  // those one hop away, ..., and go on until they have made G-1 hops.
  if (!ringInNode) {
    forEachBlockAndGpu(first, [&](AffineExpr s, AffineExpr t) {
      RecvOp::create(b, loc, fromGpu(t, 3), mateBlock(s, t, 3));
    });
    return;
  }
  buildLoop(b, loc, 1, G - 1, [&] {
    buildLoop(b, loc, 0, M, [&] {
      RecvCopySendOp::create(b, loc, fromGpu(constant(1), 3), mateBlock(dim(2), dim(1), 3),
                             toGpu(constant(1), 3), mateBlock(dim(2), dim(1), 3));
    });
  });
  if (G > 1)
    buildLoop(b, loc, 0, M, [&] {
      RecvOp::create(b, loc, fromGpu(constant(1), 2), mateBlock(dim(1), constant(G - 1), 2));
    });
}

/// A channel's share in Q pieces, the first (`head`) and the last (`tail`)
/// cut in two where there are 4 pieces or more, of 2 elements or more, so
/// that the pipeline fills or drains on half a piece while the other
/// channels' phases keep the links busy. In order; halves 2s and 2s + 1 of
/// the share cut in 2Q make up piece s.
struct TaperedPieces {
  TaperedPieces(int64_t Q, int64_t elements, bool head, bool tail)
      : Q(Q), head(head && Q >= 4 && elements >= 2 * Q),
        tail(tail && Q >= 4 && elements >= 2 * Q) {}
  int64_t size() const { return Q + head + tail; }
  /// Pieces [first(), last()) are whole, alike but for their index.
  int64_t first() const { return head ? 2 : 0; }
  int64_t last() const { return first() + Q - head - tail; }
  /// Piece s as (its index, the pieces its share is cut in).
  std::pair<AffineExpr, int64_t> operator[](AffineExpr s) const {
    auto c = dyn_cast<AffineConstantExpr>(s);
    if (c && c.getValue() < first())
      return {s, 2 * Q};
    if (c && c.getValue() >= last())
      return {s + (2 * Q - size()), 2 * Q};
    return {s - first() + head, Q};
  }

private:
  int64_t Q;
  bool head, tail;
};

enum class Half { ReduceScatter, AllGather };

ProgramOp buildHierarchicalHalf(OpBuilder &b, Location loc, StringRef name, Half half,
                                const ccopt::AllReduceShape &shape, int64_t perNode,
                                ccopt::NodeRing nodeRing, int64_t chunks, int64_t channels,
                                const ccopt::RingOrders &nodeRings,
                                ArrayRef<int64_t> groupOrder, bool directBetweenNodes) {
  int64_t n = shape.ranks, m = shape.count, P = perNode, N = n / P;
  assert(P >= 1 && n % P == 0 && "nodes must hold the same number of ranks");
  assert(!shape.inPlace && "the buffers differ in size");
  int64_t C = std::clamp<int64_t>(m, 1, channels);
  int64_t Q = std::clamp<int64_t>(m / C, 1, chunks);
  bool ringInNode = nodeRing == ccopt::NodeRing::Always ||
                    (nodeRing == ccopt::NodeRing::InPieces && Q > 1);
  bool scatter = half == Half::ReduceScatter;
  int64_t scratchBlocks = scatter ? ccopt::hierarchicalReduceScatterScratch(n, P) : 0;
  auto program = buildProgram(
      b, loc, name,
      scatter ? ccl::CollectiveKind::ReduceScatter : ccl::CollectiveKind::AllGather,
      shape, /*hasRedop=*/scatter, /*input=*/scatter ? n * m : m,
      /*output=*/scatter ? m : n * m, scratchBlocks * m, std::nullopt,
      directBetweenNodes ? "hierarchical_direct" : "hierarchical", C, Q);
  OpBuilder::InsertionGuard guard(b);
  ccopt::RingOrders orders =
      ringInNode ? repeatOverNodes(nodeRings, n, P) : ccopt::RingOrders();
  if (!groupOrder.empty()) { // positions node-major over the groups
    if (orders.empty())
      orders.emplace_back(groupOrder.begin(), groupOrder.end());
    else
      for (std::vector<int64_t> &order : orders)
        for (int64_t &rank : order)
          rank = groupOrder[rank];
  }
  for (int64_t ch = 0; ch < C; ++ch) {
    ArrayRef<int64_t> order =
        buildTask(b, loc, program, ch, orders).getRankMap().value_or(ArrayRef<int64_t>());
    int64_t Qc = spreadPieces(ch, Q, m / C);
    // The all-gather starts on the network: half a first piece starts the
    // node's phase, on the busier NVLink, sooner (a100x8 x2 256 MiB 1072.7
    // -> 1040.6 us). So does the reduce-scatter's where its node phase is
    // an NVLink ring, P - 1 hops before the network gets work (v100x8 x2
    // 256 MiB 3031 -> 2956 us); elsewhere its halves at either end measured
    // slower as often as faster (a100x8 x4 512 MiB 2279 -> 2347 us; a
    // PCIe node's socket ring 10745 -> 10776).
    bool halveFirst = !scatter || (ringInNode && groupOrder.empty());
    TaperedPieces pieces(Qc, m / C, halveFirst, /*tail=*/false);
    auto build = [&](const PipelinedPiece &piece, HierarchicalHalfBuilder::Phase phase) {
      auto [index, of] = pieces[piece.index];
      HierarchicalHalfBuilder builder(b, loc, program, P, C, scratchBlocks, ch,
                                      {index, piece.residue, piece.dims}, of, ringInNode,
                                      order, (ch / 2 + piece.residue) % 2,
                                      directBetweenNodes);
      scatter ? builder.reduceScatter(phase) : builder.allGather(phase);
    };
    if (Q == 1) {
      build({b.getAffineConstantExpr(0), 0, 1}, HierarchicalHalfBuilder::Phase::Both);
      continue;
    }
    // Phase 0: the reduce-scatter's inside the node, the all-gather's along
    // the rail.
    using Phase = HierarchicalHalfBuilder::Phase;
    Phase phases[] = {scatter ? Phase::Node : Phase::Rail,
                      scatter ? Phase::Rail : Phase::Node};
    forEachPieceRound(b, loc, ch, pieces.size(), 2, pieces.first(), pieces.last(), 2,
                      /*fewer=*/Qc < Q,
                      [&](const PipelinedPiece &piece, int phase) { build(piece, phases[phase]); });
  }
  return program;
}

} // namespace

ccopt::NodeRing ccopt::nodeRingOf(const ccopt::topo::Machine &machine, ArrayRef<int> ranks) {
  if (nvlinkBetweenAll(machine, ranks))
    return NodeRing::Never;
  return ringsStayOnNvlink(machine, ranks) ? NodeRing::Always : NodeRing::InPieces;
}

int64_t ccopt::hierarchicalReduceScatterScratch(int64_t ranks, int64_t perNode) {
  // The node's copies, the node sums, the ring's staging blocks.
  int64_t P = perNode, N = ranks / perNode;
  return ranks > 1 ? (P - 1) * N + (P > 1 && N > 1 ? N : 0) + (N - 1) : 0;
}

ProgramOp ccopt::buildHierarchicalAllReduceByHalves(OpBuilder &b, Location loc,
                                                    StringRef name,
                                                    const AllReduceShape &shape,
                                                    int64_t perNode, int64_t chunks,
                                                    int64_t channels,
                                                    bool directBetweenNodes) {
  int64_t n = shape.ranks, m = shape.count / n;
  assert(shape.count % n == 0 && "the halves need equal blocks");
  int64_t C = std::clamp<int64_t>(m, 1, channels);
  int64_t Q = std::clamp<int64_t>(m / C, 1, chunks);
  int64_t scratchBlocks = hierarchicalReduceScatterScratch(n, perNode);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce, shape,
                              /*hasRedop=*/true, shape.count, shape.count,
                              scratchBlocks * m, std::nullopt,
                              directBetweenNodes ? "hierarchical_direct" : "hierarchical", C, Q);
  OpBuilder::InsertionGuard guard(b);
  using Phase = HierarchicalHalfBuilder::Phase;
  for (int64_t ch = 0; ch < C; ++ch) {
    int64_t Qc = spreadPieces(ch, Q, m / C);
    TaperedPieces pieces(Qc, m / C, /*head=*/true, /*tail=*/true);
    buildTask(b, loc, program, ch, {});
    forEachPieceRound(b, loc, ch, pieces.size(), 3, pieces.first(), pieces.last(), 2,
                      /*fewer=*/Qc < Q, [&](const PipelinedPiece &s, int phase) {
      auto [index, of] = pieces[s.index];
      // Channels that start the round at one phase alternate by threes.
      HierarchicalHalfBuilder builder(b, loc, program, perNode, C, scratchBlocks, ch,
                                      {index, s.residue, s.dims}, of, /*ringInNode=*/false,
                                      {}, (ch / 3 + s.residue) % 2, directBetweenNodes,
                                      /*allReduce=*/true);
      if (phase != 2)
        builder.reduceScatter(phase == 0 ? Phase::Node : Phase::Rail);
      if (phase != 0)
        builder.allGather(phase == 1 ? Phase::Rail : Phase::Node);
    });
  }
  return program;
}

ProgramOp ccopt::buildHierarchicalReduceScatter(OpBuilder &b, Location loc,
                                                StringRef name,
                                                const AllReduceShape &shape,
                                                int64_t perNode, NodeRing nodeRing,
                                                int64_t chunks, int64_t channels,
                                                const RingOrders &nodeRings,
                                                ArrayRef<int64_t> groupOrder,
                                                bool directBetweenNodes) {
  return buildHierarchicalHalf(b, loc, name, Half::ReduceScatter, shape, perNode,
                               nodeRing, chunks, channels, nodeRings, groupOrder,
                               directBetweenNodes);
}

ProgramOp ccopt::buildHierarchicalAllGather(OpBuilder &b, Location loc, StringRef name,
                                            const AllReduceShape &shape,
                                            int64_t perNode, NodeRing nodeRing,
                                            int64_t chunks, int64_t channels,
                                            const RingOrders &nodeRings,
                                            ArrayRef<int64_t> groupOrder,
                                            bool directBetweenNodes) {
  return buildHierarchicalHalf(b, loc, name, Half::AllGather, shape, perNode,
                               nodeRing, chunks, channels, nodeRings, groupOrder,
                               directBetweenNodes);
}
