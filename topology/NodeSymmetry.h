//===- NodeSymmetry.h - GPU renumberings a machine looks the same under --*- C++ -*-===//
//
// Renumbering the GPUs of every node the same way can leave a machine as it
// was: every device and link lands on one of the same kind and figures. On
// an 8-GPU node of GPU pairs under PCIe switches under two sockets, local GPU
// l -> l xor m is such a renumbering for every m (it swaps pairs, switches
// and sockets). Schedules whose channels are images of each other under one
// (NCCL's trees leave the node through a different rail per channel) run
// alike, and the simulator folds them.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_NODESYMMETRY_H
#define CCOPT_TOPOLOGY_NODESYMMETRY_H

#include "topology/Machine.h"

#include <vector>

namespace ccopt::topo {

struct NodeSymmetry {
  std::vector<int> ranks; ///< each world rank's image
  std::vector<int> links; ///< each link's image
};

/// The renumberings local GPU l -> l xor m (m = 1 .. gpusPerNode - 1, in
/// every node at once) under which `machine` looks the same; none unless
/// its nodes have a power-of-two number of GPUs and are laid out as
/// replicate() does. Found once per machine (Machine::xorSymmetryMemo).
const std::vector<NodeSymmetry> &xorSymmetries(const Machine &machine);

} // namespace ccopt::topo

#endif
