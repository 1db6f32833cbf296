//===- Protocol.cpp - NCCL's protocol figures -----------------------------===//
//
// All figures from NCCL src/graph/tuning.cc (v2.2x), as summarized in
// shared/REFERENCES.md.
//
//===----------------------------------------------------------------------===//

#include "topology/Protocol.h"

using namespace ccopt::topo;

llvm::StringRef ccopt::topo::toString(Protocol protocol) {
  switch (protocol) {
  case Protocol::LL: return "LL";
  case Protocol::LL128: return "LL128";
  case Protocol::Simple: return "Simple";
  }
  return "?";
}

std::optional<Protocol> ccopt::topo::parseProtocol(llvm::StringRef name) {
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple})
    if (name.equals_insensitive(toString(p)))
      return p;
  return std::nullopt;
}

double ccopt::topo::baseLatencyUs(AlgorithmFamily family, Protocol protocol) {
  // {LL, LL128, Simple}: ring 6.6 / 14 / 8.4, tree 6.8 / 14 / 8.4; NVLS 25
  // inside a node (it runs Simple only).
  if (family == AlgorithmFamily::Nvls)
    return 25;
  static const double ring[] = {6.6, 14, 8.4}, tree[] = {6.8, 14, 8.4};
  return (family == AlgorithmFamily::Ring ? ring : tree)[static_cast<int>(protocol)];
}

double ccopt::topo::hopLatencyUs(AlgorithmFamily family, Protocol protocol,
                                 LinkKind kind) {
  // {LL, LL128, Simple} per hop: NVLink ring 0.6 / 1.9 / 3.4, tree 0.6 / 1.25
  // / 4.0; PCI ring 1.0 / 2.5 / 5.7, tree 1.0 / 1.9 / 4.0; NET ring 2.7 / 4.0
  // / 14, tree 5 / 8.5 / 14. Inter-socket (SMP) routes count as PCI.
  static const double ring[3][3] = {{0.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14}};
  static const double tree[3][3] = {{0.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5, 8.5, 14}};
  int row = kind == LinkKind::NvLink ? 0 : kind == LinkKind::Net ? 2 : 1;
  // NVLS steps cross the NVSwitch like a ring hop.
  return (family == AlgorithmFamily::Tree ? tree : ring)[row][static_cast<int>(protocol)];
}

double ccopt::topo::bandwidthEfficiency(Protocol protocol) {
  switch (protocol) {
  case Protocol::LL: return 0.5;
  case Protocol::LL128: return 0.92;
  case Protocol::Simple: return 1.0;
  }
  return 1.0;
}

double ccopt::topo::llMaxBandwidth(Arch arch, int nodes) {
  // llMaxBw (1 / 2 / >= 4 nodes): Ampere 87.7 / 22.5 / 19, Hopper 141 / 45 /
  // 35 GB/s; Volta as Ampere (NCCL's Volta figures are of the same order).
  static const double ampere[] = {87.7, 22.5, 19}, hopper[] = {141, 45, 35};
  int column = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
  return (arch == Arch::Hopper ? hopper : ampere)[column];
}
