//===- NvlsBroadcast.cpp - broadcast through the NVSwitch's multicast -----===//
//
// The root stores its buffer once into the multicast output (multimem st);
// the switch writes every copy, so the root's NVLinks carry one buffer out
// and every other rank's one in, the least a broadcast moves over them,
// where a chain forwards each piece through every GPU and pays its fill. A signal from
// the root per channel tells each rank that the channel's stores landed.
// NCCL has no NVLS broadcast; this is the all-reduce's second half alone.
//
//===----------------------------------------------------------------------===//

#include "passes/ScheduleBuilding.h"

using namespace mlir;
using namespace mlir::sched;
using namespace ccopt::detail;

ProgramOp ccopt::buildNvlsBroadcast(OpBuilder &b, Location loc, StringRef name,
                                    const AllReduceShape &shape, int64_t root,
                                    int64_t chunks, int64_t channels) {
  int64_t n = shape.ranks;
  auto [numChannels, numChunks] = clampPieces(shape.count, chunks, channels);
  auto program = buildProgram(b, loc, name, ccl::CollectiveKind::Broadcast, shape,
                              /*hasRedop=*/false, shape.count, shape.count,
                              /*scratch=*/0, root, "nvls", numChannels, numChunks);
  program.setMulticast(true);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  int64_t parts = numChannels * numChunks;
  for (int64_t channel = 0; channel < numChannels; ++channel) {
    AffineExpr piece = getAffineDimExpr(1, ctx) + channel * numChunks;
    auto part = [&](BufferKind kind) {
      return PartAttr::get(ctx, kind, AffineMap::get(2, 0, piece), parts);
    };
    buildRankTask(b, loc, program, channel, root);
    // In place the root's output is its input: the switch reads it there.
    BufferKind source = shape.inPlace ? BufferKind::Output : BufferKind::Input;
    buildLoop(b, loc, 0, numChunks, [&] {
      MultimemStoreOp::create(b, loc, part(source), part(BufferKind::Output),
                              IntegerAttr());
    });
    for (int64_t s = 1; s < n; ++s)
      SignalOp::create(b, loc, fixedPeer(ctx, (root + s) % n));
    for (int64_t s = 1; s < n; ++s) {
      buildRankTask(b, loc, program, channel, (root + s) % n);
      RecvOp::create(b, loc, fixedPeer(ctx, root));
    }
  }
  return program;
}
