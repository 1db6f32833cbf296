//===- HierarchicalAllReduce.cpp - node-aware all-reduce ------------------===//
//
// Several nodes of G GPUs each, ranks node-major (rank r is GPU r mod G of
// node r floordiv G). Three phases, each over the fastest links it can use:
//  1. inside every node a direct reduce-scatter over NVLink: GPU l adds the
//     node's copies of block l (in GPU order);
//  2. between nodes, block l is all-reduced among the GPUs l of every node,
//     which share NIC rail l: a ring over the nodes, or over a power-of-two
//     number of nodes recursive doubling (fewest hops) or recursive halving
//     then doubling (log2 of the nodes hops each way, the ring's bytes);
//  3. inside every node a direct all-gather of the blocks.
// On nodes whose NVSwitch reduces (NVLS, multicast buffers) phases 1 and 3
// go through it instead: GPU l reads block l of its node reduced in the
// switch and later stores the result once to every GPU of the node.
// Only 1/G of the buffer crosses each NIC, and the latency-bound part takes
// M or log2(M) network hops instead of a flat ring's 2(n-1).
//
// Where some of a node's GPUs have no NVLink between them (v100x8's cube
// mesh), phases 1 and 3 are rings over the node's NVLink rings instead (a
// channel's task lists every node's GPUs in its ring's order): position l
// then ends phase 1 with block l+1, which phase 2 all-reduces along its
// rail (position l is the same GPU on every node) as before.
//
// In P pieces per channel the phases pipeline: in round s a channel runs
// phase 1 on piece s, phase 2 on piece s-1 and phase 3 on piece s-2, and
// channels start the round at different phases (channel c at phase c mod
// 3), so that while some channels move data over NVLink others have theirs
// on the network: the phases overlap, as NCCL's tree overlaps its chains
// inside the nodes with the tree between them. Channels cut their shares in
// different numbers of pieces around P (spreadPieces), so that their rounds
// take different times and do not fall into step.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"
#include "topology/Machine.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt;
using namespace ccopt::detail;

namespace {

class HierarchicalBuilder : NodeMajorRanks {
public:
  /// Piece `piece` of `pieces` of channel `channel`'s share (of C).
  HierarchicalBuilder(OpBuilder &b, Location loc, ProgramOp program, int64_t G,
                      int64_t C, int64_t slots, int64_t subparts, int64_t channel,
                      const PipelinedPiece &piece, int64_t pieces, NodeExchange exchange)
      : NodeMajorRanks(b.getContext(), program.getRanks(), G, piece.dims - 1), b(b), loc(loc),
        C(C * pieces), slots(slots), K(subparts), ch(piece.index + channel * pieces),
        exchange(exchange),
        finalize(program.getRedop() == ccl::ReductionKind::Avg && !program.getPrescale()),
        roundOwn(static_cast<bool>(program.getWire())) {}

  /// Phase 0, 1 or 2 (see above).
  void phase(int index, RailAllReduce rails) {
    if (index == 0 && exchange == NodeExchange::Switch)
      switchReduceScatter();
    else if (index == 0)
      ringInNode() ? intraRingReduceScatter() : intraReduceScatter();
    else if (index == 2 && exchange == NodeExchange::Switch)
      switchAllGather();
    else if (index == 2)
      ringInNode() ? intraRingAllGather() : intraAllGather();
    else if (rails == RailAllReduce::Ring)
      interRing();
    else if (rails == RailAllReduce::HalvingDoubling)
      interHalvingDoubling();
    else
      interRecursiveDoubling();
  }

private:
  AffineExpr step() { return dim(1); }

  /// Block j (G blocks per channel) of the input or output.
  PartAttr block(BufferKind kind, AffineExpr j, unsigned dims) {
    return part(kind, j + ch * G, C * G, dims);
  }
  /// Block j in scratch slot s.
  PartAttr slot(AffineExpr s, AffineExpr j, unsigned dims) {
    return part(BufferKind::Scratch, s * (C * G) + ch * G + j, slots * C * G, dims);
  }
  /// Subpart k (K per block) of this rank's block, in the output or in
  /// scratch slot nodeSlots() (the ring's staging area).
  PartAttr sub(BufferKind kind, AffineExpr k, unsigned dims) {
    AffineExpr index = (owned() + ch * G) * K + k % K;
    if (kind == BufferKind::Scratch)
      return part(kind, index + nodeSlots() * C * G * K, slots * C * G * K, dims);
    return part(kind, index, C * G * K, dims);
  }
  PartAttr part(BufferKind kind, AffineExpr index, int64_t parts, unsigned dims) {
    return PartAttr::get(ctx, kind, map(index, dims), parts);
  }

  /// Sends src(t) to GPU l+t of the node at dst(t) for t in [1, G), then
  /// receives from GPU l-t what it wrote at landed(t).
  template <typename Src, typename Dst, typename Landed>
  void exchangeInNode(Src src, Dst dst, Landed landed) {
    buildLoop(b, loc, 1, G, [&] {
      SendOp::create(b, loc, src(), peer(onNode(local() + step()), 2), dst());
    });
    buildLoop(b, loc, 1, G, [&] {
      RecvOp::create(b, loc, peer(onNode(local() - step() + G), 2), landed());
    });
  }
  /// The local index of the GPU t before this one (t: the loop step).
  AffineExpr before() { return (local() - step() + G) % G; }

  /// GPU l + hops of this node.
  AffineMapAttr inNode(int64_t hops, unsigned dims) {
    return peer(onNode(local() + (hops % G + G) % G), dims);
  }
  /// Scratch slots phase 1 takes: the node's copies of a block, the ring's
  /// staging, none in the switch (the slots after them are phase 2's).
  int64_t nodeSlots() { return hierarchicalNodeSlots(G, exchange); }
  bool ringInNode() const { return exchange == NodeExchange::Ring; }
  /// The block phase 2 all-reduces: this GPU's after phase 1.
  AffineExpr owned() { return ringInNode() ? (local() + 1) % G : local(); }

  /// A ring over the node: G-1 steps, each adding this GPU's copy to the
  /// block that arrived and passing it on; GPU l ends with the node's sum
  /// of block l+1.
  void intraRingReduceScatter() {
    AffineExpr l = local();
    auto staged = [&](AffineExpr j, unsigned dims) {
      return slot(getAffineConstantExpr(0, ctx), j, dims);
    };
    SendOp::create(b, loc, block(BufferKind::Input, l, 1), inNode(1, 1), staged(l, 1));
    buildLoop(b, loc, 1, G - 1, [&] {
      AffineExpr j = (l - step() + G) % G;
      RecvReduceSendOp::create(b, loc, inNode(-1, 2), staged(j, 2),
                               block(BufferKind::Input, j, 2), PartAttr(), UnitAttr(),
                               inNode(1, 2), staged(j, 2));
    });
    RecvOp::create(b, loc, inNode(-1, 1), staged(owned(), 1));
    ReduceOp::create(b, loc, staged(owned(), 1), block(BufferKind::Input, owned(), 1),
                     block(BufferKind::Output, owned(), 1), UnitAttr());
  }

  /// The ring back: G-1 steps pass the blocks on as they arrive.
  void intraRingAllGather() {
    AffineExpr o = owned();
    SendOp::create(b, loc, block(BufferKind::Output, o, 1), inNode(1, 1),
                   block(BufferKind::Output, o, 1));
    buildLoop(b, loc, 1, G - 1, [&] {
      AffineExpr j = (o - step() + G) % G;
      RecvCopySendOp::create(b, loc, inNode(-1, 2), block(BufferKind::Output, j, 2),
                             inNode(1, 2), block(BufferKind::Output, j, 2));
    });
    RecvOp::create(b, loc, inNode(-1, 1), block(BufferKind::Output, (o + 1) % G, 1));
  }

  void intraReduceScatter() {
    AffineExpr l = local(), j = local() + step();
    CopyOp::create(b, loc, block(BufferKind::Input, l, 1), slot(l, l, 1));
    exchangeInNode([&] { return block(BufferKind::Input, j % G, 2); },
                   [&] { return slot(l, j % G, 2); },
                   [&] { return slot(before(), l, 2); });
    // The node's sum of block l, adding the GPUs' copies in order.
    auto out = [&](unsigned dims) { return block(BufferKind::Output, l, dims); };
    ReduceOp::create(b, loc, slot(getAffineConstantExpr(0, ctx), l, 1),
                     slot(getAffineConstantExpr(1, ctx), l, 1), out(1), UnitAttr());
    buildLoop(b, loc, 2, G, [&] {
      ReduceOp::create(b, loc, out(2), slot(step(), l, 2), out(2), UnitAttr());
    });
  }

  void interRing() {
    // A ring over the nodes on block l, in M subparts: reduce-scatter, then
    // all-gather, as the flat ring does.
    AffineMapAttr next = peer(alongRail(1), 1), prev = peer(alongRail(-1), 1);
    AffineMapAttr nextS = peer(alongRail(1), 2), prevS = peer(alongRail(-1), 2);
    AffineExpr m = node();
    SendOp::create(b, loc, sub(BufferKind::Output, m, 1), next,
                   sub(BufferKind::Scratch, m, 1));
    buildLoop(b, loc, 1, M - 1, [&] {
      AffineExpr j = m - step() + M;
      RecvReduceSendOp::create(b, loc, prevS, sub(BufferKind::Scratch, j, 2),
                               sub(BufferKind::Output, j, 2), PartAttr(), UnitAttr(),
                               nextS, sub(BufferKind::Scratch, j, 2));
    });
    AffineExpr owned = m + 1;
    RecvReduceSendOp::create(b, loc, prev, sub(BufferKind::Scratch, owned, 1),
                             sub(BufferKind::Output, owned, 1),
                             sub(BufferKind::Output, owned, 1),
                             finalize ? b.getUnitAttr() : UnitAttr(), next,
                             sub(BufferKind::Output, owned, 1));
    buildLoop(b, loc, 1, M - 1, [&] {
      AffineExpr j = m + 1 - step() + M;
      RecvCopySendOp::create(b, loc, prevS, sub(BufferKind::Output, j, 2), nextS,
                             sub(BufferKind::Output, j, 2));
    });
    // The last block of the all-gather (m + 2: the one prev completed last).
    RecvOp::create(b, loc, prev, sub(BufferKind::Output, m + 2, 1));
  }

  /// Subparts [first * len, (first + 1) * len) of this rank's block (K
  /// subparts), in the output or in phase 2's scratch slot `s` (of two).
  PartAttr subRange(BufferKind kind, AffineExpr first, int64_t len, unsigned dims,
                    int64_t s = 0) {
    int64_t per = K / len;
    AffineExpr index = (owned() + ch * G) * per + first;
    if (kind == BufferKind::Scratch)
      return part(kind, index + (nodeSlots() + s) * C * G * per, slots * C * G * per, dims);
    return part(kind, index, C * G * per, dims);
  }

  /// Rabenseifner's along the rail, block l in M subparts: a reduce-scatter
  /// by recursive halving (in round k the same GPU d = M / 2^(k+1) nodes
  /// away and this one split the subparts they share, each sending the
  /// other the half that one keeps), then an all-gather by recursive
  /// doubling back. log2(M) network hops each way, and each NIC carries
  /// what the ring's does. Rounds stage in two scratch slots in turn: round
  /// k's partner writes where round k - 2's did, so it first waits for this
  /// rank's signal that that was added (sent as soon as it was; nothing else
  /// orders the two). Over a narrow wire this rank rounds the subpart it
  /// reduced (through the slot after the last round's), so that it keeps
  /// what the others receive.
  void interHalvingDoubling() {
    int64_t rounds = llvm::Log2_64(M);
    AffineExpr m = node();
    auto partner = [&](int64_t k) {
      int64_t d = M >> (k + 1);
      return peer(rank() + d * G - (m.floorDiv(d) % 2) * (2 * d * G), 1);
    };
    auto range = [&](BufferKind kind, int64_t k, bool mine, int64_t s = 0) {
      int64_t d = M >> (k + 1);
      AffineExpr own = m.floorDiv(d);
      return subRange(kind, mine ? own : own + 1 - (own % 2) * 2, d, 1, s);
    };
    for (int64_t k = 0; k < rounds; ++k) {
      if (k >= 2)
        RecvOp::create(b, loc, partner(k));
      SendOp::create(b, loc, range(BufferKind::Output, k, false), partner(k),
                     range(BufferKind::Scratch, k, false, k % 2));
      PartAttr staged = range(BufferKind::Scratch, k, true, k % 2);
      RecvOp::create(b, loc, partner(k), staged);
      PartAttr out = range(BufferKind::Output, k, true);
      ReduceOp::create(b, loc, out, staged, out,
                       k == rounds - 1 && finalize ? b.getUnitAttr() : UnitAttr());
      if (k + 2 < rounds)
        SignalOp::create(b, loc, partner(k + 2));
    }
    if (roundOwn) {
      PartAttr out = subRange(BufferKind::Output, m, 1, 1);
      PartAttr rounded = subRange(BufferKind::Scratch, m, 1, 1, rounds % 2);
      CopyOp::create(b, loc, out, rounded);
      CopyOp::create(b, loc, rounded, out);
    }
    for (int64_t k = rounds - 1; k >= 0; --k) {
      SendOp::create(b, loc, range(BufferKind::Output, k, true), partner(k),
                     range(BufferKind::Output, k, true));
      RecvOp::create(b, loc, partner(k), range(BufferKind::Output, k, false));
    }
  }

  void interRecursiveDoubling() {
    int64_t rounds = llvm::Log2_64(M);
    auto out = block(BufferKind::Output, owned(), 1);
    for (int64_t k = 0; k < rounds; ++k) {
      // The same GPU on node (node xor 2^k).
      int64_t stride = G << k;
      AffineExpr partner = rank() + stride - (rank().floorDiv(stride) % 2) * (2 * stride);
      PartAttr in = slot(getAffineConstantExpr(nodeSlots() + k, ctx), owned(), 1);
      SendOp::create(b, loc, out, peer(partner, 1), in);
      RecvOp::create(b, loc, peer(partner, 1), in);
      // Over a narrow wire both partners add the same rounded values: this
      // rank's own block is rounded in a slot of its own first.
      PartAttr own = out;
      if (roundOwn) {
        own = slot(getAffineConstantExpr(nodeSlots() + rounds, ctx), owned(), 1);
        CopyOp::create(b, loc, out, own);
      }
      ReduceOp::create(b, loc, own, in, out,
                       k == rounds - 1 && finalize ? b.getUnitAttr() : UnitAttr());
    }
  }

  /// NVLS: GPU l reads block l of every GPU of its node through the
  /// switch, summed (multimem ld_reduce over the node's multicast object).
  void switchReduceScatter() {
    MultimemReduceOp::create(b, loc, block(BufferKind::Input, local(), 1),
                             block(BufferKind::Output, local(), 1), UnitAttr(),
                             b.getI64IntegerAttr(G));
  }
  /// And stores the result once, which the switch writes into every GPU of
  /// the node (the end's signals say it has landed).
  void switchAllGather() {
    MultimemStoreOp::create(b, loc, block(BufferKind::Output, local(), 1),
                            block(BufferKind::Output, local(), 1), b.getI64IntegerAttr(G));
  }

  void intraAllGather() {
    exchangeInNode([&] { return block(BufferKind::Output, local(), 2); },
                   [&] { return block(BufferKind::Output, local(), 2); },
                   [&] { return block(BufferKind::Output, before(), 2); });
  }

  OpBuilder &b;
  Location loc;
  int64_t C, slots, K; // C and ch count pieces (a share each)
  AffineExpr ch;
  NodeExchange exchange;
  bool finalize, roundOwn;
};

} // namespace

ProgramOp ccopt::buildHierarchicalAllReduce(OpBuilder &b, Location loc,
                                            StringRef name,
                                            const AllReduceShape &shape,
                                            int64_t perNode, RailAllReduce rails,
                                            int64_t chunks, int64_t channels,
                                            const RingOrders &nodeRings, bool inSwitch) {
  int64_t n = shape.ranks, count = shape.count, G = perNode, M = n / G;
  assert(G >= 2 && M >= 2 && n % G == 0 && "needs several nodes of several GPUs");
  bool ring = rails == RailAllReduce::Ring;
  if (!inSwitch && hierarchicalAllReduceByHalves(shape, perNode, ring, !nodeRings.empty()))
    return buildHierarchicalAllReduceByHalves(b, loc, name, shape, perNode, chunks, channels);
  assert((ring || llvm::isPowerOf2_64(M)) &&
         "recursive doubling and halving need a power-of-two number of nodes");
  NodeExchange inNode = inSwitch            ? NodeExchange::Switch
                        : nodeRings.empty() ? NodeExchange::Direct
                                            : NodeExchange::Ring;
  int64_t K = rails == RailAllReduce::RecursiveDoubling ? 1 : M;
  // Every subpart keeps an element.
  int64_t C = std::clamp<int64_t>(count / (G * K), 1, channels);
  int64_t P = std::clamp<int64_t>(count / (C * G * K), 1, chunks);
  int64_t slots = hierarchicalAllReduceSlots(G, M, rails, inNode, shape.narrowWire());
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce, shape,
                              /*hasRedop=*/true, count, count, slots * count, std::nullopt,
                              inSwitch ? "hierarchical_nvls" : hierarchicalAllReduceName(rails),
                              C, P);
  program.setMulticast(inSwitch);
  OpBuilder::InsertionGuard guard(b);
  // Every node's GPUs in the node's ring order (one per channel, in turn),
  // as the tasks' rank order.
  RingOrders orders = repeatOverNodes(nodeRings, n, G);
  NodeMajorRanks node(b.getContext(), n, G);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch, orders);
    int64_t Pc = spreadPieces(ch, P, count / (C * G * K));
    forEachPieceRound(b, loc, ch, Pc, 3, 0, Pc, 1, /*fewer=*/Pc < P,
                      [&](const PipelinedPiece &piece, int phase) {
      HierarchicalBuilder(b, loc, program, G, C, slots, K, ch, piece, Pc, inNode)
          .phase(phase, rails);
    });
    if (!inSwitch)
      continue;
    // The node's stores have landed once every GPU of it has signalled.
    AffineExpr s = node.dim(1);
    buildLoop(b, loc, 1, G, [&] {
      SignalOp::create(b, loc, node.peer(node.onNode(node.local() + s), 2));
    });
    buildLoop(b, loc, 1, G, [&] {
      RecvOp::create(b, loc, node.peer(node.onNode(node.local() - s + G), 2));
    });
  }
  return program;
}

int64_t ccopt::hierarchicalNodeSlots(int64_t perNode, NodeExchange inNode) {
  switch (inNode) {
  case NodeExchange::Direct: return perNode;
  case NodeExchange::Ring: return 1;
  case NodeExchange::Switch: return 0;
  }
  llvm_unreachable("a node exchange");
}

int64_t ccopt::hierarchicalAllReduceSlots(int64_t perNode, int64_t nodes,
                                          RailAllReduce rails, NodeExchange inNode,
                                          bool narrowWire) {
  int64_t rounds = llvm::Log2_64(nodes), own = narrowWire ? 1 : 0;
  int64_t between = rails == RailAllReduce::Ring                ? 1
                    : rails == RailAllReduce::RecursiveDoubling ? rounds + own
                                                                : std::min<int64_t>(2, rounds + own);
  return hierarchicalNodeSlots(perNode, inNode) + between;
}

StringRef ccopt::hierarchicalAllReduceName(RailAllReduce rails) {
  switch (rails) {
  case RailAllReduce::Ring: return "hierarchical";
  case RailAllReduce::RecursiveDoubling: return "hierarchical_rd";
  case RailAllReduce::HalvingDoubling: return "hierarchical_hd";
  }
  llvm_unreachable("a rail all-reduce");
}

RailAllReduce ccopt::railsOf(StringRef algorithm, int64_t nodes) {
  if (algorithm == "hierarchical_nvls")
    return llvm::isPowerOf2_64(nodes) ? RailAllReduce::HalvingDoubling : RailAllReduce::Ring;
  return railAllReduceOf(algorithm).value_or(RailAllReduce::Ring);
}

std::optional<RailAllReduce> ccopt::railAllReduceOf(StringRef algorithm) {
  for (RailAllReduce rails : {RailAllReduce::Ring, RailAllReduce::RecursiveDoubling,
                              RailAllReduce::HalvingDoubling})
    if (algorithm == hierarchicalAllReduceName(rails))
      return rails;
  return std::nullopt;
}

bool ccopt::hierarchicalAllReduceByHalves(const AllReduceShape &shape, int64_t perNode,
                                          bool ringBetweenNodes, bool ringInNode) {
  return ringBetweenNodes && !ringInNode && shape.ranks / perNode <= 8 &&
         shape.count % shape.ranks == 0 && !shape.narrowWire();
}

bool ccopt::nvlinkBetweenAll(const topo::Machine &machine, llvm::ArrayRef<int> ranks) {
  return llvm::all_of(ranks, [&](int a) {
    return llvm::all_of(ranks, [&](int b) {
      return a == b || machine.routeKind(a, b) == topo::LinkKind::NvLink;
    });
  });
}

namespace {

/// The size of the equal blocks (at least 2 of at least 2) that `ranks`
/// come in, in order, where `apart` says whether two world ranks are in
/// different groups: every rank is with its block's first and apart from
/// every other block's.
template <typename Apart>
std::optional<int64_t> equalBlocks(llvm::ArrayRef<int> ranks, Apart apart) {
  int64_t n = ranks.size(), G = 0;
  while (G < n && !apart(ranks[G], ranks[0]))
    ++G;
  if (G < 2 || n % G || n / G < 2)
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t first = 0; first < n; first += G)
      if (apart(ranks[i], ranks[first]) != (i - i % G != first))
        return std::nullopt;
  return G;
}

} // namespace

std::optional<int64_t> ccopt::ranksPerGroup(const topo::Machine &machine,
                                            llvm::ArrayRef<int> ranks) {
  if (llvm::any_of(ranks, [&](int r) { return r < 0 || r >= machine.ranks(); }))
    return std::nullopt;
  auto otherNode = [&](int a, int b) { return machine.nodeOf(a) != machine.nodeOf(b); };
  if (llvm::any_of(ranks, [&](int r) { return otherNode(r, ranks[0]); }))
    return equalBlocks(ranks, otherNode);
  return equalBlocks(ranks, [&](int a, int b) {
    return machine.routeKind(a, b) == topo::LinkKind::Smp;
  });
}

std::optional<ccopt::SocketGroups> ccopt::socketGroups(const topo::Machine &machine,
                                                      llvm::ArrayRef<int> ranks) {
  std::optional<int64_t> perNode = ranksPerGroup(machine, ranks);
  if (!perNode || machine.nodeOf(ranks.front()) == machine.nodeOf(ranks.back()))
    return std::nullopt;
  std::optional<int64_t> perSocket = ranksPerGroup(machine, ranks.take_front(*perNode));
  if (!perSocket)
    return std::nullopt;
  // Every node's sockets alike (ranksPerGroup checked only the first's).
  for (size_t node = *perNode; node < ranks.size(); node += *perNode)
    if (ranksPerGroup(machine, ranks.slice(node, *perNode)) != perSocket)
      return std::nullopt;
  SocketGroups groups{static_cast<int64_t>(ranks.size()) / (*perNode / *perSocket), {}};
  for (int64_t socket = 0; socket < *perNode; socket += *perSocket)
    for (size_t node = 0; node < ranks.size(); node += *perNode)
      llvm::append_range(groups.order, ranks.slice(node + socket, *perSocket));
  return groups;
}
