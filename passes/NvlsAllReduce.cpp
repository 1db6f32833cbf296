//===- NvlsAllReduce.cpp - all-reduce in the NVSwitch ---------------------===//
//
// NVLS (NCCL 2.17+ on Hopper): every rank reduces its part of the buffer by
// reading it through the NVSwitch from all ranks at once (multimem
// ld_reduce), then stores the result once, which the switch replicates to
// every rank (multimem st); signals to everyone close the phase. Each link
// carries about one buffer up and one down, instead of the ring's two. The
// switch reaches only memory bound to a multicast object: the program is
// `multicast` (the caller binds such buffers, as NCCL's registered ones;
// NCCL copies other buffers through its own, in warps beside the switch's).
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildNvlsAllReduce(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape, int64_t chunks,
                                    int64_t channels) {
  int64_t n = shape.ranks, count = shape.count;
  int64_t blocks = std::max<int64_t>(1, count / n);
  int64_t numChannels = std::min<int64_t>(channels, blocks);
  int64_t numChunks =
      std::max<int64_t>(1, std::min<int64_t>(chunks, blocks / numChannels));
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::AllReduce, shape,
                              /*hasRedop=*/true, count, count, /*scratch=*/0,
                              std::nullopt, "nvls", numChannels, numChunks);
  program.setMulticast(true);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  AffineExpr r = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx);
  AffineExpr s = getAffineDimExpr(1, ctx);
  int64_t parts = n * numChunks * numChannels;
  bool avg = shape.redop == ccl::ReductionKind::Avg;
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    buildTask(b, loc, program, channel);
    // Part r of chunk c: the buffer is channels x chunks blocks of n parts.
    auto part = [&](BufferKind kind) {
      AffineExpr index = (c + channel * numChunks) * n + r % n;
      return PartAttr::get(ctx, kind, AffineMap::get(2, 0, index), parts);
    };
    buildLoop(b, loc, 0, numChunks, [&] {
      MultimemReduceOp::create(b, loc, part(BufferKind::Input),
                               part(BufferKind::Output),
                               avg ? b.getUnitAttr() : UnitAttr(), IntegerAttr());
      MultimemStoreOp::create(b, loc, part(BufferKind::Output),
                              part(BufferKind::Output), IntegerAttr());
    });
    // Everyone's stores have landed once everyone has signalled.
    buildLoop(b, loc, 1, n, [&] {
      SignalOp::create(b, loc, ringPeer(r + s, n, 2));
    });
    buildLoop(b, loc, 1, n, [&] {
      RecvOp::create(b, loc, ringPeer(r - s + n, n, 2));
    });
  }
  return program;
}
