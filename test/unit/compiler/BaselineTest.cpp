//===- BaselineTest.cpp - NCCL baselines and bounds of every collective ---===//
//
// The NCCL baseline of each collective (rings for reduce_scatter and
// all_gather, the ring chain for broadcast and reduce, grouped p2p for
// all_to_all and send/recv, the one-element all-reduce for a barrier), the
// direct all-to-all it is built from, channel folding of per-rank chains,
// and the lower bounds' cuts inside a node.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "dialect/Sched/ChannelClasses.h"
#include "passes/Algorithms.h"
#include "passes/NcclBaseline.h"
#include "topology/Bounds.h"
#include "topology/Machine.h"
#include "topology/Rings.h"
#include "topology/Simulator.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace mlir;
using namespace ccopt;
using namespace ccopt::topo;
using K = ccl::CollectiveKind;

namespace {

constexpr int64_t KiB = 1 << 10, MiB = 1 << 20, GiB = int64_t(1) << 30;

topo::Machine preset(llvm::StringRef name, int nodes = 1) {
  auto machine = lookupPreset(name, nodes);
  EXPECT_TRUE(machine.has_value()) << name.str();
  return machine ? std::move(*machine) : topo::Machine();
}

std::vector<int> firstRanks(int n) {
  std::vector<int> ranks(n);
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

class Baseline : public ::testing::Test {
protected:
  Baseline() {
    ccopt::test::loadDialects(context);
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// A shape of `bytes` f32 bytes among n ranks as the builders count it
  /// (a rank's block for reduce_scatter and all_gather).
  AllReduceShape shapeOf(K kind, int n, int64_t bytes) {
    int64_t count = bytes / 4;
    if (kind == K::ReduceScatter || kind == K::AllGather)
      count /= n;
    return {n, count, Float32Type::get(&context), ccl::ReductionKind::Sum, false, {}};
  }

  BaselineResult baseline(K kind, const topo::Machine &m, int n, int64_t bytes,
                          std::vector<int> ranks = {}) {
    if (ranks.empty())
      ranks = firstRanks(n);
    auto result = ncclBaseline(&context, kind, shapeOf(kind, n, bytes), ranks, m);
    EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
    return result ? *result : BaselineResult{};
  }

  double simulateUs(sched::ProgramOp program, const topo::Machine &m,
                    SimOptions options = {}) {
    auto result = simulate(program, m, options);
    EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
    return result ? result->timeUs : 0;
  }

  LogicalResult verify() {
    PassManager pm(&context);
    pm.addPass(createSchedVerify());
    return pm.run(*module);
  }

  OpBuilder builder() {
    OpBuilder b(&context);
    b.setInsertionPointToEnd(module->getBody());
    return b;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(Baseline, EachCollectiveGetsNcclsAlgorithm) {
  topo::Machine m = preset("a100x8");
  struct Case {
    K kind;
    const char *algorithm;
  } cases[] = {{K::ReduceScatter, "ring"}, {K::AllGather, "ring"},
               {K::Broadcast, "chain"},    {K::Reduce, "chain"},
               {K::AllToAll, "direct"},    {K::SendRecv, "direct"}};
  for (auto [kind, algorithm] : cases)
    for (int64_t bytes : {64 * KiB, 64 * MiB}) {
      int n = kind == K::SendRecv ? 2 : 8;
      BaselineResult r = baseline(kind, m, n, bytes);
      EXPECT_EQ(r.algorithm, algorithm) << ccl::stringifyCollectiveKind(kind).str();
      EXPECT_GE(r.timeUs, lowerBoundUs(kind, firstRanks(n), bytes, m))
          << ccl::stringifyCollectiveKind(kind).str() << " " << bytes;
    }
  // Rings and chains run on NCCL's 16 channels of an NVSwitch machine.
  EXPECT_EQ(baseline(K::AllGather, m, 8, 64 * MiB).channels, 16);
  EXPECT_EQ(baseline(K::Broadcast, m, 8, 64 * MiB).channels, 16);
  // A barrier is the one-element all-reduce: a few microseconds of latency.
  BaselineResult barrier = baseline(K::Barrier, m, 8, 0);
  EXPECT_GT(barrier.timeUs, 1);
  EXPECT_LT(barrier.timeUs, 50);
}

TEST_F(Baseline, ProtocolFollowsTheSize) {
  // As NCCL's tuning picks: LL for small messages (latency), Simple for
  // large ones (bandwidth); LL128 may win in between.
  topo::Machine m = preset("a100x8");
  for (K kind : {K::ReduceScatter, K::AllGather, K::Broadcast, K::AllToAll}) {
    std::string name = ccl::stringifyCollectiveKind(kind).str();
    EXPECT_EQ(baseline(kind, m, 8, 8 * KiB).protocol, Protocol::LL) << name;
    EXPECT_EQ(baseline(kind, m, 8, GiB).protocol, Protocol::Simple) << name;
  }
}

TEST(BaselinePieces, TreesHalveLL128PiecesToPipelineDeepTrees) {
  // NCCL's tree pieces are its step size, under LL128 halved (down to
  // 128 KiB, then 32 KiB) while the tree's depth lacks pieces to pipeline:
  // 1024 ranks (128 nodes), 4 MiB on 16 channels: 32 KiB pieces, 8 per
  // channel; one node keeps the 256 KiB step. Simple and LL keep theirs.
  topo::Machine big = preset("a100x8", 128), one = preset("a100x8");
  EXPECT_EQ(treePiecesOf(big, firstRanks(1024), 4 * MiB, 16, Protocol::LL128), 8);
  EXPECT_EQ(treePiecesOf(big, firstRanks(1024), 4 * MiB, 16, Protocol::Simple), 1);
  EXPECT_EQ(treePiecesOf(big, firstRanks(1024), 4 * MiB, 16, Protocol::LL), 16);
  EXPECT_EQ(treePiecesOf(one, firstRanks(8), 64 * MiB, 16, Protocol::LL128), 16);
  // A large buffer has loops enough at the full step.
  EXPECT_EQ(treePiecesOf(big, firstRanks(1024), GiB, 16, Protocol::LL128), 256);
}

TEST_F(Baseline, SkippingHopelessProtocolsChangesNothing) {
  // The baseline does not simulate a protocol whose bound cannot beat the
  // best time so far; simulating all three must pick the same time.
  topo::Machine m = preset("v100x8");
  for (int64_t bytes : {4 * KiB, 256 * KiB, 16 * MiB, 256 * MiB}) {
    BaselineResult chosen = baseline(K::AllGather, m, 8, bytes);
    double best = 1e300;
    for (Protocol protocol : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      OpBuilder b = builder();
      int64_t piece = protocol == Protocol::LL ? 16 * KiB
                      : protocol == Protocol::LL128 ? 256 * KiB
                                                    : 512 * KiB;
      int64_t channels = ncclChannels(m);
      int64_t chunks = std::max<int64_t>(1, (bytes / 8 / channels + piece - 1) / piece);
      auto ring = buildRingAllGather(
          b, b.getUnknownLoc(), "ring", shapeOf(K::AllGather, 8, bytes), chunks, channels,
          toScheduleRanks(ringOrders(m, firstRanks(8), channels), firstRanks(8)));
      best = std::min(best, simulateUs(ring, m, {protocol, AlgorithmFamily::Ring}));
      ring->erase();
    }
    EXPECT_DOUBLE_EQ(chosen.timeUs, best) << bytes;
  }
}

TEST_F(Baseline, DirectAllToAllVerifies) {
  OpBuilder b = builder();
  int index = 0;
  for (int64_t n : {1, 2, 3, 5, 8})
    for (int64_t channels : {1, 2, 3, 16})
      for (int64_t count : {n, 7 * n}) {
        AllReduceShape shape{n, count, b.getF32Type(), ccl::ReductionKind::Sum,
                             false, {}};
        auto program = buildDirectAllToAll(b, b.getUnknownLoc(),
                                           "a2a" + std::to_string(index++), shape,
                                           channels);
        int64_t peers = std::max<int64_t>(1, n - 1);
        int64_t split = std::min(channels / peers, count / n);
        EXPECT_EQ(program.getChannels(),
                  split > 1 ? split * peers : std::min(channels, peers));
      }
  EXPECT_TRUE(succeeded(verify()));
}

TEST_F(Baseline, DirectAllToAllRunsPeersAtOnce) {
  // On an NVSwitch every pair has its own path: sending to every peer at
  // once comes within 2x of the GPU's cut (0.63 of it simulated), where
  // pairwise exchange (one peer at a time, one channel) is capped by one
  // channel's copy rate.
  topo::Machine m = preset("a100x8");
  OpBuilder b = builder();
  AllReduceShape shape{8, 64 * MiB, b.getF32Type(), ccl::ReductionKind::Sum, false, {}};
  double direct = simulateUs(buildDirectAllToAll(b, b.getUnknownLoc(), "direct", shape, 16), m);
  double pairwise = simulateUs(buildPairwiseAllToAll(b, b.getUnknownLoc(), "pairwise", shape), m);
  double bound = lowerBoundUs(K::AllToAll, firstRanks(8), 256 * MiB, m);
  EXPECT_LT(direct, pairwise / 4);
  EXPECT_GE(direct, bound);
  EXPECT_LT(direct, 2 * bound);
  // Each peer on two channels, as NCCL gives a peer several when it has
  // more channels than peers.
  auto program = buildDirectAllToAll(b, b.getUnknownLoc(), "direct2", shape, 16);
  EXPECT_EQ(program.getChannels(), 14);
}

TEST_F(Baseline, NvlsAllReduceBoundIsTheBufferOverTheSwitchLinks) {
  // Through a reducing switch every rank still sends its data once and
  // receives the result once, over its NVLinks alone (h100x8: 18 x 20.6
  // GB/s): NVLS comes within 1.25x of that, and nothing beats it.
  topo::Machine m = preset("h100x8");
  OpBuilder b = builder();
  AllReduceShape shape{8, 256 * MiB, b.getF32Type(), ccl::ReductionKind::Sum, false, {}};
  double bound = lowerBoundUs(K::AllReduce, firstRanks(8), 1024 * MiB, m);
  EXPECT_NEAR(bound, 1024.0 * MiB / (18 * 20.6 * 1e3), 5);
  double nvls = simulateUs(buildNvlsAllReduce(b, b.getUnknownLoc(), "nvls", shape, 16, 16), m);
  EXPECT_GE(nvls, bound);
  EXPECT_LT(nvls, 1.25 * bound);
  // Two ranks: a ring over NVLink and PCIe (each half of the buffer out and
  // in) bounds lower than the switch.
  EXPECT_LT(lowerBoundUs(K::AllReduce, firstRanks(2), 1024 * MiB, m),
            1024.0 * MiB / (18 * 20.6 * 1e3));
}

TEST_F(Baseline, NvlsTreeAcrossNodesOfReducingSwitches) {
  // On several h100x8 nodes NCCL reduces inside each node in the switch and
  // exchanges between nodes (NVLS tree): it beats the ring at 1 GiB over two
  // nodes; a100x8 has no NVLS. Nothing beats the bound with the switches.
  for (auto [name, nodes, algorithm] :
       {std::tuple{"h100x8", 2, "hierarchical_nvls"}, {"a100x8", 2, "ring"}}) {
    topo::Machine m = preset(name, nodes);
    BaselineResult r = baseline(K::AllReduce, m, 8 * nodes, GiB);
    EXPECT_EQ(r.algorithm, algorithm) << name;
    EXPECT_GE(r.timeUs, lowerBoundUs(K::AllReduce, firstRanks(8 * nodes), GiB, m)) << name;
    if (r.algorithm == "hierarchical_nvls") {
      EXPECT_EQ(r.channels, ncclChannels(m));
      EXPECT_EQ(r.chunks, ncclNvlsTreePieces(GiB, r.channels, 8));
    }
  }
}

TEST_F(Baseline, PerRankChainsFoldTheirChannels) {
  // A chain gives every rank its own task; its channels are alike, so the
  // simulator runs one and counts it once per channel: same time.
  topo::Machine m = preset("v100x8", 2);
  OpBuilder b = builder();
  AllReduceShape shape{16, 4 * MiB, b.getF32Type(), ccl::ReductionKind::Sum, false, {}};
  for (bool reduce : {false, true}) {
    auto chain = buildChainBroadcast(b, b.getUnknownLoc(), reduce ? "reduce" : "bcast",
                                     shape, /*root=*/3, reduce, /*chunks=*/4,
                                     /*channels=*/8);
    EXPECT_EQ(sched::channelClasses(chain).size(), 1u);
    SimOptions folded, unfolded;
    unfolded.foldSymmetricChannels = false;
    // (Channels' pieces differ by at most an element.)
    double once = simulateUs(chain, m, folded), all = simulateUs(chain, m, unfolded);
    EXPECT_NEAR(once, all, 1e-6 * all);
  }
}

TEST(Bounds, PcieSocketCut) {
  // pcie4x8: GPUs 0-3 and 4-7 hang off two sockets joined by UPI, 10 GB/s
  // per direction (Presets.cpp). Half of an all-gather's data must cross
  // it each way (S/2 over 10 GB/s), more than a GPU's own PCIe Gen4 x16
  // link needs (7/8 S over 24 GB/s); an all-reduce needs all of S each way.
  // Latency: one PCI LL hop (1.0 us, NCCL tuning.cc).
  topo::Machine m = preset("pcie4x8");
  std::vector<int> ranks = firstRanks(8);
  EXPECT_NEAR(lowerBoundUs(K::AllGather, ranks, GiB, m), 1.0 + 0.5 * GiB / 10e3, 1e-6);
  EXPECT_NEAR(lowerBoundUs(K::ReduceScatter, ranks, GiB, m), 1.0 + 0.5 * GiB / 10e3, 1e-6);
  EXPECT_NEAR(lowerBoundUs(K::AllReduce, ranks, GiB, m), 1.0 + double(GiB) / 10e3, 1e-6);
  EXPECT_NEAR(lowerBoundUs(K::Broadcast, ranks, GiB, m), 1.0 + double(GiB) / 10e3, 1e-6);
  // All-to-all: 4 x 4 / 8 of S crosses each way.
  EXPECT_NEAR(lowerBoundUs(K::AllToAll, ranks, GiB, m), 1.0 + 2.0 * GiB / 10e3, 1e-6);
  // Within one socket only the GPUs' own links count.
  EXPECT_NEAR(lowerBoundUs(K::AllGather, firstRanks(4), GiB, m),
              1.0 + 3.0 / 4 * GiB / 24e3, 1e-6);
}

TEST(Bounds, PcieSocketOfEveryNode) {
  // Several pcie4x8 nodes: rails join NICs of one socket, so what goes from
  // one socket of every node to the other crosses the nodes' socket links,
  // 10 GB/s each way each. (Slopes: the latency cancels.)
  auto slope = [](K kind, int nodes) {
    topo::Machine m = preset("pcie4x8", nodes);
    std::vector<int> ranks = firstRanks(8 * nodes);
    return lowerBoundUs(kind, ranks, 2 * GiB, m) - lowerBoundUs(kind, ranks, GiB, m);
  };
  // All-to-all: half of every rank's data, 8M ranks x S/2, over M links.
  for (int nodes : {2, 4})
    EXPECT_NEAR(slope(K::AllToAll, nodes), double(GiB) / 5e3, 1e-3) << nodes;
  // Broadcast: the whole buffer over two links; over four a GPU's PCIe
  // link (24 GB/s) is the narrower.
  EXPECT_NEAR(slope(K::Broadcast, 2), double(GiB) / 20e3, 1e-3);
  EXPECT_NEAR(slope(K::Broadcast, 4), double(GiB) / 24e3, 1e-3);
}

TEST(Bounds, NvSwitchCutsAreTheGpus) {
  // On an NVSwitch no cut inside the node is narrower than a GPU's: its
  // NVLinks and its share of the host path (Bounds.A100GpuCut).
  topo::Machine m = preset("a100x8");
  double B = 252e3;
  std::vector<int> ranks = firstRanks(8);
  EXPECT_NEAR(lowerBoundUs(K::AllGather, ranks, GiB, m), 0.6 + 7.0 / 8 * GiB / B, 1e-6);
  EXPECT_NEAR(lowerBoundUs(K::AllToAll, ranks, GiB, m), 0.6 + 7.0 / 8 * GiB / B, 1e-6);
  // A pair across the sockets: NVLink 240 plus a PCIe path through the
  // sockets' xGMI link, 16 GB/s: the cut between the two is 256 GB/s.
  EXPECT_NEAR(lowerBoundUs(K::SendRecv, {0, 5}, GiB, m), 0.6 + double(GiB) / 256e3, 1e-6);
  // One rank sends: it has its whole PCIe link to the host beside NVLink.
  EXPECT_NEAR(lowerBoundUs(K::SendRecv, {0, 1}, GiB, m), 0.6 + double(GiB) / 264e3, 1e-6);
}

TEST_F(Baseline, NothingBeatsTheBoundOnAnyPreset) {
  // NCCL's baseline of every collective, on every preset on 1 and 2 nodes,
  // at a latency-bound and a bandwidth-bound size.
  for (const std::string &name : presetNames())
    for (int nodes : {1, 2}) {
      topo::Machine m = preset(name, nodes);
      int n = 8 * nodes;
      for (K kind : {K::AllReduce, K::ReduceScatter, K::AllGather, K::Broadcast,
                     K::Reduce, K::AllToAll})
        for (int64_t bytes : {64 * KiB, 256 * MiB}) {
          BaselineResult r = baseline(kind, m, n, bytes);
          EXPECT_GE(r.timeUs, lowerBoundUs(kind, firstRanks(n), bytes, m))
              << name << " x" << nodes << " " << ccl::stringifyCollectiveKind(kind).str()
              << " " << bytes;
        }
    }
}

} // namespace
