//===- Bounds.h - what no schedule can beat -----------------------*- C++ -*-===//
//
// Alpha-beta lower bounds (after Chan et al. 2007; Patarasuk & Yuan): every
// collective needs at least one message latency over its most remote link,
// and each rank must move a fixed share of the data through its bottleneck
// cut. (Not ceil(log2 n) latencies: that holds when a rank sends one
// message at a time, but over several channels a rank reaches all its
// peers at once, as the direct algorithms do.) Two cuts
// are checked: a GPU's own links (its injection bandwidth) and, on several
// nodes, a node's NICs; on an NVLS switch an all-reduce moves half as much
// per GPU. Bandwidths are effective ones (what NCCL's best
// protocol achieves), so the bound is achievable and "fraction of bound"
// means something.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_BOUNDS_H
#define CCOPT_TOPOLOGY_BOUNDS_H

#include "dialect/Ccl/CclDialect.h"
#include "topology/Machine.h"
#include "topology/Protocol.h"

namespace ccopt::topo {

/// The lower bound (µs) for `kind` among `ranks` (world ranks) on `machine`,
/// where `bytes` is the size nccl-tests reports for the collective (the
/// larger of input and output per rank). Without `withNodeCuts`, the cuts of
/// part of a node from the rest (a max-flow each: the slow part on large
/// machines) are left out: a weaker bound, still a bound.
double lowerBoundUs(mlir::ccl::CollectiveKind kind, llvm::ArrayRef<int> ranks,
                    int64_t bytes, const Machine &machine,
                    bool withNodeCuts = true);

/// What no simulated schedule beats under `protocol`: the bound `boundUs`
/// (`latencyUs` of it at 0 bytes) with its transfer at the protocol's share
/// of the bandwidth, after the protocol's base latency (where every
/// simulation starts).
double boundUnder(Protocol protocol, double boundUs, double latencyUs);

/// nccl-tests' bus bandwidth factor: busbw = algbw * factor.
double busBandwidthFactor(mlir::ccl::CollectiveKind kind, int ranks);

} // namespace ccopt::topo

#endif
