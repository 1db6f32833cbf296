//===- TreeAllReduce.cpp - tree all-reduce schedules ----------------------===//
//
// Reduce up a tree, then broadcast down it, each pipelined in chunks: NCCL's
// tree (a chain inside a node, a binary tree over the nodes). Trees are
// irregular, so every rank gets its own task: the IR grows with the world.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ccopt::Trees ccopt::ncclTrees(int64_t ranks, int64_t perNode) {
  int64_t nodes = (ranks + perNode - 1) / perNode;
  // Node k's parent in the first tree; the second is its mirror image, so
  // that the nodes that are leaves in one are inner nodes in the other and
  // each tree carries half the data (Sanders, Speck, Traeff; NCCL 2.4).
  auto parentNode = [&](int64_t k, bool mirror) -> int64_t {
    if (!mirror)
      return k == 0 ? -1 : (k - 1) / 2;
    int64_t m = nodes - 1 - k;
    return m == 0 ? -1 : nodes - 1 - (m - 1) / 2;
  };
  // Over several nodes NCCL's tree channels leave each node through
  // different NICs (each channel's tree graph has its own net device and
  // intra-node order, src/graph/connect.cc): the pair of trees for rail m
  // has GPU m of every node as the node's leader, and the chain visits GPU
  // p xor m at position p. (Xor, not rotation: it maps GPU pairs, PCIe
  // switches and sockets onto each other, so the rails' trees are images of
  // rail 0's under the machine's symmetries, which the simulator folds.)
  // One node has one chain, the same for every channel.
  int64_t rails = nodes > 1 ? perNode : 1;
  Trees trees;
  for (int64_t rail = 0; rail < rails; ++rail)
    for (bool mirror : {false, true}) {
      // The GPU at position p of node k's chain.
      auto at = [&](int64_t k, int64_t p) {
        int64_t g = std::min(perNode, ranks - k * perNode);
        bool xorRails = g == perNode && llvm::isPowerOf2_64(perNode);
        return k * perNode + (xorRails ? p ^ rail : (p + rail) % g);
      };
      std::vector<int64_t> &parent = trees.emplace_back(ranks, -1);
      for (int64_t k = 0; k < nodes; ++k) {
        for (int64_t p = 1, g = std::min(perNode, ranks - k * perNode); p < g; ++p)
          parent[at(k, p)] = at(k, p - 1); // the chain inside a node
        if (int64_t up = parentNode(k, mirror); up >= 0)
          parent[at(k, 0)] = at(up, 0); // the tree over the node leaders
      }
      if (nodes == 1)
        break;
    }
  return trees;
}

ProgramOp ccopt::buildTreeAllReduce(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape,
                                    const Trees &trees, int64_t chunks,
                                    int64_t channels) {
  int64_t n = shape.ranks, count = shape.count;
  int64_t blocks = std::max<int64_t>(1, count);
  int64_t numChannels = std::min<int64_t>(channels, blocks);
  int64_t numChunks = std::max<int64_t>(1, std::min<int64_t>(chunks, blocks / numChannels));
  int64_t parts = numChannels * numChunks;
  // children[t][r]: rank r's children in tree t.
  std::vector<std::vector<std::vector<int64_t>>> children;
  int64_t maxChildren = 1;
  for (const std::vector<int64_t> &parent : trees) {
    auto &kids = children.emplace_back(n);
    for (int64_t r = 0; r < n; ++r)
      if (parent[r] >= 0)
        kids[parent[r]].push_back(r);
    for (auto &k : kids)
      maxChildren = std::max<int64_t>(maxChildren, k.size());
  }

  MLIRContext *ctx = b.getContext();
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce, shape,
                              /*hasRedop=*/true, count, count,
                              /*scratch=*/n > 1 ? count * maxChildren : 0,
                              std::nullopt, "tree", numChannels, numChunks);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&program.getBody().front());

  // Maps take (r, c): c is the pipelined chunk.
  AffineExpr c = getAffineDimExpr(1, ctx);
  // Attributes made once and reused (uniquing each per op dominates the
  // build of a large world's trees).
  std::vector<AffineMapAttr> rankAttrs;
  for (int64_t r = 0; r < n; ++r)
    rankAttrs.push_back(fixedPeer(ctx, r, 2));
  auto rank = [&](int64_t r) { return rankAttrs[r]; };
  bool avg = shape.redop == ccl::ReductionKind::Avg && !program.getPrescale();
  // A narrow wire: the result travels down in wire-typed scratch (slot 0),
  // and every rank, the root included, keeps the value it rounds to.
  bool wire = static_cast<bool>(program.getWire());
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    // Channels alternate between the trees.
    const std::vector<int64_t> &parent = trees[channel % trees.size()];
    const auto &treeChildren = children[channel % trees.size()];
    AffineExpr piece = c + channel * numChunks;
    PartAttr inputPart = PartAttr::get(ctx, BufferKind::Input, AffineMap::get(2, 0, piece), parts);
    PartAttr outputPart = PartAttr::get(ctx, BufferKind::Output, AffineMap::get(2, 0, piece), parts);
    auto part = [&](BufferKind kind) {
      return kind == BufferKind::Input ? inputPart : outputPart;
    };
    // Child slot s of the scratch buffer: maxChildren x parts parts.
    SmallVector<PartAttr> slots;
    for (int64_t s = 0; s < maxChildren; ++s)
      slots.push_back(PartAttr::get(ctx, BufferKind::Scratch,
                                    AffineMap::get(2, 0, piece + s * parts),
                                    parts * maxChildren));
    auto slot = [&](int64_t s) { return slots[s]; };
    for (int64_t r = 0; r < n; ++r) {
      auto task = TaskOp::create(b, loc, channel, b.getI64IntegerAttr(r),
                                 DenseI64ArrayAttr());
      task.getBody().emplaceBlock();
      OpBuilder::InsertionGuard taskGuard(b);
      b.setInsertionPointToStart(&task.getBody().front());
      // A loop over the chunks for each phase, as NCCL's split thread
      // groups (runTreeSplit) pipeline the reduction and the broadcast
      // apart: a rank takes the next piece up before the last one came
      // down. The root turns each piece around as it has it.
      auto newLoop = [&] {
        b.setInsertionPointToEnd(&task.getBody().front());
        auto loop = LoopOp::create(b, loc, 0, numChunks);
        loop.getBody().emplaceBlock();
        b.setInsertionPointToStart(&loop.getBody().front());
      };
      newLoop();
      const std::vector<int64_t> &kids = treeChildren[r];
      bool root = parent[r] < 0;
      int64_t mySlot = root ? 0
                            : llvm::find(treeChildren[parent[r]], r) -
                                  treeChildren[parent[r]].begin();
      // Reduce: the partial sum of the subtree, up to the parent.
      PartAttr partial = part(BufferKind::Input);
      for (auto [i, kid] : llvm::enumerate(kids)) {
        RecvOp::create(b, loc, rank(kid), slot(i));
        bool last = i + 1 == kids.size();
        ReduceOp::create(b, loc, slot(i), partial, part(BufferKind::Output),
                         root && last && avg ? b.getUnitAttr() : UnitAttr());
        partial = part(BufferKind::Output);
      }
      if (root && kids.empty() && !shape.inPlace)
        CopyOp::create(b, loc, part(BufferKind::Input), part(BufferKind::Output));
      if (!root) {
        SendOp::create(b, loc, partial, rank(parent[r]), slot(mySlot));
        newLoop();
      }
      if (wire && n > 1) {
        if (root) {
          CopyOp::create(b, loc, part(BufferKind::Output), slot(0));
          CopyOp::create(b, loc, slot(0), part(BufferKind::Output));
        } else if (kids.empty()) {
          RecvOp::create(b, loc, rank(parent[r]), slot(0));
          CopyOp::create(b, loc, slot(0), part(BufferKind::Output));
        } else {
          RecvCopySendOp::create(b, loc, rank(parent[r]), slot(0),
                                 rank(kids.front()), slot(0),
                                 part(BufferKind::Output));
        }
        for (size_t k = root ? 0 : 1; k < kids.size(); ++k)
          SendOp::create(b, loc, slot(0), rank(kids[k]), slot(0));
        continue;
      }
      // Broadcast: the result, down to the children.
      if (!root)
        RecvOp::create(b, loc, rank(parent[r]), part(BufferKind::Output));
      for (int64_t kid : kids)
        SendOp::create(b, loc, part(BufferKind::Output), rank(kid),
                       part(BufferKind::Output));
    }
  }
  return program;
}
