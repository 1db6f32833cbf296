//===- Rings.h - ring orders that follow the machine's links ------*- C++ -*-===//
//
// A ring is only as fast as its slowest hop. On NVSwitch any order is as
// good as another; on a cube-mesh (v100x8) or a PCIe tree the order decides
// whether every hop has an NVLink or some cross a CPU socket. Like NCCL's
// ring search, this finds the order whose slowest hop is fastest.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_RINGS_H
#define CCOPT_TOPOLOGY_RINGS_H

#include "topology/Machine.h"

namespace ccopt::topo {

/// A cyclic order of `ranks` (world ranks) maximizing the slowest hop's
/// bandwidth: exhaustive within a node of up to 10 GPUs, nodes chained in
/// order. Returns the ranks in ring order.
std::vector<int> bestRingOrder(const Machine &machine, llvm::ArrayRef<int> ranks);

/// How a ring over several nodes goes through each node.
enum class NodeCrossing {
  /// In and out through one NIC rail, rotated per channel (what NCCL's
  /// ring search prefers: NCCL_CROSS_NIC).
  SameRail,
  /// On nodes whose GPUs have no NVLink between them (a PCIe machine), in
  /// through one NIC and out through another, the two and the path
  /// between them chosen channel by channel so that the channels together
  /// load the busiest link least: the node's hops share PCIe switch
  /// uplinks and the sockets' link, which a ring entering and leaving
  /// through one rail crosses both ways on every channel. Elsewhere (and on
  /// an odd number of nodes) as SameRail.
  LeastLoaded,
  /// On three or more such nodes whose GPUs split into two sockets (see
  /// socketRingsApply): through one socket of every node, across the
  /// sockets' link at the last, back through the other socket of every
  /// node and across at the first, so that a ring crosses the sockets'
  /// links twice whatever the nodes (each channel starting at another
  /// node), at the price of two network hops per node instead of one.
  /// Entry and exit GPUs chosen as for LeastLoaded; elsewhere as SameRail.
  BySocket,
};

/// Whether NodeCrossing::BySocket applies to `ranks`.
bool socketRingsApply(const Machine &machine, llvm::ArrayRef<int> ranks);

/// Up to `count` ring orders of `ranks` for as many channels, the way NCCL
/// spreads its channels: on a node whose GPUs are joined by direct NVLinks
/// (v100x8), Hamiltonian cycles that together use each link at most once
/// per direction, each also run backwards; across nodes as `crossing`
/// says; elsewhere the best order. Each order lists world ranks.
std::vector<std::vector<int>> ringOrders(const Machine &machine,
                                         llvm::ArrayRef<int> ranks, int count,
                                         NodeCrossing crossing = NodeCrossing::LeastLoaded);

} // namespace ccopt::topo

#endif
