//===- BinomialTree.cpp - binomial-tree broadcast and reduce --------------===//
//
// For small and medium buffers a chain's n-1 hops of latency dominate; a
// binomial tree reaches every rank in ceil(log2 n) rounds for any n. Counted
// from the root (q = rank - root mod n), rank q gets the data from
// q - lowbit(q) and passes it to q + 2^j for every 2^j below lowbit(q)
// (every 2^j for the root) that is still a rank, farthest first, so that the
// largest subtree starts first (MPICH's binomial broadcast). The reduce runs
// the same tree backwards: each rank adds its input and then its children's
// sums, nearest child first, and sends the sum to its parent; the order is
// fixed, so every run gives the same bits, and avg divides once, at the root.
// Both are pipelined in chunks. Ranks play different roles, so every rank
// gets its own task.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

/// Rank q's place in a binomial tree of n ranks counted from the root.
struct BinomialNode {
  BinomialNode(int64_t q, int64_t n) {
    // Children at distances 2^j below q's lowest set bit.
    int64_t below = q == 0 ? int64_t(1) << llvm::Log2_64_Ceil(n) : q & -q;
    for (int64_t d = 1; d < below && q + d < n; d *= 2)
      childExponents.push_back(llvm::Log2_64(d));
    if (q != 0) {
      parentDistance = q & -q;
      exponent = llvm::Log2_64(parentDistance);
    }
  }
  /// log2 of the distance to each child, nearest first.
  llvm::SmallVector<int64_t> childExponents;
  int64_t parentDistance = 0; ///< 0 at the root
  int64_t exponent = 0;       ///< log2(parentDistance)
};

} // namespace

ProgramOp ccopt::buildBinomialBroadcast(OpBuilder &b, Location loc, StringRef name,
                                        const AllReduceShape &shape, int64_t root,
                                        bool reduce, int64_t chunks,
                                        int64_t channels) {
  int64_t n = shape.ranks, count = shape.count;
  assert(root >= 0 && root < n && "the root must be a rank");
  auto [C, K] = clampPieces(count, chunks, channels);
  // Reduce scratch: a slot per child distance (the sums that arrive), one
  // for the rank's own running sum.
  int64_t rounds = llvm::Log2_64_Ceil(n), slots = rounds + 1;
  auto program = buildProgram(
      b, loc, name, reduce ? ccl::CollectiveKind::Reduce : ccl::CollectiveKind::Broadcast,
      shape, reduce, count, count, reduce && n > 1 ? slots * count : 0, root,
      "binomial", C, K);
  bool finalize = reduce && shape.redop == ccl::ReductionKind::Avg &&
                  !program.getPrescale();
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  auto rankOf = [&](int64_t q) {
    return AffineMapAttr::get(
        AffineMap::get(2, 0, getAffineConstantExpr((q + root) % n, ctx)));
  };
  for (int64_t ch = 0; ch < C; ++ch) {
    // Piece (ch, chunk d1) of the buffer, and of scratch slot s.
    AffineExpr piece = getAffineDimExpr(1, ctx) + ch * K;
    auto part = [&](BufferKind kind) {
      return PartAttr::get(ctx, kind, AffineMap::get(2, 0, piece), C * K);
    };
    auto slot = [&](int64_t s) {
      return PartAttr::get(ctx, BufferKind::Scratch,
                           AffineMap::get(2, 0, piece + s * C * K), slots * C * K);
    };
    PartAttr input = part(BufferKind::Input), output = part(BufferKind::Output);
    for (int64_t q = 0; q < n; ++q) {
      BinomialNode node(q, n);
      b.setInsertionPointToEnd(&program.getBody().front());
      taskWithChunkLoop(b, loc, ch, (q + root) % n, K);
      bool isRoot = q == 0;
      auto parent = [&] { return rankOf(q - node.parentDistance); };
      if (!reduce) {
        if (!isRoot)
          RecvOp::create(b, loc, parent(), output);
        for (int64_t j : llvm::reverse(node.childExponents))
          SendOp::create(b, loc, isRoot ? input : output, rankOf(q + (int64_t(1) << j)),
                         output);
        if (isRoot && !shape.inPlace)
          CopyOp::create(b, loc, input, output);
        continue;
      }
      ArrayRef<int64_t> kids = node.childExponents;
      auto child = [&](int64_t j) { return rankOf(q + (int64_t(1) << j)); };
      // The parent's slot for this rank's sum.
      auto toParent = [&] { return slot(node.exponent); };
      if (kids.empty()) {
        if (!isRoot)
          SendOp::create(b, loc, input, parent(), toParent());
        else if (!shape.inPlace)
          CopyOp::create(b, loc, input, output);
        continue;
      }
      // The running sum: the output at the root, the last slot elsewhere.
      PartAttr sum = isRoot ? output : slot(rounds);
      // A non-root rank adds its last child's sum as it sends it on.
      size_t added = isRoot ? kids.size() : kids.size() - 1;
      PartAttr acc = input;
      for (size_t i = 0; i < added; ++i) {
        RecvOp::create(b, loc, child(kids[i]), slot(kids[i]));
        bool last = i + 1 == kids.size();
        ReduceOp::create(b, loc, acc, slot(kids[i]), sum,
                         last && finalize ? b.getUnitAttr() : UnitAttr());
        acc = sum;
      }
      if (!isRoot)
        RecvReduceSendOp::create(b, loc, child(kids.back()), slot(kids.back()), acc,
                                 PartAttr(), UnitAttr(), parent(), toParent());
    }
  }
  return program;
}
