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
//    buffer with the rank 2^k away (r xor 2^k) and adding;
//  - halving-doubling (Rabenseifner): recursive halving reduce-scatter then
//    recursive doubling all-gather, the ring's traffic in 2 log2(n) steps.
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
  // Over a narrow wire each side rounds its own value too (in a slot of its
  // own), so that both partners add the same two values: identical bits.
  bool roundOwn = shape.narrowWire();
  int64_t slots = rounds + roundOwn;
  auto program = buildDirectProgram(b, loc, name, shape, "recursive_doubling",
                                    channels, 1, slots);
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
      PartAttr slot = d.part(BufferKind::Scratch, d.constant(k * C + ch), slots * C, 1);
      SendOp::create(b, loc, mine, peer, slot);
      RecvOp::create(b, loc, peer, slot);
      if (roundOwn) {
        PartAttr own = d.part(BufferKind::Scratch, d.constant(rounds * C + ch), slots * C, 1);
        CopyOp::create(b, loc, mine, own);
        mine = own;
      }
      ReduceOp::create(b, loc, mine, slot, whole(BufferKind::Output),
                       k == rounds - 1 && d.finalize ? b.getUnitAttr() : UnitAttr());
    }
  }
  return program;
}

ProgramOp ccopt::buildHalvingDoublingAllReduce(OpBuilder &b, Location loc,
                                               StringRef name,
                                               const AllReduceShape &shape,
                                               int64_t channels) {
  int64_t n = shape.ranks;
  assert(llvm::isPowerOf2_64(n) && "halving-doubling needs a power-of-two world");
  int64_t rounds = llvm::Log2_64(n);
  // A scratch copy of the buffer per halving round (a round's data lands
  // where no other round's does), and over a narrow wire one more, where
  // each rank rounds the part it reduced before sending it on (so it keeps
  // what the others receive: identical bits).
  bool roundOwn = shape.narrowWire();
  int64_t copies = rounds + roundOwn;
  auto program = buildDirectProgram(b, loc, name, shape, "halving_doubling",
                                    channels, n, copies);
  if (n == 1)
    return program;
  int64_t C = program.getChannels();
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  AffineExpr r = d.rank();
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    // Part j of the n / dist parts of this channel's slice (parts nest:
    // [i*C/P, (i+1)*C/P) with P a multiple of C), in the buffer or in
    // scratch copy k.
    auto range = [&](BufferKind kind, AffineExpr j, int64_t dist) {
      return d.part(kind, j + ch * (n / dist), C * (n / dist), 1);
    };
    auto slot = [&](int64_t k, AffineExpr j, int64_t dist) {
      return d.part(BufferKind::Scratch, j + (k * C + ch) * (n / dist),
                    copies * C * (n / dist), 1);
    };
    auto partnerAt = [&](int64_t dist) {
      // r xor dist: flip the bit of dist.
      AffineExpr partner = r + dist - (r.floorDiv(dist) % 2) * (2 * dist);
      return std::pair{AffineMapAttr::get(AffineMap::get(1, 0, partner)), partner};
    };
    // Reduce-scatter by recursive halving: at distance n/2, n/4, ..., 1 a
    // rank sends the half of its range its partner keeps and adds the half
    // it keeps; at the end it holds part r of n, reduced.
    for (int64_t k = 0; k < rounds; ++k) {
      int64_t dist = n >> (k + 1);
      auto [peer, partner] = partnerAt(dist);
      BufferKind from = k == 0 ? BufferKind::Input : BufferKind::Output;
      SendOp::create(b, loc, range(from, partner.floorDiv(dist), dist), peer,
                     slot(k, partner.floorDiv(dist), dist));
      RecvOp::create(b, loc, peer, slot(k, r.floorDiv(dist), dist));
      ReduceOp::create(b, loc, range(from, r.floorDiv(dist), dist),
                       slot(k, r.floorDiv(dist), dist),
                       range(BufferKind::Output, r.floorDiv(dist), dist),
                       k == rounds - 1 && d.finalize ? b.getUnitAttr() : UnitAttr());
    }
    if (roundOwn) {
      CopyOp::create(b, loc, range(BufferKind::Output, r, 1), slot(rounds, r, 1));
      CopyOp::create(b, loc, slot(rounds, r, 1), range(BufferKind::Output, r, 1));
    }
    // All-gather by recursive doubling: at distance 1, 2, ..., n/2 a rank
    // sends the range it holds and receives its partner's.
    for (int64_t k = rounds - 1; k >= 0; --k) {
      int64_t dist = n >> (k + 1);
      auto [peer, partner] = partnerAt(dist);
      SendOp::create(b, loc, range(BufferKind::Output, r.floorDiv(dist), dist), peer,
                     range(BufferKind::Output, r.floorDiv(dist), dist));
      RecvOp::create(b, loc, peer, range(BufferKind::Output, partner.floorDiv(dist), dist));
    }
  }
  return program;
}
