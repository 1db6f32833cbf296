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
  auto consider = [&](sched::ProgramOp program, Protocol protocol,
                      AlgorithmFamily family) -> llvm::Error {
    auto result = simulate(program, machine, {protocol, family});
    BaselineResult candidate{program.getAlgorithm().str(), protocol,
                             static_cast<int64_t>(program.getChannels()),
                             static_cast<int64_t>(program.getChunks()), 0};
    program->erase();
    if (!result)
      return result.takeError();
    candidate.timeUs = result->timeUs;
    if (!best || candidate.timeUs < best->timeUs)
      best = candidate;
    return llvm::Error::success();
  };
  Trees trees = ncclTrees(shape.ranks, machine.gpusPerNode);
  for (Protocol protocol : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    int64_t piece = pieceBytes(protocol);
    int64_t perPart = bytes / std::max<int64_t>(1, shape.ranks * channels);
    int64_t ringChunks = std::max<int64_t>(1, (perPart + piece - 1) / piece);
    if (auto error = consider(buildRingAllReduce(b, b.getUnknownLoc(), "nccl_ring",
                                                 ring, ringChunks, channels, orders),
                              protocol, AlgorithmFamily::Ring))
      return std::move(error);
    // The tree moves the whole buffer through every level, in pieces.
    int64_t treeChunks =
        std::max<int64_t>(1, (bytes / channels + piece - 1) / piece);
    if (auto error = consider(buildTreeAllReduce(b, b.getUnknownLoc(), "nccl_tree",
                                                 ring, trees, treeChunks, channels),
                              protocol, AlgorithmFamily::Tree))
      return std::move(error);
  }
  // NVLS: Hopper's NVSwitch reduces in the switch (one node, Simple only).
  bool oneNode = llvm::all_of(ranks, [&](int r) {
    return machine.nodeOf(r) == machine.nodeOf(ranks.front());
  });
  if (machine.nvls && oneNode && shape.ranks > 1) {
    int64_t piece = pieceBytes(Protocol::Simple);
    int64_t perPart = bytes / std::max<int64_t>(1, shape.ranks * channels);
    int64_t chunks = std::max<int64_t>(1, (perPart + piece - 1) / piece);
    if (auto error = consider(buildNvlsAllReduce(b, b.getUnknownLoc(), "nccl_nvls",
                                                 ring, chunks, channels),
                              Protocol::Simple, AlgorithmFamily::Nvls))
      return std::move(error);
  }
  return *best;
}
