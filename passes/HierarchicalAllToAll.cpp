//===- HierarchicalAllToAll.cpp - node-aware all-to-all -------------------===//
//
// N nodes of P GPUs (rank v*P + l is GPU l of node v). A flat all-to-all
// sends n-1 small messages per rank, (N-1)*P of them over the network. Here
// GPU l of node v first gathers, from every GPU of its node, the blocks for
// GPU l of each other node u (over NVLink, into a scratch segment per u),
// then sends each segment in one message over rail l: the P blocks from node
// v are exactly the output blocks [v*P, (v+1)*P) of GPU l of node u, so they
// land where they belong and need no scatter. Blocks for the own node go
// straight into the node-mates' outputs. Network messages per rank: N-1, of
// P blocks each.
//
// Channels split the work into lanes: lane c takes the nodes v+s and
// node-mates l+t with s, t = 1 + c (mod lanes). With more channels than
// that (two nodes have a single lane of rail work, which would gather all
// of GPU l's segment on one channel), the blocks relay one by one instead:
// lane c serves the origins l-t with t = c (mod lanes), a channel per lane
// and piece of every block: GPU l-t hands GPU l its block for GPU l of
// node u, and GPU l sends it on over rail l, each block a message of its
// own. Where some node-mates have no NVLink (v100x8), a hand-off between
// them takes two NVLink hops through a GPU linked to both.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

class HierarchicalAllToAllBuilder : NodeMajorRanks {
public:
  HierarchicalAllToAllBuilder(OpBuilder &b, Location loc, ProgramOp program,
                              int64_t P, int64_t lanes, int64_t pieces, int64_t channel)
      : NodeMajorRanks(b.getContext(), program.getRanks(), P), b(b), loc(loc),
        L(lanes), K(pieces), lane(channel % lanes), piece(channel / lanes),
        staged(program.getScratchCount() > 0) {}

  void build(bool relay) {
    if (lane == 0)
      CopyOp::create(b, loc, block(BufferKind::Input, rank(), 1),
                     block(BufferKind::Output, rank(), 1));
    if (relay)
      return buildRelay();
    // What node-mates need for the other nodes, in the order their rail
    // sends go; then the own node's blocks.
    forThisChannel(M, [&](AffineExpr s) {
      buildLoop(b, loc, 1, G, [&] {
        AffineExpr t = dim(2), u = (node() + s) % M;
        SendOp::create(b, loc, block(BufferKind::Input, u * G + (local() + t) % G, 3),
                       peer(onNode(local() + t), 3),
                       block(BufferKind::Scratch, u * G + local(), 3));
      });
    });
    forThisChannel(G, [&](AffineExpr t) {
      SendOp::create(b, loc, block(BufferKind::Input, node() * G + (local() + t) % G, 2),
                     peer(onNode(local() + t), 2),
                     block(BufferKind::Output, node() * G + local(), 2));
    });
    // Node v+s's segment: the node-mates' blocks, this GPU's own, then one
    // message over the rail into its output segment v.
    forThisChannel(M, [&](AffineExpr s) {
      AffineExpr u = (node() + s) % M;
      PartAttr source = segment(BufferKind::Input, u, 2);
      if (staged) {
        buildLoop(b, loc, 1, G, [&] {
          AffineExpr t = dim(2);
          RecvOp::create(b, loc, peer(onNode(local() - t + G), 3),
                         block(BufferKind::Scratch, u * G + (local() - t + G) % G, 3));
        });
        CopyOp::create(b, loc, block(BufferKind::Input, u * G + local(), 2),
                       block(BufferKind::Scratch, u * G + local(), 2));
        source = segment(BufferKind::Scratch, u, 2);
      }
      SendOp::create(b, loc, source, peer(alongRail(s), 2),
                     segment(BufferKind::Output, node(), 2));
    });
    forThisChannel(G, [&](AffineExpr t) {
      RecvOp::create(b, loc, peer(onNode(local() - t + G), 2),
                     block(BufferKind::Output, node() * G + (local() - t + G) % G, 2));
    });
    forThisChannel(M, [&](AffineExpr s) {
      RecvOp::create(b, loc, peer(backAlongRail(s), 2),
                     segment(BufferKind::Output, (node() - s + M) % M, 2));
    });
  }

private:
  /// Block by block, lane c relaying for the origins l+t, t = c mod L.
  void buildRelay() {
    // As an origin: to GPU l+t, its blocks for GPU l+t of the other nodes
    // (into scratch, to relay) and of this node.
    forOrigins(/*self=*/false, [&](AffineExpr t) {
      buildLoop(b, loc, 1, M, [&] {
        AffineExpr u = (node() + dim(2)) % M;
        SendOp::create(b, loc, block(BufferKind::Input, u * G + (local() + t) % G, 3),
                       peer(onNode(local() + t), 3),
                       block(BufferKind::Scratch, u * G + local(), 3));
      });
      SendOp::create(b, loc, block(BufferKind::Input, node() * G + (local() + t) % G, 2),
                     peer(onNode(local() + t), 2),
                     block(BufferKind::Output, node() * G + local(), 2));
    });
    // As a relay: this GPU's own blocks, then those of GPU l-t, over the
    // rail to GPU l of node v+s, into its output block of the origin.
    auto overRail = [&](AffineExpr t, bool own) {
      buildLoop(b, loc, 1, M, [&] {
        unsigned dims = own ? 2 : 3;
        AffineExpr s = dim(dims - 1), u = (node() + s) % M;
        AffineExpr origin = (local() - t + G) % G;
        PartAttr source = block(BufferKind::Input, u * G + local(), dims);
        if (!own) {
          source = block(BufferKind::Scratch, u * G + origin, dims);
          RecvOp::create(b, loc, peer(onNode(origin), dims), source);
        }
        SendOp::create(b, loc, source, peer(alongRail(s), dims),
                       block(BufferKind::Output, node() * G + origin, dims));
      });
    };
    if (lane == 0)
      overRail(getAffineConstantExpr(0, ctx), /*own=*/true);
    forOrigins(/*self=*/false, [&](AffineExpr t) { overRail(t, /*own=*/false); });
    // What the origins l-t of this node and the relays of the others send.
    forOrigins(/*self=*/false, [&](AffineExpr t) {
      AffineExpr origin = (local() - t + G) % G;
      RecvOp::create(b, loc, peer(onNode(origin), 2),
                     block(BufferKind::Output, node() * G + origin, 2));
    });
    forOrigins(/*self=*/true, [&](AffineExpr t) {
      buildLoop(b, loc, 1, M, [&] {
        AffineExpr s = dim(2);
        RecvOp::create(b, loc, peer(backAlongRail(s), 3),
                       block(BufferKind::Output,
                             ((node() - s + M) % M) * G + (local() - t + G) % G, 3));
      });
    });
  }

  AffineExpr dim(unsigned i) { return getAffineDimExpr(i, ctx); }
  /// This channel's piece of block j of n of a buffer (pieces nest in
  /// blocks).
  PartAttr block(BufferKind kind, AffineExpr j, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, j * K + piece), n * K);
  }
  /// Node u's P blocks, [u*P, (u+1)*P) (the segment form: whole blocks).
  PartAttr segment(BufferKind kind, AffineExpr u, unsigned dims) {
    return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, u), M);
  }
  /// `body(x)` (in dimension 1) for x in [1, upper) with x = 1 + lane mod L.
  template <typename Fn> void forThisChannel(int64_t upper, Fn body) {
    int64_t first = 1 + lane;
    if (first >= upper)
      return;
    buildLoop(b, loc, 0, (upper - first + L - 1) / L,
              [&] { body(dim(1) * L + first); });
  }
  /// `body(t)` (in dimension 1) for this lane's origins t = lane mod L in
  /// [0, G), without t = 0 unless `self`.
  template <typename Fn> void forOrigins(bool self, Fn body) {
    buildLoop(b, loc, lane == 0 && !self ? 1 : 0, (G - lane + L - 1) / L,
              [&] { body(dim(1) * L + lane); });
  }

  OpBuilder &b;
  Location loc;
  int64_t L, K, lane, piece;
  bool staged;
};

} // namespace

/// The block relay where some node-mates have no NVLink between them
/// (v100x8): a hand-off from origin o to GPU d takes two NVLink hops
/// through via[o][d] (a GPU linked to both) instead of PCIe and the
/// sockets' link. Who relays what depends on the links, so every rank has
/// its own tasks. On channel c (lane t = c mod G, piece c / G) a rank, in
/// this order: as an origin sends GPU l+t (or its relay) its blocks for
/// GPU l+t of every other node and of its own; as a relay of hand-offs
/// from o to o+t, passes their blocks on; as GPU l takes origin l-t's
/// blocks and sends each on over rail l; then receives over its rail.
/// Between two ranks on a channel the messages of one stage all come before
/// those of the next on both sides.
static ProgramOp buildViaRelay(OpBuilder &b, Location loc, StringRef name,
                               const ccopt::AllReduceShape &shape, int64_t G, int64_t K,
                               const std::vector<std::vector<int64_t>> &via) {
  int64_t n = shape.ranks, N = n / G;
  // Each relay's hand-offs (origin, GPU), a slot of N blocks each.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> jobs(G);
  for (int64_t o = 0; o < G; ++o)
    for (int64_t d = 0; d < G; ++d)
      if (via[o][d] >= 0)
        jobs[via[o][d]].push_back({o, d});
  size_t slots = 0;
  for (const auto &list : jobs)
    slots = std::max(slots, list.size());
  // Scratch blocks: [0, n) stage what GPU l sends over its rail (block
  // u*G + origin), then a relay's slots.
  int64_t stagedBlocks = n + int64_t(slots) * N;
  int64_t block = shape.count / n;
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllToAll, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              stagedBlocks * block, std::nullopt, "hierarchical", G * K, 1);
  MLIRContext *ctx = b.getContext();
  OpBuilder::InsertionGuard guard(b);
  for (int64_t c = 0; c < G * K; ++c) {
    int64_t t = c % G, piece = c / G;
    auto part = [&](BufferKind kind, int64_t j, int64_t blocks) {
      return fixedPart(ctx, kind, j * K + piece, blocks * K);
    };
    auto io = [&](BufferKind kind, int64_t j) { return part(kind, j, n); };
    auto staged = [&](int64_t j) { return part(BufferKind::Scratch, j, stagedBlocks); };
    auto rankAt = [&](int64_t r) { return fixedPeer(ctx, r); };
    auto slotOf = [&](int64_t relay, int64_t o, int64_t d) {
      return int64_t(llvm::find(jobs[relay], std::make_pair(o, d)) - jobs[relay].begin());
    };
    for (int64_t r = 0; r < n; ++r) {
      int64_t v = r / G, l = r % G;
      auto onNode = [&](int64_t gpu) { return v * G + gpu; };
      buildRankTask(b, loc, program, c, r);
      // The blocks of a hand-off from o to d, in order: for GPU d of each
      // other node v+s (into d's stage u*G + o), then for d itself.
      auto handOff = [&](int64_t o, int64_t d, auto step) {
        for (int64_t s = 1; s < N; ++s) {
          int64_t u = (v + s) % N;
          step(u * G + d, staged(u * G + o), s);
        }
        step(v * G + d, io(BufferKind::Output, v * G + o), 0);
      };
      if (t == 0) {
        CopyOp::create(b, loc, io(BufferKind::Input, r), io(BufferKind::Output, r));
      } else {
        int64_t d = (l + t) % G, relay = via[l][d];
        handOff(l, d, [&](int64_t j, PartAttr there, int64_t s) {
          if (relay < 0)
            SendOp::create(b, loc, io(BufferKind::Input, j), rankAt(onNode(d)), there);
          else
            SendOp::create(b, loc, io(BufferKind::Input, j), rankAt(onNode(relay)),
                           staged(n + slotOf(relay, l, d) * N + s));
        });
      }
      for (auto [o, d] : jobs[l]) {
        if ((d - o + G) % G != t)
          continue;
        handOff(o, d, [&](int64_t j, PartAttr there, int64_t s) {
          PartAttr slot = staged(n + slotOf(l, o, d) * N + s);
          RecvOp::create(b, loc, rankAt(onNode(o)), slot);
          SendOp::create(b, loc, slot, rankAt(onNode(d)), there);
        });
      }
      // As GPU l: origin l-t's blocks (its own when t = 0) over rail l.
      int64_t o = (l - t + G) % G, from = via[o][l] >= 0 ? via[o][l] : o;
      handOff(o, l, [&](int64_t j, PartAttr there, int64_t s) {
        PartAttr source = t == 0 ? io(BufferKind::Input, j) : there;
        if (t != 0)
          RecvOp::create(b, loc, rankAt(onNode(from)), there);
        if (s > 0)
          SendOp::create(b, loc, source, rankAt((v + s) % N * G + l),
                         io(BufferKind::Output, v * G + o));
      });
      for (int64_t s = 1; s < N; ++s) {
        int64_t u = (v - s + N) % N;
        RecvOp::create(b, loc, rankAt(u * G + l), io(BufferKind::Output, u * G + o));
      }
    }
  }
  return program;
}

ProgramOp ccopt::buildHierarchicalAllToAll(OpBuilder &b, Location loc, StringRef name,
                                           const AllReduceShape &shape,
                                           int64_t perNode, int64_t channels,
                                           const std::vector<std::vector<int64_t>> &via) {
  int64_t n = shape.ranks, P = perNode, N = n / P;
  assert(P >= 1 && n % P == 0 && "nodes must hold the same number of ranks");
  assert(shape.count % n == 0 && "the buffer holds a block per rank");
  assert(!shape.inPlace && "blocks land before their owners have sent them");
  // Every lane gets a node or a node-mate to serve; with more channels,
  // lanes relay for origins and further channels split the blocks (each
  // piece keeps an element).
  int64_t lanes = std::max<int64_t>({N - 1, P - 1, 1});
  bool relay = channels > lanes && N > 1 && P > 1;
  int64_t L = relay ? P : std::clamp<int64_t>(channels, 1, lanes);
  int64_t K = relay ? std::clamp<int64_t>(channels / P, 1, shape.count / n) : 1;
  int64_t C = L * K;
  if (relay && llvm::any_of(via, [](const auto &row) {
        return llvm::any_of(row, [](int64_t m) { return m >= 0; });
      }))
    return buildViaRelay(b, loc, name, shape, P, K, via);
  // Staging for the segments sent over the rails (not needed with one GPU
  // per node: a segment is then one input block).
  int64_t scratch = N > 1 && P > 1 ? shape.count : 0;
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllToAll, shape,
                              /*hasRedop=*/false, shape.count, shape.count, scratch,
                              std::nullopt, "hierarchical", C, 1);
  OpBuilder::InsertionGuard guard(b);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    HierarchicalAllToAllBuilder(b, loc, program, P, L, K, ch).build(relay);
  }
  return program;
}
