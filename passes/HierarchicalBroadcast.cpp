//===- HierarchicalBroadcast.cpp - broadcast over the nodes' rails --------===//
//
// A chain through every rank crosses the network once per node but waits
// on every hop of every GPU (a100x8 x16: 127 hops) before its last rank
// gets the first piece. Here each channel's slice is split into a part per
// GPU of a node: the root hands GPU l of its node part l over NVLink, GPU l
// of each node passes it on over rail l to GPU l of the next nodes (see
// NodeRoutes: a chain of nodes, or hierarchical_tree's two binary trees of
// them) and hands it to its node-mates. Each node takes the whole buffer in through
// its NICs, 1/P of it each (the bound of a node cut), and the fill is a
// few hops per level of nodes, not one per GPU.
//
// The root sends its own part (rail l's on its node) over the rail, and to
// its node-mates in P-1 sub-parts, one each, which they pass on: the root
// then puts the buffer once through its NVLinks, not 2 - 2/P times. A
// rank receives its node-mates' pieces one piece behind what it sends, so
// that their hop's latency overlaps the next piece's sends (at most two
// messages outstanding between two ranks, well within LL's eight slots).
// Pipelined in pieces; every rank has its own task.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {
/// Where part l travels between the nodes, by hop from the root's node.
/// Over a chain each node waits on every node before it (a100x8 x16: 15
/// hops to fill). Over two binary trees of the other nodes (NCCL's double
/// binary tree) the fill is two sends per level; a node inner in one tree
/// is a leaf in the other, so that with the channels taking the trees in
/// turn each node's rail sends the buffer once, as in the chain.
class NodeRoutes {
public:
  NodeRoutes(int64_t nodes, bool trees) {
    int64_t M = nodes - 1; // the other nodes, members 0..M-1
    for (int tree = 0; tree < 2; ++tree) {
      auto &parent = parents[tree];
      auto &kids = children[tree];
      parent.assign(nodes, -1);
      kids.assign(nodes, {});
      auto link = [&](int64_t from, int64_t to) {
        kids[from].push_back(to);
        parent[to] = from;
      };
      if (!trees || M < 2) { // the chain (over two nodes the trees are it)
        for (int64_t hop = 0; hop + 1 < nodes; ++hop)
          link(hop, hop + 1);
        continue;
      }
      // The in-order tree over labels 1..M: x's children lie half its
      // lowest bit to either side, so that only even labels have any. The
      // second tree's labels are the first's mirrored (M even) or shifted
      // by one (M odd): its inner members are the first's leaves.
      auto label = [&](int64_t i) {
        return tree == 0 ? i + 1 : M % 2 == 0 ? M - i : (i + 1) % M + 1;
      };
      SmallVector<int64_t> memberOf(M + 1);
      for (int64_t i = 0; i < M; ++i)
        memberOf[label(i)] = i;
      link(0, memberOf[llvm::bit_floor(uint64_t(M))] + 1);
      for (int64_t x = 2; x <= M; x += 2) {
        int64_t low = x & -x, hop = memberOf[x] + 1;
        link(hop, memberOf[x - low / 2] + 1);
        for (int64_t d = low / 2; d >= 1; d /= 2)
          if (x + d <= M) {
            link(hop, memberOf[x + d] + 1);
            break;
          }
      }
    }
  }
  /// The hop part l comes from on channel c (-1 at the root's node).
  int64_t from(int64_t c, int64_t hop) const { return parents[c % 2][hop]; }
  /// The hops it goes on to.
  ArrayRef<int64_t> to(int64_t c, int64_t hop) const { return children[c % 2][hop]; }

private:
  SmallVector<int64_t> parents[2];
  SmallVector<SmallVector<int64_t, 2>> children[2];
};
} // namespace

ProgramOp ccopt::buildHierarchicalBroadcast(OpBuilder &b, Location loc, StringRef name,
                                            const AllReduceShape &shape, int64_t root,
                                            int64_t perNode, bool nodeTrees,
                                            int64_t chunks, int64_t channels) {
  int64_t n = shape.ranks, P = perNode, N = n / P;
  assert(P >= 1 && n % P == 0 && "nodes must hold the same number of ranks");
  // Every sub-part keeps an element.
  auto [C, pieces] = clampPieces(shape.count / (P * P), chunks, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::Broadcast, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/0, root,
                              nodeTrees ? "hierarchical_tree" : "hierarchical", C, pieces);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  int64_t rootNode = root / P, rootGpu = root % P, subs = std::max<int64_t>(1, P - 1);
  bool copyOut = !shape.inPlace;
  NodeRoutes routes(N, nodeTrees);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t r = 0; r < n; ++r) {
      // Channels in step would all use the NIC, then all NVLink: pieces of
      // different sizes keep them apart.
      int64_t K = spreadPieces(c, pieces, shape.count / (C * P * subs));
      int64_t v = r / P, l = r % P, hop = (v - rootNode + N) % N;
      bool isRoot = r == root, rootsNode = hop == 0;
      // The ranks by node and GPU (either wrapping around).
      unsigned dims = 1;
      auto rankAt = [&](int64_t node, int64_t gpu) {
        return fixedPeer(ctx, (node + N) % N * P + (gpu + P) % P, dims);
      };
      // Piece k (of the task's loop: d1) of part j of this channel's slice,
      // or its sub-part i.
      AffineExpr k;
      auto part = [&](BufferKind kind, int64_t j, int64_t i = -1) {
        AffineExpr index = k + (c * P + (j + P) % P) * K;
        if (i >= 0)
          index = index * subs + i;
        return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, index),
                             C * P * K * (i >= 0 ? subs : 1));
      };
      // The root sends from its input, storing into its output as it goes
      // (out of place); the others pass on what landed in their output.
      auto from = [&](int64_t j, int64_t i = -1) {
        return part(isRoot && copyOut ? BufferKind::Input : BufferKind::Output, j, i);
      };
      auto stored = [&](bool store, int64_t j, int64_t i = -1) {
        return store && isRoot && copyOut ? part(BufferKind::Output, j, i) : PartAttr();
      };
      // A node-mate's sub-part of the root's part: the (m - root - 1)th.
      auto subOf = [&](int64_t m) { return ((m - rootGpu - 1) % P + P) % P; };
      // The node-mates that take rank r's pieces: on the root's node not the
      // root (it has them).
      auto mates = [&](auto each) {
        for (int64_t m = 1; m < P; ++m)
          if (!rootsNode || (l + m) % P != rootGpu)
            each(l + m);
      };
      auto sends = [&] {
        if (isRoot) {
          // Each node-mate its part and its sub-part of the root's; the
          // root's part over the rail (stored on the way; on one node, the
          // sub-parts are).
          for (int64_t m = l + 1; m < l + P; ++m) {
            SendOp::create(b, loc, from(m), rankAt(v, m), part(BufferKind::Output, m),
                           stored(true, m));
            SendOp::create(b, loc, from(l, subOf(m)), rankAt(v, m),
                           part(BufferKind::Output, l, subOf(m)),
                           stored(N == 1, l, subOf(m)));
          }
          for (int64_t to : routes.to(c, 0))
            SendOp::create(b, loc, from(l), rankAt(rootNode + to, l),
                           part(BufferKind::Output, l), stored(true, l));
          if (N == 1 && P == 1 && copyOut)
            CopyOp::create(b, loc, part(BufferKind::Input, l), part(BufferKind::Output, l));
          return;
        }
        // Part l from the root (its sub-part of the root's part too) or
        // from the node before; on over the rail and to the node-mates.
        if (rootsNode) {
          RecvOp::create(b, loc, rankAt(v, rootGpu), part(BufferKind::Output, l));
          RecvOp::create(b, loc, rankAt(v, rootGpu), part(BufferKind::Output, rootGpu, subOf(l)));
        } else {
          RecvOp::create(b, loc, rankAt(rootNode + routes.from(c, hop), l),
                         part(BufferKind::Output, l));
        }
        for (int64_t to : routes.to(c, hop))
          SendOp::create(b, loc, from(l), rankAt(rootNode + to, l), part(BufferKind::Output, l));
        mates([&](int64_t m) {
          SendOp::create(b, loc, from(l), rankAt(v, m), part(BufferKind::Output, l));
          if (rootsNode)
            SendOp::create(b, loc, from(rootGpu, subOf(l)), rankAt(v, m),
                           part(BufferKind::Output, rootGpu, subOf(l)));
        });
      };
      auto receives = [&] {
        if (isRoot)
          return;
        for (int64_t m = 1; m < P; ++m) {
          int64_t from = (l - m + P) % P;
          if (rootsNode && from == rootGpu)
            continue;
          RecvOp::create(b, loc, rankAt(v, from), part(BufferKind::Output, from));
          if (rootsNode)
            RecvOp::create(b, loc, rankAt(v, from),
                           part(BufferKind::Output, rootGpu, subOf(from)));
        }
      };
      // Piece 0's sends, then piece k's with piece k-1's receives, then the
      // last piece's receives.
      b.setInsertionPointToEnd(&program.getBody().front());
      buildRankTask(b, loc, program, c, r);
      k = getAffineConstantExpr(0, ctx);
      sends();
      buildLoop(b, loc, 1, K, [&] {
        dims = 2;
        k = getAffineDimExpr(1, ctx);
        sends();
        k = k - 1;
        receives();
      });
      dims = 1;
      k = getAffineConstantExpr(K - 1, ctx);
      receives();
    }
  return program;
}
