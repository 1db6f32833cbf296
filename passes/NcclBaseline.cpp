//===- NcclBaseline.cpp - what NCCL would do on the same machine ----------===//

#include "passes/NcclBaseline.h"

#include "topology/Bounds.h"
#include "topology/Rings.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>
#include <set>

using namespace mlir;
using namespace ccopt::topo;

int64_t ccopt::ncclChannels(const Machine &machine) {
  // NCCL builds many rings over an NVSwitch (one per channel, up to its
  // channel limit), over one node's NVLink mesh the rings its search packs
  // onto the links (across nodes, four through the NICs), and two over
  // plain PCIe; then it runs every ring on two channels
  // (src/graph/connect.cc: "Duplication should be complete now").
  bool nvswitch = llvm::any_of(machine.devices(), [](const Device &d) {
    return d.kind == DeviceKind::NvSwitch;
  });
  bool nvlink = llvm::any_of(machine.links(), [](const Link &l) {
    return l.kind == LinkKind::NvLink;
  });
  if (nvswitch || !nvlink)
    return nvswitch ? 16 : 2;
  if (machine.nodes > 1)
    return 8;
  std::vector<int> node(machine.gpusPerNode);
  std::iota(node.begin(), node.end(), 0);
  return 2 * std::max<int64_t>(4, ringOrders(machine, node, 16).size());
}

int64_t ccopt::ncclNvlsTreePieces(int64_t bytes, int64_t channels, int64_t perNode) {
  return piecesOf(bytes / std::max<int64_t>(1, channels * perNode), Protocol::Simple);
}

int64_t ccopt::ncclP2pChannels(const Machine &machine, int64_t ranks) {
  // NCCL spreads a group of send/recv over its p2p channels (as many as its
  // collective channels, rounded to a power of two); every peer's transfer
  // runs at once, several to a channel when there are more peers.
  return std::clamp<int64_t>(ranks - 1, 1, llvm::PowerOf2Ceil(ncclChannels(machine)));
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

namespace {

using ccopt::BaselineResult;

/// Simulates NCCL's candidates and keeps the fastest. A protocol moves data
/// at most at its share of every link's bandwidth, so one whose lower bound
/// (the collective's bound with the transfer part over that share) is not
/// below the best time so far cannot win and is not simulated: LL and
/// LL128 at large sizes, where simulating their many small pieces would
/// cost the most.
class Fastest {
public:
  Fastest(const Machine &machine, mlir::ccl::CollectiveKind kind,
          llvm::ArrayRef<int> ranks, int64_t bytes)
      : machine(machine), boundUs(lowerBoundUs(kind, ranks, bytes, machine)),
        latencyUs(lowerBoundUs(kind, ranks, 0, machine)),
        ll128(ccopt::ringsStayOnNvlink(machine, ranks)) {}

  bool worthTrying(Protocol protocol) const {
    if (protocol == Protocol::LL128 && !ll128)
      return false;
    return !best || boundUnder(protocol, boundUs, latencyUs) < best->timeUs;
  }

  /// Simulates `program` (then erases it) and keeps it if it is the fastest.
  llvm::Error consider(sched::ProgramOp program, Protocol protocol,
                       AlgorithmFamily family) {
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
  }

  std::optional<BaselineResult> best;

private:
  const Machine &machine;
  double boundUs, latencyUs;
  bool ll128; // NCCL enables LL128 (ringsStayOnNvlink)
};

/// Simple first: at large sizes it wins and the others need not run.
constexpr Protocol kProtocols[] = {Protocol::Simple, Protocol::LL128, Protocol::LL};

int64_t elementBytes(mlir::Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}



} // namespace

bool ccopt::ringsStayOnNvlink(const Machine &machine, llvm::ArrayRef<int> ranks) {
  for (const std::vector<int> &ring :
       ringOrders(machine, ranks, ncclChannels(machine), NodeCrossing::SameRail))
    for (size_t i = 0; i < ring.size(); ++i) {
      int a = ring[i], b = ring[(i + 1) % ring.size()];
      if (a != b && machine.nodeOf(a) == machine.nodeOf(b) &&
          machine.routeKind(a, b) != LinkKind::NvLink)
        return false;
    }
  return true;
}

int64_t ccopt::piecesOf(int64_t bytes, Protocol protocol) {
  int64_t piece = pieceBytes(protocol);
  return std::max<int64_t>(1, (bytes + piece - 1) / piece);
}

int64_t ccopt::treePiecesOf(const Machine &machine, llvm::ArrayRef<int> ranks,
                            int64_t bytes, int64_t channels, Protocol protocol) {
  int64_t piece = pieceBytes(protocol);
  if (protocol == Protocol::LL128) {
    std::set<int> nodes;
    for (int r : ranks)
      nodes.insert(machine.nodeOf(r));
    double perNode = double(ranks.size()) / std::max<size_t>(1, nodes.size());
    double steps = 1 + llvm::Log2_64(std::max<size_t>(1, nodes.size())) + 0.1 * perNode;
    auto loops = [&](int64_t piece) { return bytes / (channels * piece); };
    while (loops(piece) < steps * 64 / perNode && piece > 131072)
      piece /= 2;
    while (loops(piece) < steps * 16 / perNode && piece > 32768)
      piece /= 2;
  }
  return std::max<int64_t>(1, (bytes / channels + piece - 1) / piece);
}

llvm::Expected<ccopt::BaselineResult>
ccopt::ncclAllReduceBaseline(MLIRContext *context, const AllReduceShape &shape,
                             llvm::ArrayRef<int> ranks, const Machine &machine) {
  OpBuilder b(context);
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(context));
  b.setInsertionPointToStart(scratch->getBody());
  AllReduceShape ring = shape;
  ring.rankMap.assign(ranks.begin(), ranks.end());
  int64_t bytes = shape.count * elementBytes(shape.elementType);
  int64_t channels = ncclChannels(machine);
  RingOrders orders =
      toScheduleRanks(ringOrders(machine, ranks, channels, NodeCrossing::SameRail), ranks);
  Fastest fastest(machine, ccl::CollectiveKind::AllReduce, ranks, bytes);
  Trees trees = ncclTrees(shape.ranks, machine.gpusPerNode);
  for (Protocol protocol : kProtocols) {
    if (!fastest.worthTrying(protocol))
      continue;
    int64_t perPart = bytes / std::max<int64_t>(1, shape.ranks * channels);
    if (auto error = fastest.consider(
            buildRingAllReduce(b, b.getUnknownLoc(), "nccl_ring", ring,
                               piecesOf(perPart, protocol), channels, orders),
            protocol, AlgorithmFamily::Ring))
      return std::move(error);
    // The tree moves the whole buffer through every level, in pieces.
    if (auto error = fastest.consider(
            buildTreeAllReduce(b, b.getUnknownLoc(), "nccl_tree", ring, trees,
                               std::min(kMaxTreePieces,
                                        treePiecesOf(machine, ranks, bytes,
                                                     channels, protocol)),
                               channels),
            protocol, AlgorithmFamily::Tree))
      return std::move(error);
  }
  // NVLS: Hopper's NVSwitch reduces in the switch (Simple only); on one
  // node alone, on several with the nodes exchanging between (NVLS tree).
  bool oneNode = llvm::all_of(ranks, [&](int r) {
    return machine.nodeOf(r) == machine.nodeOf(ranks.front());
  });
  bool switches = machine.nvls && shape.ranks > 1 && !shape.narrowWire() &&
                  sched::multimemReduces(shape.elementType, shape.redop) &&
                  llvm::all_of(ranks, [&](int r) { return machine.nvSwitchLinks(r); });
  if (switches && oneNode) {
    int64_t perPart = bytes / std::max<int64_t>(1, shape.ranks * channels);
    if (auto error = fastest.consider(
            buildNvlsAllReduce(b, b.getUnknownLoc(), "nccl_nvls", ring,
                               piecesOf(perPart, Protocol::Simple), channels),
            Protocol::Simple, AlgorithmFamily::Nvls))
      return std::move(error);
  }
  std::optional<int64_t> perNode = ranksPerGroup(machine, ranks);
  if (switches && !oneNode && perNode) {
    if (auto error = fastest.consider(
            buildHierarchicalAllReduce(b, b.getUnknownLoc(), "nccl_nvls_tree", ring, *perNode,
                                       railsOf("hierarchical_nvls", shape.ranks / *perNode),
                                       ncclNvlsTreePieces(bytes, channels, *perNode), channels,
                                       {}, /*inSwitch=*/true),
            Protocol::Simple, AlgorithmFamily::Nvls))
      return std::move(error);
  }
  return *fastest.best;
}

llvm::Expected<ccopt::BaselineResult>
ccopt::ncclBaseline(MLIRContext *context, ccl::CollectiveKind kind,
                    const AllReduceShape &shape, llvm::ArrayRef<int> ranks,
                    const Machine &machine, int64_t root) {
  using K = ccl::CollectiveKind;
  if (kind == K::AllReduce)
    return ncclAllReduceBaseline(context, shape, ranks, machine);
  if (kind == K::Barrier) {
    AllReduceShape one{shape.ranks, 1, Float32Type::get(context),
                       ccl::ReductionKind::Sum, /*inPlace=*/true, {}};
    return ncclAllReduceBaseline(context, one, ranks, machine);
  }
  OpBuilder b(context);
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(context));
  b.setInsertionPointToStart(scratch->getBody());
  Location loc = b.getUnknownLoc();
  AllReduceShape nccl = shape;
  nccl.rankMap.assign(ranks.begin(), ranks.end());
  nccl.wire = {}; // NCCL sends the element type
  int64_t n = shape.ranks;
  int64_t elementSize = elementBytes(shape.elementType);
  // Bytes as nccl-tests counts them (the larger buffer).
  bool blocks = kind == K::ReduceScatter || kind == K::AllGather;
  int64_t bytes = shape.count * elementSize * (blocks ? n : 1);
  Fastest fastest(machine, kind, ranks, bytes);
  int64_t channels = ncclChannels(machine);
  auto orders = [&] {
    return toScheduleRanks(ringOrders(machine, ranks, channels, NodeCrossing::SameRail),
                           ranks);
  };
  switch (kind) {
  case K::ReduceScatter:
  case K::AllGather: {
    RingOrders rings = orders();
    for (Protocol protocol : kProtocols) {
      if (!fastest.worthTrying(protocol))
        continue;
      int64_t chunks = piecesOf(shape.count * elementSize / channels, protocol);
      auto program =
          kind == K::ReduceScatter
              ? buildRingReduceScatter(b, loc, "nccl_ring", nccl, chunks, channels, rings)
              : buildRingAllGather(b, loc, "nccl_ring", nccl, chunks, channels, rings);
      if (auto error = fastest.consider(program, protocol, AlgorithmFamily::Ring))
        return std::move(error);
    }
    break;
  }
  case K::Broadcast:
  case K::Reduce: {
    // NCCL's broadcast and reduce run along its rings, each channel's
    // along its own, cut at the root.
    RingOrders rings = orders();
    for (Protocol protocol : kProtocols) {
      if (!fastest.worthTrying(protocol))
        continue;
      int64_t chunks = piecesOf(bytes / channels, protocol);
      if (auto error = fastest.consider(
              buildChainBroadcast(b, loc, "nccl_chain", nccl, root,
                                  kind == K::Reduce, chunks, channels, rings),
              protocol, AlgorithmFamily::Ring))
        return std::move(error);
    }
    break;
  }
  case K::AllToAll: {
    // Point-to-point work runs LL (small) or Simple.
    for (Protocol protocol : {Protocol::Simple, Protocol::LL}) {
      if (!fastest.worthTrying(protocol))
        continue;
      nccl.inPlace = false;
      if (auto error = fastest.consider(
              buildDirectAllToAll(b, loc, "nccl_p2p", nccl, ncclP2pChannels(machine, n)),
              protocol, AlgorithmFamily::Ring))
        return std::move(error);
    }
    break;
  }
  case K::SendRecv: {
    for (Protocol protocol : {Protocol::Simple, Protocol::LL}) {
      if (!fastest.worthTrying(protocol))
        continue;
      if (auto error = fastest.consider(
              buildSendRecv(b, loc, "nccl_p2p", nccl, piecesOf(bytes, protocol)),
              protocol, AlgorithmFamily::Ring))
        return std::move(error);
    }
    break;
  }
  default:
    break;
  }
  if (!fastest.best)
    return llvm::createStringError("no NCCL baseline for %s",
                                   ccl::stringifyCollectiveKind(kind).str().c_str());
  return *fastest.best;
}
