//===- SelectAlgorithm.cpp - ccl-select-algorithm -------------------------===//

#include "passes/Collectives.h"
#include "passes/NcclBaseline.h"
#include "passes/Passes.h"
#include "dialect/Sched/StepWalker.h"
#include "topology/Bounds.h"
#include "topology/Protocol.h"
#include "topology/Simulator.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace ccopt {
#define GEN_PASS_DEF_CCLSELECTALGORITHM
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace ccopt;

namespace {

/// Scratch a candidate may take per rank beyond two copies of the buffer
/// (the direct algorithms keep a copy of every rank's): they win on
/// latency, for small buffers. Two copies (staging a reduce-scatter's or an
/// all-to-all's blocks, a tree's two children's pieces, a node ring's and
/// a rail ring's staging) are always allowed.
constexpr int64_t kDirectScratchBytes = int64_t(256) << 20;
/// Beyond this many ranks the direct algorithms' n-1 sends in a row lose to
/// anything with fewer hops, and verifying them costs n^2 steps.
constexpr int64_t kDirectMaxRanks = 64;
/// Tasks a searched candidate may have where the algorithm gives every rank
/// a task per channel (trees, binomial trees): building, folding and
/// tearing one down costs about 10 us a task, so past this only NCCL's
/// channel count is searched (a 1024-rank tree on 16 channels passes).
constexpr int64_t kTaskBudget = 16384;
/// The smallest piece a tree's search cuts.
constexpr int64_t kMinTreePieceBytes = 32 << 10;

/// A mailbox region (one sender's slots, on one channel) holds no more than
/// NCCL's buffer for one connection under that protocol (src/init.cc
/// DEFAULT_LL_BUFFSIZE: 8 lines x 512 threads x NCCL_STEPS x 16 bytes;
/// DEFAULT_LL128_BUFFSIZE: 120 x 640 x NCCL_STEPS x 8 bytes), and a rank's
/// whole mailbox no more than the direct algorithms' scratch.
int64_t mailboxRegionLimit(sched::ProtocolKind kind) {
  return kind == sched::ProtocolKind::LL128 ? 120 * 640 * 8 * 8 : 8 * 512 * 8 * 16;
}
constexpr int64_t kMailboxBytes = kDirectScratchBytes;

constexpr sched::ProtocolKind kProtocols[] = {
    sched::ProtocolKind::Simple, sched::ProtocolKind::LL, sched::ProtocolKind::LL128};

struct Choice {
  std::string algorithm;
  int64_t channels, chunks;
  double timeUs;
  std::string protocol = "simple";
  int64_t settleWork = 0; // its simulations' work (SimResult)
  std::optional<Beside> beside; // a second algorithm on a share of every block
};

/// Work (SimResult::settleWork) a search level past the step budget may
/// take: up to ~40 s of simulation for a broadcast over 128 h100x8 ranks,
/// whose 1 GiB then selects in 95 s (32 s at 128M: 0.69 -> 0.79 of the
/// bound). A chain through 128 v100x8 ranks takes ~3 a step, one through
/// pcie4x8's sockets, whose flows share the PCIe switches, ~40; the
/// broadcasts over the rails take fewer but dearer steps.
constexpr int64_t kRefineWork = int64_t(512) << 20;
/// The smallest buffer whose hierarchical all-reduce, reduce-scatter or
/// all-gather searches past the step budget.
constexpr int64_t kRefineHierarchicalBytes = int64_t(64) << 20;

/// The most nodes over which the ring runs beside the hierarchical
/// algorithms (besideTheRing): over 16 h100x8 nodes its 127 steps in a row
/// gain nothing at 1 GiB, for 30 s more of compile.
constexpr int64_t kBesideMaxNodes = 4;

struct SelectAlgorithm : ccopt::impl::CclSelectAlgorithmBase<SelectAlgorithm> {
  using Base::Base;

  void runOnOperation() override {
    auto loaded = machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    if (!*loaded) {
      getOperation().emitError("ccl-select-algorithm needs a machine (topo or topo-file)");
      return signalPassFailure();
    }
    machine = std::move(**loaded);
    // LL128 relies on 128-byte lines arriving whole, which NCCL trusts (and
    // enables LL128 by default) only over NVLink inside a node: for every
    // algorithm where all GPU pairs of a node are NVLinked, for rings and
    // chains where their hops are (v100x8's cube mesh).
    ll128 = true;
    for (int a = 0; a < machine.gpusPerNode; ++a)
      for (int b = 0; b < machine.gpusPerNode; ++b)
        ll128 &= a == b || machine.routeKind(a, b) == topo::LinkKind::NvLink;
    getOperation().walk([&](Operation *op) {
      if (!isa<ccl::AllReduceOp, ccl::ReduceScatterOp, ccl::AllGatherOp,
               ccl::BroadcastOp, ccl::ReduceOp, ccl::AllToAllOp, ccl::SendOp>(op) ||
          op->hasAttr("algorithm"))
        return;
      auto collective = describeCollective(op);
      if (failed(collective) || failed(select(op, *collective)))
        signalPassFailure();
    });
  }

  /// What no candidate of `c` can beat under a protocol: the collective's
  /// bound (over the wire's bytes; without the max-flow cuts inside a node,
  /// slow on large machines) with its transfer at the protocol's share of
  /// the bandwidth.
  struct Bound {
    Bound(const Collective &c, const topo::Machine &machine) {
      int64_t bytes = c.bytes;
      if (c.shape.wire)
        bytes = bytes * c.shape.wire.getIntOrFloatBitWidth() /
                c.shape.elementType.getIntOrFloatBitWidth();
      us = topo::lowerBoundUs(c.kind, c.ranks, bytes, machine, /*withNodeCuts=*/false);
      latencyUs = topo::lowerBoundUs(c.kind, c.ranks, 0, machine, /*withNodeCuts=*/false);
    }
    double under(topo::Protocol protocol) const {
      return topo::boundUnder(protocol, us, latencyUs);
    }
    /// The same, for an algorithm whose data takes `hops` steps one after
    /// the other: it pays at least their latencies (each at least an NVLink
    /// hop's) after the collective's base latency.
    double under(topo::Protocol protocol, int64_t hops) const {
      double path = topo::baseLatencyUs(topo::AlgorithmFamily::Ring, protocol) +
                    hops * topo::hopLatencyUs(topo::AlgorithmFamily::Ring, protocol,
                                              topo::LinkKind::NvLink);
      return std::max(under(protocol), hops ? path : 0.0);
    }
    double us, latencyUs;
  };

  static bool isRing(StringRef algorithm) {
    return algorithm == "ring" || algorithm == "staggered_ring" || algorithm == "ring_sockets";
  }
  static bool isChain(StringRef algorithm) {
    return algorithm == "chain" || algorithm == "chain_sockets";
  }

  /// Steps in a row that every candidate of `algorithm` takes: a ring's
  /// block goes round (an all-reduce's twice), a chain's message down the
  /// chain; 0 where not counted.
  static int64_t stepsInARow(const Collective &c, StringRef algorithm) {
    int64_t n = c.shape.ranks;
    if (isRing(algorithm))
      return c.kind == ccl::CollectiveKind::AllReduce ? 2 * (n - 1) : n - 1;
    if (isChain(algorithm))
      return n - 1;
    return 0;
  }

  /// Simulates one candidate under Simple and, where its messages fit a
  /// mailbox of that protocol, LL and LL128, each only where its bound is
  /// below `beat` (the best time so far); the fastest time and its
  /// protocol. +inf when it cannot run or cannot win, or when it would take
  /// longer than `giveUpAfter` (the simulations stop there). `steps`: what
  /// all its ranks take (stepsPerRank); `protocols`: those to try (bits of
  /// kProtocols); `workLimit`: settling work a simulation may take before
  /// it gives up (it then cannot win).
  double timeOf(const Collective &c, const Bound &bound, double beat,
                double giveUpAfter, StringRef algorithm, int64_t channels,
                int64_t chunks, int64_t steps, std::string &protocol,
                unsigned protocols = ~0u, int64_t workLimit = INT64_MAX,
                const std::optional<Beside> &beside = std::nullopt) {
    int64_t hops = stepsInARow(c, algorithm);
    if (llvm::all_of(kProtocols, [&](sched::ProtocolKind kind) {
          return bound.under(topo::protocolOf(kind), hops) >= beat;
        }))
      return 1e300;
    OpBuilder b(&getContext());
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToStart(scratch->getBody());
    std::string why;
    auto built = buildCollective(b, b.getUnknownLoc(), "candidate", c, &machine, algorithm,
                                 chunks, channels, beside, why);
    if (failed(built))
      return 1e300;
    sched::ProgramOp program = *built;
    // What no chunking of this candidate beats under each protocol: the
    // collective's bound, and the busiest task's steps one after the other.
    topo::TaskLoads loads = topo::taskLoads(program);
    std::array<double, std::size(kProtocols)> floor;
    for (auto [i, kind] : llvm::enumerate(kProtocols))
      floor[i] = std::max(bound.under(topo::protocolOf(kind), hops),
                          loads.lowerBoundUs(program, machine, topo::protocolOf(kind)));
    // The most promising protocol first: the others then stop as soon as
    // they fall behind it.
    std::array<size_t, std::size(kProtocols)> order;
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](size_t a, size_t b) { return floor[a] < floor[b]; });
    double best = 1e300;
    std::optional<topo::Symmetry> symmetry;                // once per program
    std::optional<FailureOr<sched::MailboxDemand>> demand; // once, for LL and LL128
    // Where two GPUs of a node have no NVLink, the hierarchical all-reduce,
    // reduce-scatter and all-gather exchange inside the node round its
    // rings (NodeRing::Always where those are NVLink): their hops there are
    // a ring's.
    bool nodeRings = algorithm.starts_with("hierarchical") &&
                     algorithm != "hierarchical_nvls" && algorithm != "hierarchical_sockets" &&
                     (c.kind == ccl::CollectiveKind::AllReduce ||
                      c.kind == ccl::CollectiveKind::ReduceScatter ||
                      c.kind == ccl::CollectiveKind::AllGather);
    bool ringHops = isRing(algorithm) || isChain(algorithm) || nodeRings;
    for (size_t i : order) {
      sched::ProtocolKind kind = kProtocols[i];
      if (floor[i] >= std::min(beat, best) || !(protocols >> i & 1))
        continue;
      if (kind == sched::ProtocolKind::LL128 && !ll128 && !(ringHops && ringsOnNvlink(c)))
        continue;
      // Sizing the mailbox walks every rank's steps: only for a candidate
      // that wins, and where the walk stays within a few budgets (up to 32
      // channels of a 128-rank ring).
      if (sched::usesMailbox(kind) && steps > 4 * stepBudget)
        continue;
      program.setProtocol(kind);
      if (!symmetry)
        symmetry = topo::symmetryOf(program, machine);
      topo::SimOptions options;
      options.symmetry = &*symmetry;
      options.giveUpAfterUs = std::min(giveUpAfter, best);
      options.giveUpAfterWork = workLimit;
      auto result = topo::simulate(program, machine, options);
      if (!result) {
        llvm::consumeError(result.takeError());
        continue;
      }
      simulated += result->settleWork;
      if (result->gaveUp || result->timeUs >= best)
        continue;
      if (sched::usesMailbox(kind)) {
        if (!demand) {
          sched::MailboxFold fold = symmetry->mailboxFold();
          demand = sched::mailboxDemand(program, nullptr, &fold);
        }
        if (failed(*demand))
          continue;
        sched::LLMailbox box = (*demand)->under(kind);
        if (box.regionBytes() > mailboxRegionLimit(kind) ||
            box.bytes(program) > kMailboxBytes)
          continue;
      }
      best = result->timeUs;
      protocol = sched::stringifyProtocolKind(kind).str();
    }
    return best;
  }

  /// The channel counts a search tries: the powers of two up to `most`,
  /// and NCCL's count and twice it (v100x8's 12 run its six rings both
  /// ways, 24 each twice; 16 would put four of them twice on their links).
  std::vector<int64_t> channelCounts(int64_t most) {
    std::set<int64_t> counts;
    for (int64_t channels = 1; channels <= most; channels *= 2)
      counts.insert(channels);
    for (int64_t channels : {ncclChannels(machine), 2 * ncclChannels(machine)})
      if (channels <= most)
        counts.insert(channels);
    return {counts.begin(), counts.end()};
  }

  /// Steps one rank takes per channel and chunk (simulation cost grows
  /// with them).
  int64_t stepsPerRank(const Collective &c, StringRef algorithm,
                       std::optional<int64_t> perNode) {
    int64_t n = c.shape.ranks;
    // Block by block: the reduce-scatter's sends, receives and additions of
    // the node's copies, the all-gather's sends and receives, the rings.
    if (byHalves(c, algorithm, perNode))
      return 5 * (*perNode - 1) * (n / *perNode) + 2 * (n / *perNode) + 1;
    if (algorithm == "tree" || isChain(algorithm) ||
        c.kind == ccl::CollectiveKind::SendRecv)
      return 4;
    if (algorithm == "binomial")
      return 2 * llvm::Log2_64_Ceil(n) + 2;
    if (algorithm == "recursive_doubling" || algorithm == "halving_doubling")
      return 3 * llvm::Log2_64(n);
    if (perNode && c.kind == ccl::CollectiveKind::Broadcast &&
        algorithm.starts_with("hierarchical")) // rail hops, the node-mates
      return 2 * *perNode + (algorithm == "hierarchical_tree" ? 3 : 2);
    if (perNode && algorithm == "hierarchical_nvls") // the switch's two steps, the rails'
      return railsOf(algorithm, n / *perNode) == RailAllReduce::Ring
                 ? 4 + 2 * n / *perNode
                 : 4 + 5 * llvm::Log2_64(n / *perNode);
    if (perNode && (algorithm == "hierarchical_rd" || algorithm == "hierarchical_hd"))
      return 4 * *perNode + 3 * llvm::Log2_64(n / *perNode); // doubling (halving) over the nodes
    if (perNode && algorithm.starts_with("hierarchical")) // rings over the nodes
      return 4 * *perNode + 2 * n / *perNode;
    return 5 * n; // ring 2n, one-shot 3n, two-shot 5n, direct 3n
  }

  /// A tree's pieces per channel, at most: NCCL never cuts them below
  /// 32 KiB (src/enqueue.cc, its LL128 halving's floor), where each piece's
  /// flag and fence would cost more than it moves (the model charges
  /// nothing per piece, so it would cut them ever finer).
  static int64_t treePiecesAtMost(const Collective &c, int64_t channels) {
    return std::max<int64_t>(1, c.bytes / (channels * kMinTreePieceBytes));
  }

  /// Where a candidate's chunk search starts: one chunk, but for a tree
  /// NCCL's pieces under LL128 (no fewer pieces stream faster through a
  /// tree's levels; starting there skips the slow few-chunk candidates of
  /// large worlds), as many as the step budget allows.
  int64_t firstChunks(const Collective &c, StringRef algorithm, int64_t channels,
                      std::optional<int64_t> perNode) {
    if (algorithm != "tree")
      return 1;
    int64_t chunks = llvm::bit_floor(uint64_t(std::min(
        treePiecesOf(machine, c.ranks, c.bytes, channels, topo::Protocol::LL128),
        treePiecesAtMost(c, channels))));
    while (chunks > 1 &&
           c.shape.ranks * channels * chunks * stepsPerRank(c, algorithm, perNode) > stepBudget)
      chunks /= 2;
    return chunks;
  }

  /// The pieces NCCL cuts `algorithm`'s share in on `channels` channels
  /// (each protocol's step size), each with the protocols (bits of
  /// kProtocols) it runs them under; none where NCCL has no such algorithm.
  std::map<int64_t, unsigned> ncclPiecesOf(const Collective &c, StringRef algorithm,
                                           int64_t channels, std::optional<int64_t> perNode) {
    // NCCL's NVLS tree (Simple only), as the baseline runs it.
    if (algorithm == "hierarchical_nvls")
      return {{ncclNvlsTreePieces(c.bytes, channels, *perNode), 1u}};
    int64_t part =
        isChain(algorithm) ? c.bytes / channels : c.bytes / (c.shape.ranks * channels);
    std::map<int64_t, unsigned> pieces;
    for (auto [i, kind] : llvm::enumerate(kProtocols)) {
      if (algorithm == "ring" || algorithm == "chain")
        pieces[piecesOf(part, topo::protocolOf(kind))] = ~0u;
      // A tree's pieces run under their own protocol only (others would
      // stream finer pieces than NCCL ever cuts).
      if (algorithm == "tree")
        pieces[std::min(kMaxTreePieces, treePiecesOf(machine, c.ranks, c.bytes, channels,
                                                     topo::protocolOf(kind)))] |= 1u << i;
    }
    return pieces;
  }

  /// Whether the hierarchical all-reduce is built from the reduce-scatter
  /// and all-gather (hierarchicalAllReduceByHalves).
  bool byHalves(const Collective &c, StringRef algorithm, std::optional<int64_t> perNode) {
    return c.kind == ccl::CollectiveKind::AllReduce && perNode &&
           (algorithm == "hierarchical" || algorithm == "hierarchical_direct") &&
           hierarchicalAllReduceByHalves(
               c.shape, *perNode, /*ringBetweenNodes=*/true,
               !nvlinkBetweenAll(machine, ArrayRef<int>(c.ranks).take_front(*perNode)));
  }

  /// Scratch a candidate takes per rank, in bytes.
  int64_t scratchBytes(const Collective &c, StringRef algorithm,
                       std::optional<int64_t> perNode) {
    int64_t n = c.shape.ranks;
    bool allReduce = c.kind == ccl::CollectiveKind::AllReduce;
    if (algorithm == "oneshot" || algorithm == "twoshot" ||
        (algorithm == "direct" && c.kind == ccl::CollectiveKind::Reduce))
      return n * c.bytes;
    if ((algorithm == "direct" || algorithm.starts_with("hierarchical")) &&
        c.kind == ccl::CollectiveKind::ReduceScatter)
      return c.bytes;
    if (c.kind == ccl::CollectiveKind::AllToAll)
      return algorithm == "hierarchical" || c.shape.inPlace ? c.bytes : 0;
    if (algorithm == "binomial" && c.kind == ccl::CollectiveKind::Reduce)
      return (llvm::Log2_64_Ceil(n) + 1) * c.bytes;
    if (allReduce && (algorithm == "recursive_doubling" || algorithm == "halving_doubling"))
      return llvm::Log2_64(n) * c.bytes;
    if (byHalves(c, algorithm, perNode))
      return hierarchicalReduceScatterScratch(n, *perNode) * (c.bytes / n);
    if (allReduce && perNode && algorithm.starts_with("hierarchical"))
      return hierarchicalAllReduceSlots(
                 *perNode, n / *perNode, railsOf(algorithm, n / *perNode),
                 algorithm == "hierarchical_nvls" ? NodeExchange::Switch
                 : algorithm == "hierarchical_sockets" ||
                         !nvlinkBetweenAll(machine, ArrayRef<int>(c.ranks).take_front(*perNode))
                     ? NodeExchange::Ring
                     : NodeExchange::Direct,
                 c.shape.narrowWire()) *
             c.bytes;
    return 0;
  }

  LogicalResult select(Operation *op, const Collective &c) {
    int64_t n = c.shape.ranks;
    // Per algorithm: every power-of-two channel count, and for each, double
    // the chunks while that helps.
    std::vector<Choice> best;
    Bound bound(c, machine);
    double fastest = 1e300; // over every candidate so far
    int64_t maxChannels =
        c.kind == ccl::CollectiveKind::SendRecv ? 1 : 2 * ncclChannels(machine);
    std::optional<int64_t> perNodeOfWorld = ranksPerGroup(machine, c.ranks);
    ArrayRef<StringRef> algorithms = algorithmsFor(c.kind);
    // Those with long chains of steps last: by then the best time so far
    // prunes most of their candidates. Over several nodes the node-aware
    // ones first: few steps per rank, and usually the fastest, so that their
    // time cuts the others' simulations short.
    SmallVector<StringRef> searchOrder(algorithms);
    auto searchKey = [&](StringRef algorithm) {
      return perNodeOfWorld && algorithm.starts_with("hierarchical")
                 ? -1
                 : stepsInARow(c, algorithm);
    };
    llvm::stable_sort(searchOrder, [&](StringRef a, StringRef b) {
      return searchKey(a) < searchKey(b);
    });
    for (StringRef algorithm : searchOrder) {
      if (algorithm == "tree" && n < 3)
        continue; // a tree of two is the ring
      if (n < 2 && algorithm != algorithms.front())
        continue;
      if (!algorithmUnsupported(c, algorithm, &machine).empty())
        continue;
      // The ranks per group of the hierarchical ones.
      std::optional<int64_t> perNode = algorithm == "hierarchical_sockets"
                                           ? socketGroups(machine, c.ranks)->size
                                           : perNodeOfWorld;
      // Over two nodes the trees of nodes are the chain, and the direct
      // exchange along the rails is the ring.
      if ((algorithm == "hierarchical_tree" || algorithm == "hierarchical_direct") &&
          n / *perNode < 3)
        continue;
      int64_t perRank = stepsPerRank(c, algorithm, perNode); // a channel's, a chunk's
      // The direct algorithms (and the others' scratch copies) win on
      // latency, for small buffers and worlds.
      // (All-to-all is n^2 transfers whatever the algorithm; its direct form
      // is NCCL's.)
      bool direct = algorithm == "oneshot" || algorithm == "twoshot" ||
                    (algorithm == "direct" && c.kind != ccl::CollectiveKind::AllToAll);
      if ((direct && n > kDirectMaxRanks) ||
          scratchBytes(c, algorithm, perNode) > std::max(kDirectScratchBytes, 2 * c.bytes))
        continue;
      // Only rings, trees, chains, binomial trees, the hierarchical
      // all-reduce, reduce-scatter and all-gather and point to point
      // pipeline in chunks. The hierarchical pieces pay by overlapping the
      // phases, not as a deep pipeline: the all-reduce's (three phases, a
      // rank's steps in the thousands on many nodes) are searched within
      // half the budget.
      bool hierarchical = algorithm.starts_with("hierarchical") &&
                          c.kind != ccl::CollectiveKind::AllToAll &&
                          c.kind != ccl::CollectiveKind::Broadcast;
      // The hierarchical broadcasts pipeline like a chain (of nodes, or trees of them).
      bool nodeChain =
          algorithm.starts_with("hierarchical") && c.kind == ccl::CollectiveKind::Broadcast;
      // The relay all-to-all and all-gather forward in rounds.
      bool relayRounds = algorithm == "relay" && c.kind != ccl::CollectiveKind::ReduceScatter;
      bool pipelined = isRing(algorithm) || algorithm == "tree" ||
                       isChain(algorithm) || algorithm == "binomial" || hierarchical ||
                       algorithm == "nvls" || relayRounds || nodeChain ||
                       c.kind == ccl::CollectiveKind::SendRecv;
      // The switch's steps run under Simple only (kProtocols[0]).
      bool inSwitch = algorithm == "nvls" || algorithm == "hierarchical_nvls";
      unsigned protocols = inSwitch ? 1u : ~0u;
      int64_t maxChunks = pipelined ? 4096 : 1;
      int64_t budget = hierarchical && c.kind == ccl::CollectiveKind::AllReduce
                           ? stepBudget / 2
                           : int64_t(stepBudget);
      // The hierarchical reduce-scatter and all-gather, and the all-reduce
      // built from them, take many small steps (a node's exchange block by
      // block) that fold well: the simulation walks one node's ranks and
      // one channel of each of a few kinds (six at most). The hierarchical
      // broadcast's pipeline over the nodes needs many pieces to fill
      // (a100x8 x4 256 MiB: 0.91 of the bound in 64 pieces, 0.88 in 32).
      if ((hierarchical && (c.kind != ccl::CollectiveKind::AllReduce ||
                            byHalves(c, algorithm, perNode))) ||
          nodeChain)
        budget = 2 * stepBudget;
      std::optional<Choice> bestHere;
      std::set<std::pair<int64_t, int64_t>> tried; // channels, chunks
      bool perRankTasks = algorithm == "tree" || algorithm == "binomial" || nodeChain;
      // The hierarchical ones' pieces overlap NVLink with the network when
      // enough channels are in each phase: up to twice as many channels,
      // and 64 where NCCL runs few (v100x8 24, PCIe 2: v100x8 x2 4 GiB
      // all-gather 0.80 -> 0.84 of the bound on 64, pcie4x8 x2 2 GiB
      // reduce-scatter 0.89 -> 0.91).
      // The relay's transfers each want a channel of their own (v100x8:
      // 38 with each block in thirds), and so do the direct all-to-all's, up
      // to 16 peers (NCCL spreads its peer-to-peer sends over channels too:
      // pcie4x8 1 KiB on 8 channels 8.0 us, where NCCL's 2 take 10.9).
      bool directAllToAll = algorithm == "direct" && c.kind == ccl::CollectiveKind::AllToAll;
      int64_t mostChannels =
          hierarchical || relayRounds || nodeChain ? std::max<int64_t>(2 * maxChannels, 64)
          : directAllToAll ? std::max<int64_t>(maxChannels, std::min<int64_t>(n, 16))
                           : maxChannels;
      // In one piece the hierarchical reduce-scatter and all-gather exchange
      // directly inside a node whose GPUs are joined by PCIe, in more round a
      // ring over them (NodeRing::InPieces): a different schedule, so more
      // pieces may win where one lost.
      bool nodeRingAfterOnePiece =
          hierarchical && c.kind != ccl::CollectiveKind::AllReduce && perNode &&
          nodeRingOf(machine, ArrayRef<int>(c.ranks).take_front(*perNode)) ==
              NodeRing::InPieces;
      for (int64_t channels : channelCounts(mostChannels)) {
        if (perRankTasks && n * channels > kTaskBudget && channels != ncclChannels(machine))
          continue;
        // The model charges a channel's multimem loads like any flow, but an
        // SM keeps too few of them in flight for that (NCCL runs NVLS on 16
        // or more): fewer channels than NCCL's would win only in the model.
        if (inSwitch && channels < ncclChannels(machine))
          continue;
        std::optional<Choice> bestChunks;
        int64_t most = algorithm == "tree"
                           ? std::min(treePiecesAtMost(c, channels), maxChunks)
                           : maxChunks;
        for (int64_t chunks = firstChunks(c, algorithm, channels, perNode); chunks <= most;
             chunks *= 2) {
          // Simulation time grows with the steps; beyond a budget only the
          // smallest candidate runs (large worlds keep compile time sane).
          int64_t steps = n * channels * chunks * perRank;
          if (steps > (chunks > 1 ? budget : stepBudget) && (bestChunks || bestHere))
            break;
          // The chunks double while that gets faster, so a pipeline's first
          // candidate runs to the end, even when slower than the best so far
          // (more chunks may win), unless it is the last the search tries;
          // the hierarchical ones' to three times the best (their pieces
          // overlap three phases at most); the next ones only while they
          // beat it; other candidates only while they beat the best so far.
          tried.insert({channels, chunks});
          bool doubles = chunks * 2 <= most && steps * 2 <= budget;
          double giveUpAfter = bestChunks            ? bestChunks->timeUs
                               : pipelined && doubles ? (hierarchical ? 3 * fastest : 1e300)
                                                      : fastest;
          std::string protocol;
          int64_t before = simulated;
          double us = timeOf(c, bound, fastest, giveUpAfter, algorithm,
                             channels, chunks, steps, protocol, protocols);
          if (us >= 1e300 || (bestChunks && us >= bestChunks->timeUs)) {
            if (chunks == 1 && nodeRingAfterOnePiece)
              continue;
            break;
          }
          // Behind the best so far, twice the pieces that gain under 1% end
          // the doubling (as in the refinement below): each costs twice the
          // simulation, and the gains shrink (pcie4x8 x16 256 MiB broadcast:
          // the hierarchical ones crept 0.1% a doubling at 4x the chain's
          // time; x2: 70 -> 28 s for four sizes).
          bool gainsLittle =
              bestChunks && us > 0.99 * bestChunks->timeUs && us > fastest;
          fastest = std::min(fastest, us);
          bestChunks = Choice{algorithm.str(), channels, chunks, us, protocol,
                              simulated - before};
          if (gainsLittle)
            break;
        }
        // Every channel count is tried: rings per channel can differ (NIC
        // rails, NVLink-disjoint rings), so time is not unimodal in them.
        if (bestChunks && (!bestHere || bestChunks->timeUs < bestHere->timeUs))
          bestHere = bestChunks;
      }
      // A chain's pipeline over many ranks fills only in more pieces than
      // the step budget lets the search reach (v100x8 x16 1 GiB: 512 pieces
      // 0.87 of the bound, 2048 0.95), and then more channels may win
      // (h100x8 x16 1 GiB: 8 x 256 at the budget, 16 x 2048 0.79 beyond
      // it); so does the broadcast over the nodes' rails (a100x8 x16
      // 256 MiB: 16 x 256 pieces, 0.79, beyond the budget's 16 x 32,
      // 0.74). Where the budget cut it short the search goes on from its
      // best, doubling the pieces or the channels, whichever is faster,
      // while that gets faster by 1%, up to 16 budgets (what simulating NCCL's
      // own choice may cost), and while a level (two candidates of twice the
      // steps) would take no more than kRefineWork. The hierarchical
      // all-reduce, reduce-scatter and all-gather go one level past their
      // budget: their phases overlap best on many channels and pieces
      // (a100x8 x4 1 GiB all-reduce: 32 x 8 within the budget, 0.89 of the
      // bound; hierarchical 64 x 8, 0.90; hierarchical_direct 32 x 16,
      // 0.92), but the levels beyond gain under 1% for 10 s
      // of simulation each (a100x8 x16: steps by the million), and below
      // 64 MiB their pieces are too small to gain (a100x8 x8 4 MiB: 0.8 s
      // more to compile for the same schedule).
      int64_t refineSteps = hierarchical ? 2 * budget : 16 * stepBudget;
      bool refine = isChain(algorithm) || nodeChain ||
                    (hierarchical && c.bytes >= kRefineHierarchicalBytes);
      while (refine && bestHere &&
             4 * bestHere->settleWork <= kRefineWork) {
        std::optional<Choice> next;
        for (auto [channels, chunks] : {std::pair{bestHere->channels, 2 * bestHere->chunks},
                                        std::pair{2 * bestHere->channels, bestHere->chunks}}) {
          int64_t steps = n * channels * chunks * perRank;
          if (chunks > maxChunks || channels > mostChannels || steps > refineSteps ||
              !tried.insert({channels, chunks}).second)
            continue;
          std::string protocol;
          int64_t before = simulated;
          double toBeat = next ? next->timeUs : bestHere->timeUs;
          // Twice the channels may cost far more than twice the work
          // (pcie4x8 x16: a chain on 4 channels settles 36x what one on 2
          // does): a candidate gives up at half a level's work.
          double us = timeOf(c, bound, fastest, toBeat, algorithm, channels, chunks, steps,
                             protocol, protocols, kRefineWork / 2);
          if (us < toBeat)
            next = Choice{algorithm.str(), channels, chunks, us, protocol, simulated - before};
        }
        if (!next)
          break;
        // A level that gains under 1% ends the search (pcie4x8 x16 1 GiB: the
        // rail broadcast crept 0.04% a level, 50 s in all, 4.5x the chain).
        bool goOn = next->timeUs < 0.99 * bestHere->timeUs;
        fastest = std::min(fastest, next->timeUs);
        bestHere = next;
        if (!goOn)
          break;
      }
      // NCCL's own channels and pieces (each protocol's step size) for its
      // rings, chains, trees and NVLS trees, where the search did not try
      // them (the step budget cut it short, or they are no power of two; up
      // to 16 budgets: as much as simulating NCCL's choice for the report
      // costs); for the ring also on twice NCCL's channels, the search's
      // most, which over many ranks the budget stops it short of (h100x8
      // x16 1 GiB all-reduce: 32 channels 0.895 of the bound, 16 0.855).
      SmallVector<int64_t, 2> ncclCounts = {ncclChannels(machine)};
      if (algorithm == "ring")
        ncclCounts.push_back(2 * ncclChannels(machine));
      for (int64_t channels : ncclCounts)
        for (auto [chunks, protocols] : ncclPiecesOf(c, algorithm, channels, perNode)) {
          int64_t steps = n * channels * chunks * perRank;
          // Fewer pieces than the search's first do not stream faster
          // through a tree (firstChunks).
          if (algorithm == "tree" && chunks < firstChunks(c, algorithm, channels, perNode))
            continue;
          if (steps > 16 * stepBudget || tried.count({channels, chunks}))
            continue;
          std::string protocol;
          double us = timeOf(c, bound, fastest, fastest, algorithm, channels, chunks, steps,
                             protocol, protocols);
          if (us < 1e300 && (!bestHere || us < bestHere->timeUs)) {
            fastest = std::min(fastest, us);
            bestHere = Choice{algorithm.str(), channels, chunks, us, protocol};
          }
        }
      if (bestHere)
        best.push_back(*bestHere);
    }
    if (std::optional<Choice> both = besideTheRing(c, bound, best, fastest))
      best.push_back(*both);
    if (best.empty())
      return op->emitError("no algorithm can run this collective on the machine");
    // Ties, to the nanosecond (two schedules that keep the same links busy
    // end a rounding apart), go to the catalogue's order.
    auto key = [&](const Choice &choice) {
      return std::make_pair(std::round(choice.timeUs * 1e3),
                            llvm::find(algorithms, choice.algorithm) - algorithms.begin());
    };
    llvm::stable_sort(best, [&](const Choice &a, const Choice &b) { return key(a) < key(b); });
    Builder b(&getContext());
    op->setAttr("algorithm", b.getStringAttr(best[0].algorithm));
    op->setAttr("channels", b.getI64IntegerAttr(best[0].channels));
    op->setAttr("chunks", b.getI64IntegerAttr(best[0].chunks));
    op->setAttr("protocol", b.getStringAttr(best[0].protocol));
    op->setAttr("predicted_us", b.getF64FloatAttr(best[0].timeUs));
    if (best[0].beside)
      op->setAttr("beside", besideAttr(b.getContext(), *best[0].beside));
    if (best.size() > 1) {
      op->setAttr("runner_up", b.getStringAttr(best[1].algorithm));
      op->setAttr("runner_up_us", b.getF64FloatAttr(best[1].timeUs));
    }
    return success();
  }

  /// A large reduce-scatter or all-gather over 2 to 4 nodes as the ring
  /// and the best hierarchical algorithm side by side (buildOnBlockShares):
  /// the ring loads the NICs with twice the hierarchical one's bytes, the
  /// hierarchical one NVLink with more than the ring's, so where neither
  /// ratio is the machine's, a share of each loads both (h100x8 x2 256 MiB
  /// reduce-scatter: ring 696 us, 0.87 of the bound; ring on 4/5 of every
  /// block and hierarchical on 1/5 669 us, 0.90). The ring as it was chosen
  /// (else on twice NCCL's channels), the other on 16 or 32 channels in 8 or
  /// 16 pieces with a fifth or a third of every block (a100x8 x2, whose
  /// NICs are slower beside NVLink, would want about a half, but gains
  /// under 3% there for twice the compile time); Simple only (the buffers
  /// are large). The fastest, if it beats `fastest`.
  std::optional<Choice> besideTheRing(const Collective &c, const Bound &bound,
                                      ArrayRef<Choice> best, double &fastest) {
    std::optional<int64_t> perNode = ranksPerGroup(machine, c.ranks);
    if ((c.kind != ccl::CollectiveKind::ReduceScatter &&
         c.kind != ccl::CollectiveKind::AllGather) ||
        !perNode || *perNode == c.shape.ranks || c.shape.ranks > kBesideMaxNodes * *perNode ||
        c.bytes < kRefineHierarchicalBytes)
      return std::nullopt;
    auto ring = llvm::find_if(best, [](const Choice &x) { return x.algorithm == "ring"; });
    auto other = llvm::find_if(best, [](const Choice &x) {
      return x.algorithm == "hierarchical" || x.algorithm == "hierarchical_direct";
    });
    if (other == best.end())
      return std::nullopt;
    int64_t ringChannels = ring != best.end() ? ring->channels : 2 * ncclChannels(machine);
    int64_t ringChunks = ring != best.end() ? ring->chunks : 1;
    // The fastest side by side so far, if faster than any other (each
    // candidate gives up past it).
    std::optional<Choice> mix;
    for (int64_t ringWeight : {4, 2})
      for (int64_t channels : {16, 32})
        for (int64_t chunks : {8, 16}) {
          Beside beside{other->algorithm, channels, chunks, ringWeight, 1};
          std::string protocol;
          int64_t before = simulated;
          double giveUpAfter = mix ? mix->timeUs : fastest;
          // Under Simple there is no mailbox to size: no steps to count.
          double us = timeOf(c, bound, giveUpAfter, giveUpAfter, "ring", ringChannels,
                             ringChunks, /*steps=*/0, protocol, /*protocols=*/1u, INT64_MAX,
                             beside);
          if (us < giveUpAfter)
            mix = Choice{"ring", ringChannels, ringChunks, us, protocol, simulated - before,
                         beside};
        }
    if (mix)
      fastest = mix->timeUs;
    return mix;
  }

  /// Whether the rings among `c`'s ranks stay on NVLink inside a node
  /// (remembered per rank set).
  bool ringsOnNvlink(const Collective &c) {
    auto [it, fresh] = nvlinkRings.try_emplace(c.ranks);
    if (fresh)
      it->second = ringsStayOnNvlink(machine, c.ranks);
    return it->second;
  }

  topo::Machine machine;
  int64_t simulated = 0; // flow rates settled by every simulation so far
  bool ll128 = false; // whether the machine's GPUs may use LL128 everywhere
  std::map<std::vector<int>, bool> nvlinkRings;
};

} // namespace
