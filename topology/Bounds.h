//===- Bounds.h - what no schedule can beat -----------------------*- C++ -*-===//
//
// Alpha-beta lower bounds (Chan et al. 2007; Patarasuk & Yuan): every
// collective needs at least ceil(log2 n) message latencies, and each rank
// must move a fixed share of the data through its bottleneck cut. Two cuts
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

namespace ccopt::topo {

/// The lower bound (µs) for `kind` among `ranks` (world ranks) on `machine`,
/// where `bytes` is the size nccl-tests reports for the collective (the
/// larger of input and output per rank). Without `withNodeCuts`, the cuts of
/// part of a node from the rest (a max-flow each: the slow part on large
/// machines) are left out: a weaker bound, still a bound.
double lowerBoundUs(mlir::ccl::CollectiveKind kind, llvm::ArrayRef<int> ranks,
                    int64_t bytes, const Machine &machine,
                    bool withNodeCuts = true);

/// nccl-tests' bus bandwidth factor: busbw = algbw * factor.
double busBandwidthFactor(mlir::ccl::CollectiveKind kind, int ranks);

} // namespace ccopt::topo

#endif
