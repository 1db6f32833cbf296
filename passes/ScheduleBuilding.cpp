//===- ScheduleBuilding.cpp - pieces every schedule builder uses ----------===//

#include "passes/ScheduleBuilding.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::sched;

ProgramOp ccopt::detail::buildProgram(OpBuilder &b, Location loc, StringRef name,
                                      ccl::CollectiveKind kind,
                                      const AllReduceShape &shape, bool hasRedop,
                                      int64_t inputCount, int64_t outputCount,
                                      int64_t scratchCount,
                                      std::optional<int64_t> root,
                                      StringRef algorithm, int64_t channels,
                                      int64_t chunks) {
  MLIRContext *ctx = b.getContext();
  auto program = ProgramOp::create(
      b, loc, name, kind,
      hasRedop ? ccl::ReductionKindAttr::get(ctx, shape.redop)
               : ccl::ReductionKindAttr(),
      shape.ranks, channels, shape.elementType,
      shape.narrowWire() ? TypeAttr::get(shape.wire) : TypeAttr(),
      inputCount,
      outputCount, scratchCount, root ? b.getI64IntegerAttr(*root) : IntegerAttr(),
      shape.inPlace, algorithm, chunks,
      shape.rankMap.empty() ? DenseI64ArrayAttr()
                            : b.getDenseI64ArrayAttr(shape.rankMap),
      /*prescale=*/false, /*protocol=*/ProtocolKindAttr(), /*multicast=*/false);
  // avg over a narrow wire: every input is divided before it is sent.
  if (program.getWire() && hasRedop && shape.redop == ccl::ReductionKind::Avg &&
      shape.ranks > 1)
    program.setPrescale(true);
  program.getBody().emplaceBlock();
  return program;
}

TaskOp ccopt::detail::buildTask(OpBuilder &b, Location loc, ProgramOp program,
                                int64_t channel, const RingOrders &orders) {
  DenseI64ArrayAttr order;
  if (!orders.empty()) {
    const std::vector<int64_t> &o = orders[channel % orders.size()];
    if (!llvm::equal(o, llvm::seq<int64_t>(0, program.getRanks())))
      order = b.getDenseI64ArrayAttr(o);
  }
  b.setInsertionPointToEnd(&program.getBody().front());
  auto task = TaskOp::create(b, loc, channel, IntegerAttr(), order);
  task.getBody().emplaceBlock();
  b.setInsertionPointToStart(&task.getBody().front());
  return task;
}

TaskOp ccopt::detail::buildRankTask(OpBuilder &b, Location loc, ProgramOp program,
                                    int64_t channel, int64_t rank) {
  b.setInsertionPointToEnd(&program.getBody().front());
  auto task = TaskOp::create(b, loc, channel, b.getI64IntegerAttr(rank),
                             DenseI64ArrayAttr());
  task.getBody().emplaceBlock();
  b.setInsertionPointToStart(&task.getBody().front());
  return task;
}

AffineExpr ccopt::detail::orderAt(ArrayRef<int64_t> order, AffineExpr q) {
  // Orders that repeat per group of g ranks (rings through nodes) are
  // g * (q floordiv g) plus the group's order at q mod g; a group's order
  // is the position plus its jumps, each [x >= k] written
  // (x + g - k) floordiv g.
  int64_t n = order.size();
  if (n == 0)
    return q;
  int64_t g = n;
  for (int64_t d = 1; d < n; ++d) {
    if (n % d)
      continue;
    bool periodic = true;
    for (int64_t p = 0; p < n && periodic; ++p)
      periodic = order[p] / d == p / d && order[p] % d == order[p % d];
    if (periodic) {
      g = d;
      break;
    }
  }
  AffineExpr x = g == n ? q : q % g;
  AffineExpr rank = x + order[0];
  for (int64_t k = 1; k < g; ++k)
    if (int64_t jump = order[k] - order[k - 1] - 1)
      rank = rank + (x + (g - k)).floorDiv(g) * jump;
  return g == n ? rank : q.floorDiv(g) * g + rank;
}

ccopt::RingOrders ccopt::detail::repeatOverNodes(const RingOrders &nodeRings,
                                                 int64_t ranks, int64_t perNode) {
  RingOrders orders;
  for (const std::vector<int64_t> &ring : nodeRings) {
    std::vector<int64_t> &order = orders.emplace_back();
    for (int64_t r = 0; r < ranks; ++r)
      order.push_back(r - r % perNode + ring[r % perNode]);
  }
  return orders;
}

AffineMapAttr ccopt::detail::fixedPeer(MLIRContext *ctx, int64_t rank, unsigned numDims) {
  return AffineMapAttr::get(AffineMap::get(numDims, 0, getAffineConstantExpr(rank, ctx)));
}

PartAttr ccopt::detail::fixedPart(MLIRContext *ctx, BufferKind kind, int64_t index,
                                  int64_t parts, unsigned numDims) {
  return PartAttr::get(ctx, kind,
                       AffineMap::get(numDims, 0, getAffineConstantExpr(index, ctx)), parts);
}

AffineMapAttr ccopt::detail::ringPeer(AffineExpr rank, int64_t n, unsigned numDims) {
  return AffineMapAttr::get(AffineMap::get(numDims, 0, rank % n));
}

std::pair<int64_t, int64_t> ccopt::detail::clampPieces(int64_t count, int64_t chunks,
                                                       int64_t channels) {
  int64_t numChannels = std::min<int64_t>(channels, std::max<int64_t>(1, count));
  int64_t numChunks = std::max<int64_t>(1, std::min<int64_t>(chunks, count / numChannels));
  return {numChannels, numChunks};
}

int64_t ccopt::detail::spreadPieces(int64_t channel, int64_t pieces, int64_t most) {
  if (pieces <= 1)
    return pieces;
  return std::clamp<int64_t>(pieces * (8 + (channel + 8) % 16) / 16, 1,
                             std::max<int64_t>(most, 1));
}

LoopOp ccopt::detail::taskWithChunkLoop(OpBuilder &b, Location loc, int64_t channel,
                                        std::optional<int64_t> rank, int64_t chunks) {
  auto task = TaskOp::create(b, loc, channel,
                             rank ? b.getI64IntegerAttr(*rank) : IntegerAttr(),
                             DenseI64ArrayAttr());
  task.getBody().emplaceBlock();
  b.setInsertionPointToStart(&task.getBody().front());
  auto loop = LoopOp::create(b, loc, 0, chunks);
  loop.getBody().emplaceBlock();
  b.setInsertionPointToStart(&loop.getBody().front());
  return loop;
}
