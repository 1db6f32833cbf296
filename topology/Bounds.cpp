//===- Bounds.cpp - what no schedule can beat -----------------------------===//

#include "topology/Bounds.h"

#include "topology/Protocol.h"

#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace ccopt::topo;
using mlir::ccl::CollectiveKind;

double ccopt::topo::busBandwidthFactor(CollectiveKind kind, int n) {
  // nccl-tests doc/PERFORMANCE.md.
  switch (kind) {
  case CollectiveKind::AllReduce:
    return 2.0 * (n - 1) / n;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
  case CollectiveKind::AllToAll:
    return static_cast<double>(n - 1) / n;
  default:
    return 1.0;
  }
}

double ccopt::topo::lowerBoundUs(CollectiveKind kind, llvm::ArrayRef<int> ranks,
                                 int64_t bytes, const Machine &machine) {
  int n = ranks.size();
  if (n <= 1)
    return 0;
  // The data share a rank must send (or receive) through its own links, as
  // a fraction of `bytes`.
  double share = busBandwidthFactor(kind, n);
  double gpuBandwidth = 1e300;
  llvm::SmallDenseSet<int> nodes;
  for (int r : ranks) {
    gpuBandwidth = std::min(gpuBandwidth, machine.injectionBandwidth(r));
    nodes.insert(machine.nodeOf(r));
  }
  // A switch that reduces (NVLS) halves what an all-reduce must move per
  // GPU: each sends its data once and receives the result once.
  if (kind == CollectiveKind::AllReduce && machine.nvls && nodes.size() == 1)
    share = static_cast<double>(n - 1) / n;
  double transferUs = share * bytes / (gpuBandwidth * 1e3); // GB/s = 1e3 B/µs
  // Several nodes: a node's NICs carry what leaves it. For the reductions
  // and gathers that is the same share of the node-level data (one buffer
  // per node after reducing inside it); all-to-all sends everything that
  // goes to other nodes.
  int numNodes = nodes.size();
  if (numNodes > 1) {
    double nic = 1e300;
    for (int node : nodes)
      nic = std::min(nic, machine.nodeNetworkBandwidth(node));
    double perNode = static_cast<double>(n) / numNodes;
    double nodeShare = busBandwidthFactor(kind, numNodes);
    double nodeBytes = kind == CollectiveKind::AllToAll ? bytes * perNode : bytes;
    transferUs = std::max(transferUs, nodeShare * nodeBytes / (nic * 1e3));
  }
  // Latency: a message needs at least the lowest per-hop latency of the
  // machine's links, and information doubles at most per round.
  LinkKind worst = numNodes > 1 ? LinkKind::Net : LinkKind::NvLink;
  if (numNodes == 1)
    for (int r : ranks)
      worst = std::max(worst, machine.routeKind(ranks[0], r));
  double alpha = hopLatencyUs(AlgorithmFamily::Ring, Protocol::LL, worst);
  return std::ceil(std::log2(n)) * alpha + transferUs;
}
