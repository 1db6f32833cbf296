//===- Protocol.h - NCCL's protocols as the cost model sees them --*- C++ -*-===//
//
// NCCL's tuning model (src/graph/tuning.cc, v2.2x): a collective costs a base
// latency, a per-hop latency for every step and bytes over the protocol's
// share of the bandwidth. LL sends 8-byte words carrying data and a flag
// (half the bandwidth, lowest latency); LL128 sends 128-byte lines with a
// flag (~92% of it); Simple sends bulk data then a flag.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_PROTOCOL_H
#define CCOPT_TOPOLOGY_PROTOCOL_H

#include "topology/Machine.h"

namespace ccopt::topo {

enum class Protocol { LL, LL128, Simple };
/// Whose latencies apply: NCCL's ring, tree or NVLS (in-switch reduction).
enum class AlgorithmFamily { Ring, Tree, Nvls };

llvm::StringRef toString(Protocol protocol);
std::optional<Protocol> parseProtocol(llvm::StringRef name);

/// Base latency of one collective (µs).
double baseLatencyUs(AlgorithmFamily family, Protocol protocol);
/// Latency of one step over a route whose most remote link is `kind` (µs).
double hopLatencyUs(AlgorithmFamily family, Protocol protocol, LinkKind kind);
/// Fraction of a link's bandwidth the protocol delivers.
double bandwidthEfficiency(Protocol protocol);
/// GB/s LL can move per rank at most (llMaxBw), by architecture and nodes.
double llMaxBandwidth(Arch arch, int nodes);

} // namespace ccopt::topo

#endif
