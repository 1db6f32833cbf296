//===- NcclBaseline.cpp - what NCCL would do on the same machine ----------===//

#include "passes/NcclBaseline.h"

#include "topology/Rings.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace ccopt::topo;

int64_t ccopt::ncclChannels(const Machine &machine) {
  // NCCL builds many rings over an NVSwitch (one per channel, up to its
  // channel limit), a few over NVLink meshes, and two over plain PCIe.
  bool nvswitch = llvm::any_of(machine.devices(), [](const Device &d) {
    return d.kind == DeviceKind::NvSwitch;
  });
  bool nvlink = llvm::any_of(machine.links(), [](const Link &l) {
    return l.kind == LinkKind::NvLink;
  });
  return nvswitch ? 16 : nvlink ? 8 : 2;
}

/// Bytes of one pipelined piece of one ring part per protocol: NCCL's step
/// size (NCCL_BUFFSIZE / NCCL_STEPS) times the steps it moves per chunk.
static int64_t pieceBytes(Protocol protocol) {
  switch (protocol) {
  case Protocol::LL: return 16 << 10;     // 256 KiB LL buffer / 8 steps, half data
  case Protocol::LL128: return 256 << 10; // ~4.6 MB LL128 buffer / 8 steps, 120/128 data
  case Protocol::Simple: return 512 << 10; // 4 MiB / 8 steps
  }
  return 512 << 10;
}

llvm::Expected<ccopt::BaselineResult>
ccopt::ncclAllReduceBaseline(MLIRContext *context, const AllReduceShape &shape,
                             llvm::ArrayRef<int> ranks, const Machine &machine) {
  OpBuilder b(context);
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(context));
  b.setInsertionPointToStart(scratch->getBody());
  AllReduceShape ring = shape;
  ring.rankMap.assign(ranks.begin(), ranks.end());
  int64_t bytes = shape.count * ((shape.elementType.getIntOrFloatBitWidth() + 7) / 8);
  int64_t channels = ncclChannels(machine);
  RingOrders orders =
      toScheduleRanks(ringOrders(machine, ranks, channels), ranks);
  std::optional<BaselineResult> best;
  for (Protocol protocol : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    int64_t perPart = bytes / std::max<int64_t>(1, shape.ranks * channels);
    int64_t chunks = std::max<int64_t>(1, (perPart + pieceBytes(protocol) - 1) /
                                              pieceBytes(protocol));
    auto program = buildRingAllReduce(b, b.getUnknownLoc(), "nccl_ring", ring,
                                      chunks, channels, orders);
    auto result = simulate(program, machine, {protocol, AlgorithmFamily::Ring});
    int64_t builtChannels = program.getChannels(), builtChunks = program.getChunks();
    program->erase();
    if (!result)
      return result.takeError();
    if (!best || result->timeUs < best->timeUs)
      best = BaselineResult{"ring", protocol, builtChannels, builtChunks,
                            result->timeUs};
  }
  return *best;
}
