//===- DirectAllReduce.cpp - one-shot, two-shot and recursive doubling ----===//
//
// All-reduces for small and medium buffers, where a ring's 2(n-1) hops of
// latency dominate:
//  - one-shot: every rank writes its input into a slot of every other rank's
//    scratch, then adds the n slots in rank order: one hop, n x the data.
//  - two-shot: a direct reduce-scatter (part j of every rank goes to rank
//    j's slots; rank j adds them in rank order) then a direct all-gather:
//    two hops, the ring's traffic. Both suit fully connected machines
//    (NVSwitch) and are chosen by simulation elsewhere too.
//  - recursive doubling: log2(n) rounds, in round k exchanging the whole
//    buffer with the rank 2^k away (r xor 2^k) and adding.
// Adding the slots in rank order (one-shot, two-shot) gives every rank the
// same bits; recursive doubling relies on the operations commuting exactly.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

class DirectBuilder {
public:
  DirectBuilder(OpBuilder &b, Location loc, ProgramOp program)
      : b(b), loc(loc), ctx(b.getContext()), n(program.getRanks()),
        finalize(program.getRedop() == ccl::ReductionKind::Avg &&
                 !program.getPrescale()) {}

  /// Part `index` of `parts` of `kind`, over `numDims` dimensions.
  PartAttr part(BufferKind kind, AffineExpr index, int64_t parts, unsigned numDims) {
    return PartAttr::get(ctx, kind, AffineMap::get(numDims, 0, index), parts);
  }
  AffineExpr rank() { return getAffineDimExpr(0, ctx); }
  AffineExpr step() { return getAffineDimExpr(1, ctx); }
  AffineExpr constant(int64_t v) { return getAffineConstantExpr(v, ctx); }

  /// Sends `src(d0, s)` to rank d0+s at `dst(d0, s)` for s in [1, n), then
  /// receives from each of those ranks, at `landed(d0, s)` (what rank d0-s
  /// wrote).
  template <typename Src, typename Dst, typename Landed>
  void exchangeWithAll(Src src, Dst dst, Landed landed) {
    AffineMapAttr to = ringPeer(rank() + step(), n, 2);
    AffineMapAttr from = ringPeer(rank() - step() + n, n, 2);
    buildLoop(b, loc, 1, n, [&] { SendOp::create(b, loc, src(), to, dst()); });
    buildLoop(b, loc, 1, n, [&] { RecvOp::create(b, loc, from, landed()); });
  }

  /// dst = slot(0) + slot(1) + ... + slot(n-1), in that order; slot(e) is
  /// a part at slot expression e (over (d0, s) inside the loop).
  template <typename Slot> void addSlots(Slot slot, PartAttr dst, PartAttr dstInLoop) {
    auto reduce = [&](PartAttr lhs, PartAttr rhs, PartAttr to, bool last) {
      ReduceOp::create(b, loc, lhs, rhs, to,
                       last && finalize ? b.getUnitAttr() : UnitAttr());
    };
    reduce(slot(constant(0), 1), slot(constant(1), 1), dst, n == 2);
    buildLoop(b, loc, 2, n - 1,
              [&] { reduce(dstInLoop, slot(step(), 2), dstInLoop, false); });
    if (n > 2)
      reduce(dst, slot(constant(n - 1), 1), dst, true);
  }

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  int64_t n;
  bool finalize;
};

/// The program of a direct all-reduce: `partsPerChannel` parts per channel
/// (channels clamped so that each part keeps an element) and `scratchCopies`
/// x count elements of scratch. With one rank it is complete: a copy, or
/// nothing in place.
ProgramOp buildDirectProgram(OpBuilder &b, Location loc, StringRef name,
                             const ccopt::AllReduceShape &shape, StringRef algorithm,
                             int64_t channels, int64_t partsPerChannel,
                             int64_t scratchCopies) {
  int64_t n = shape.ranks, count = shape.count;
  int64_t C = std::clamp<int64_t>(count / partsPerChannel, 1, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce, shape,
                              /*hasRedop=*/true, count, count,
                              n > 1 ? scratchCopies * count : 0, std::nullopt,
                              algorithm, C, 1);
  if (n > 1)
    return program;
  OpBuilder::InsertionGuard guard(b);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    if (!shape.inPlace) {
      auto whole = [&](BufferKind kind) {
        return PartAttr::get(b.getContext(), kind,
                             AffineMap::get(1, 0, getAffineConstantExpr(ch, b.getContext())),
                             C);
      };
      CopyOp::create(b, loc, whole(BufferKind::Input), whole(BufferKind::Output));
    }
  }
  return program;
}

} // namespace

llvm::ArrayRef<llvm::StringRef> ccopt::allReduceAlgorithms() {
  static const llvm::StringRef names[] = {"ring",         "tree",
                                          "oneshot",      "twoshot",
                                          "recursive_doubling", "hierarchical",
                                          "hierarchical_rd"};
  return names;
}

std::string ccopt::allReduceUnsupported(StringRef algorithm, ArrayRef<int> ranks,
                                        const topo::Machine *machine) {
  int64_t n = ranks.size();
  if (!llvm::is_contained(allReduceAlgorithms(), algorithm))
    return ("unknown all_reduce algorithm '" + algorithm + "' (expected one of: " +
            llvm::join(allReduceAlgorithms(), ", ") + ")")
        .str();
  if (algorithm == "recursive_doubling" && !llvm::isPowerOf2_64(n))
    return "recursive_doubling needs a power-of-two number of ranks, not " +
           std::to_string(n);
  if (!algorithm.starts_with("hierarchical"))
    return "";
  std::optional<int64_t> perNode = machine ? ranksPerNode(*machine, ranks) : std::nullopt;
  if (!perNode)
    return (algorithm + " needs a machine whose nodes each hold the same number "
                        "(at least 2) of the ranks, node by node, on at least 2 nodes")
        .str();
  if (algorithm == "hierarchical_rd" && !llvm::isPowerOf2_64(n / *perNode))
    return "hierarchical_rd needs a power-of-two number of nodes, not " +
           std::to_string(n / *perNode);
  return "";
}

ProgramOp ccopt::buildOneShotAllReduce(OpBuilder &b, Location loc, StringRef name,
                                       const AllReduceShape &shape, int64_t channels) {
  int64_t n = shape.ranks;
  auto program = buildDirectProgram(b, loc, name, shape, "oneshot", channels, 1, n);
  if (n == 1)
    return program;
  int64_t C = program.getChannels();
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    // Input part ch; scratch slot s of channel ch is part s*C + ch.
    auto input = [&](unsigned dims) {
      return d.part(BufferKind::Input, d.constant(ch), C, dims);
    };
    auto slot = [&](AffineExpr s, unsigned dims) {
      return d.part(BufferKind::Scratch, s * C + ch, n * C, dims);
    };
    CopyOp::create(b, loc, input(1), slot(d.rank(), 1));
    d.exchangeWithAll([&] { return input(2); }, [&] { return slot(d.rank(), 2); },
                      [&] { return slot((d.rank() - d.step() + n) % n, 2); });
    d.addSlots(slot, d.part(BufferKind::Output, d.constant(ch), C, 1),
               d.part(BufferKind::Output, d.constant(ch), C, 2));
  }
  return program;
}

ProgramOp ccopt::buildTwoShotAllReduce(OpBuilder &b, Location loc, StringRef name,
                                       const AllReduceShape &shape, int64_t channels) {
  int64_t n = shape.ranks;
  auto program = buildDirectProgram(b, loc, name, shape, "twoshot", channels, n, n);
  if (n == 1)
    return program;
  int64_t C = program.getChannels();
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  int64_t parts = n * C;
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    // Part j of channel ch is ch*n + j: rank j reduces it. Scratch slot s
    // holds rank s's copy of every part: part s*parts + p of n*parts.
    auto block = [&](BufferKind kind, AffineExpr j, unsigned dims) {
      return d.part(kind, j + ch * n, parts, dims);
    };
    auto slot = [&](AffineExpr s, AffineExpr j, unsigned dims) {
      return d.part(BufferKind::Scratch, s * parts + ch * n + j, n * parts, dims);
    };
    AffineExpr r = d.rank(), peer = (d.rank() + d.step()) % n;
    AffineExpr from = (d.rank() - d.step() + n) % n;
    // Reduce-scatter: part j to rank j's slot r; then add the slots of part r.
    CopyOp::create(b, loc, block(BufferKind::Input, r, 1), slot(r, r, 1));
    d.exchangeWithAll([&] { return block(BufferKind::Input, peer, 2); },
                      [&] { return slot(r, peer, 2); },
                      [&] { return slot(from, r, 2); });
    d.addSlots([&](AffineExpr s, unsigned dims) { return slot(s, r, dims); },
               block(BufferKind::Output, r, 1), block(BufferKind::Output, r, 2));
    // All-gather: the reduced part r into every rank's output.
    d.exchangeWithAll([&] { return block(BufferKind::Output, r, 2); },
                      [&] { return block(BufferKind::Output, r, 2); },
                      [&] { return block(BufferKind::Output, from, 2); });
  }
  return program;
}

ProgramOp ccopt::buildRecursiveDoublingAllReduce(OpBuilder &b, Location loc,
                                                 StringRef name,
                                                 const AllReduceShape &shape,
                                                 int64_t channels) {
  int64_t n = shape.ranks;
  assert(llvm::isPowerOf2_64(n) && "recursive doubling needs a power-of-two world");
  int64_t rounds = llvm::Log2_64(n);
  auto program = buildDirectProgram(b, loc, name, shape, "recursive_doubling",
                                    channels, 1, rounds);
  if (n == 1)
    return program;
  int64_t C = program.getChannels();
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    auto whole = [&](BufferKind kind) { return d.part(kind, d.constant(ch), C, 1); };
    for (int64_t k = 0; k < rounds; ++k) {
      // r xor 2^k, as an affine map: flip bit k.
      int64_t bit = int64_t(1) << k;
      AffineExpr partner = d.rank() + bit - (d.rank().floorDiv(bit) % 2) * (2 * bit);
      auto peer = AffineMapAttr::get(AffineMap::get(1, 0, partner));
      PartAttr mine = whole(k == 0 ? BufferKind::Input : BufferKind::Output);
      PartAttr slot = d.part(BufferKind::Scratch, d.constant(k * C + ch), rounds * C, 1);
      SendOp::create(b, loc, mine, peer, slot);
      RecvOp::create(b, loc, peer, slot);
      ReduceOp::create(b, loc, mine, slot, whole(BufferKind::Output),
                       k == rounds - 1 && d.finalize ? b.getUnitAttr() : UnitAttr());
    }
  }
  return program;
}
