//===- ScatterAllGatherBroadcast.cpp - van de Geijn's broadcast -----------===//
//
// A broadcast of a large buffer on a fully connected machine (NVSwitch):
// the root writes block j of n into rank j's output (a scatter), then every
// rank writes the block it got into the outputs of the others (a direct
// all-gather). Every link carries about 1/n of the buffer, twice, instead of
// a tree's or chain's whole buffer per hop. The root already holds every
// block, so nobody writes into it: it writes its own block to every rank
// instead, after the scatter so that the others can start their all-gather.
// The root and the other ranks differ, so every rank gets its own task.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildScatterAllGatherBroadcast(OpBuilder &b, Location loc,
                                                StringRef name,
                                                const AllReduceShape &shape,
                                                int64_t root, int64_t channels) {
  int64_t n = shape.ranks, count = shape.count;
  assert(root >= 0 && root < n && "the root must be a rank");
  int64_t C = std::clamp<int64_t>(count / n, 1, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::Broadcast, shape,
                              /*hasRedop=*/false, count, count, /*scratch=*/0, root,
                              "scatter_allgather", C, 1);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  AffineExpr s = getAffineDimExpr(1, ctx);
  for (int64_t ch = 0; ch < C; ++ch) {
    // Channel ch's slice of the buffer is part ch of C, in n blocks (parts
    // split unevenly when n does not divide the count).
    auto block = [&](BufferKind kind, AffineExpr j, unsigned dims) {
      return PartAttr::get(ctx, kind, AffineMap::get(dims, 0, j % n + ch * n), C * n);
    };
    auto peer = [&](AffineExpr rank, unsigned dims) {
      return AffineMapAttr::get(AffineMap::get(dims, 0, rank % n));
    };
    for (int64_t r = 0; r < n; ++r) {
      b.setInsertionPointToEnd(&program.getBody().front());
      buildTask(b, loc, program, ch).setRankAttr(b.getI64IntegerAttr(r));
      AffineExpr me = getAffineConstantExpr(r, ctx);
      // Loops over the other ranks r+s (towards, +1) or r-s (from, -1), s
      // in [1, n), skipping the root.
      auto forOthers = [&](int64_t direction, auto body) {
        int64_t skip = r == root ? n : ((root - r) * direction + n) % n;
        buildLoop(b, loc, 1, skip, body);
        buildLoop(b, loc, skip + 1, n, body);
      };
      auto whole = [&](BufferKind kind) {
        return PartAttr::get(ctx, kind,
                             AffineMap::get(1, 0, getAffineConstantExpr(ch, ctx)), C);
      };
      if (r == root) {
        forOthers(1, [&] {
          SendOp::create(b, loc, block(BufferKind::Input, me + s, 2), peer(me + s, 2),
                         block(BufferKind::Output, me + s, 2));
        });
        forOthers(1, [&] {
          SendOp::create(b, loc, block(BufferKind::Input, me, 2), peer(me + s, 2),
                         block(BufferKind::Output, me, 2));
        });
        if (!shape.inPlace)
          CopyOp::create(b, loc, whole(BufferKind::Input), whole(BufferKind::Output));
        continue;
      }
      AffineExpr rootExpr = getAffineConstantExpr(root, ctx);
      auto fromRoot = AffineMapAttr::get(AffineMap::get(1, 0, rootExpr));
      RecvOp::create(b, loc, fromRoot, block(BufferKind::Output, me, 1));
      forOthers(1, [&] {
        SendOp::create(b, loc, block(BufferKind::Output, me, 2), peer(me + s, 2),
                       block(BufferKind::Output, me, 2));
      });
      RecvOp::create(b, loc, fromRoot, block(BufferKind::Output, rootExpr, 1));
      // Rank r-s sent its block here in its own loop; any order of
      // senders works, as each has its own queue.
      forOthers(-1, [&] {
        RecvOp::create(b, loc, peer(me - s + n, 2),
                       block(BufferKind::Output, me - s + n, 2));
      });
    }
  }
  return program;
}
