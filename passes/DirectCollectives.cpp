//===- DirectCollectives.cpp - one-hop reduce-scatter, all-gather, roots --===//
//
// The direct forms of the other collectives, for fully connected machines
// (NVSwitch) and small buffers, where a ring's or chain's n-1 hops of
// latency dominate; every transfer is one hop, all at once:
//  - reduce-scatter: rank r writes block j into slot r of rank j's scratch;
//    rank j adds its n slots in rank order (the first half of two-shot);
//  - all-gather: rank r writes its block into block r of every output;
//  - broadcast: the root writes its buffer into every rank's output;
//  - reduce: every rank writes its buffer into its slot of the root's
//    scratch; the root adds the slots in rank order.
// Adding in rank order gives the same bits as the reference order.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

namespace {

/// Channels of `count` elements with at least one element each.
int64_t channelsFor(int64_t count, int64_t channels) {
  return std::clamp<int64_t>(count, 1, std::max<int64_t>(1, channels));
}

} // namespace

ProgramOp ccopt::buildDirectReduceScatter(OpBuilder &b, Location loc,
                                          StringRef name,
                                          const AllReduceShape &shape,
                                          int64_t channels) {
  int64_t n = shape.ranks, m = shape.count;
  int64_t C = channelsFor(m, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::ReduceScatter,
                              shape, /*hasRedop=*/true, n * m, m,
                              n > 1 ? n * m : 0, std::nullopt, "direct", C, 1);
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    // Piece ch of block j is part j*C + ch of the n blocks (parts nest in
    // blocks: [i*C/P, (i+1)*C/P) with P = n*C); slot s of the scratch
    // holds rank s's copy of this rank's block.
    auto block = [&](BufferKind kind, AffineExpr j, unsigned dims) {
      return d.part(kind, j * C + ch, n * C, dims);
    };
    auto own = [&](unsigned dims) {
      return d.part(BufferKind::Output, d.constant(ch), C, dims);
    };
    AffineExpr r = d.rank();
    if (n == 1) {
      CopyOp::create(b, loc, block(BufferKind::Input, r, 1), own(1));
      continue;
    }
    CopyOp::create(b, loc, block(BufferKind::Input, r, 1),
                   block(BufferKind::Scratch, r, 1));
    d.exchangeWithAll(
        [&] { return block(BufferKind::Input, (r + d.step()) % n, 2); },
        [&] { return block(BufferKind::Scratch, r, 2); },
        [&] { return block(BufferKind::Scratch, (r - d.step() + n) % n, 2); });
    d.addSlots([&](AffineExpr s, unsigned dims) {
      return block(BufferKind::Scratch, s, dims);
    }, own(1), own(2));
  }
  return program;
}

ProgramOp ccopt::buildDirectAllGather(OpBuilder &b, Location loc, StringRef name,
                                      const AllReduceShape &shape,
                                      int64_t channels) {
  int64_t n = shape.ranks, m = shape.count;
  int64_t C = channelsFor(m, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllGather,
                              shape, /*hasRedop=*/false, m, n * m, 0,
                              std::nullopt, "direct", C, 1);
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  for (int64_t ch = 0; ch < C; ++ch) {
    buildTask(b, loc, program, ch);
    auto block = [&](AffineExpr j, unsigned dims) {
      return d.part(BufferKind::Output, j * C + ch, n * C, dims);
    };
    auto own = [&](unsigned dims) {
      return d.part(BufferKind::Input, d.constant(ch), C, dims);
    };
    AffineExpr r = d.rank();
    if (n == 1) {
      CopyOp::create(b, loc, own(1), block(r, 1));
      continue;
    }
    // The own block goes into place in the first send's pass (rank r+1's),
    // then to the other ranks.
    SendOp::create(b, loc, own(1), ringPeer(r + 1, n, 1), block(r, 1), block(r, 1));
    buildLoop(b, loc, 2, n, [&] {
      SendOp::create(b, loc, own(2), ringPeer(r + d.step(), n, 2), block(r, 2));
    });
    buildLoop(b, loc, 1, n, [&] {
      RecvOp::create(b, loc, ringPeer(r - d.step() + n, n, 2),
                     block((r - d.step() + n) % n, 2));
    });
  }
  return program;
}

ProgramOp ccopt::buildDirectBroadcast(OpBuilder &b, Location loc, StringRef name,
                                      const AllReduceShape &shape, int64_t root,
                                      bool reduce, int64_t channels) {
  int64_t n = shape.ranks, m = shape.count;
  int64_t C = channelsFor(m, channels);
  auto program = buildProgram(
      b, loc, name, reduce ? ccl::CollectiveKind::Reduce : ccl::CollectiveKind::Broadcast,
      shape, reduce, m, m, reduce && n > 1 ? n * m : 0, root, "direct", C, 1);
  OpBuilder::InsertionGuard guard(b);
  DirectBuilder d(b, loc, program);
  auto at = [&](int64_t rank) {
    return AffineMapAttr::get(AffineMap::get(1, 0, d.constant(rank)));
  };
  for (int64_t ch = 0; ch < C; ++ch) {
    auto piece = [&](BufferKind kind) {
      return d.part(kind, d.constant(ch), C, 1);
    };
    auto slot = [&](AffineExpr s, unsigned dims) {
      return d.part(BufferKind::Scratch, s * C + ch, n * C, dims);
    };
    // The root's task, then one per other rank.
    buildRankTask(b, loc, program, ch, root);
    if (n == 1 || !reduce) {
      // Out of place, the first send stores the input into the output too.
      PartAttr copyOut = shape.inPlace ? PartAttr() : piece(BufferKind::Output);
      if (copyOut && n == 1)
        CopyOp::create(b, loc, piece(BufferKind::Input), copyOut);
      for (int64_t s = 1; s < n; ++s)
        SendOp::create(b, loc, piece(BufferKind::Input), at((root + s) % n),
                       piece(BufferKind::Output), s == 1 ? copyOut : PartAttr());
    } else {
      CopyOp::create(b, loc, piece(BufferKind::Input), slot(d.constant(root), 1));
      for (int64_t s = 1; s < n; ++s) {
        int64_t from = (root + s) % n;
        RecvOp::create(b, loc, at(from), slot(d.constant(from), 1));
      }
      d.addSlots(slot, piece(BufferKind::Output),
                 d.part(BufferKind::Output, d.constant(ch), C, 2));
    }
    for (int64_t s = 1; s < n; ++s) {
      int64_t rank = (root + s) % n;
      buildRankTask(b, loc, program, ch, rank);
      if (reduce)
        SendOp::create(b, loc, piece(BufferKind::Input), at(root),
                       slot(d.constant(rank), 1));
      else
        RecvOp::create(b, loc, at(root), piece(BufferKind::Output));
    }
  }
  return program;
}
