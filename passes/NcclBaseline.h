//===- NcclBaseline.h - what NCCL would do on the same machine ----*- C++ -*-===//
//
// NCCL's algorithms expressed as schedules, with NCCL's channel count,
// chunking and protocol choice per size, simulated by the same simulator on
// the same machine: every "ccopt vs NCCL" figure compares two simulations
// of one model.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_NCCLBASELINE_H
#define CCOPT_PASSES_NCCLBASELINE_H

#include "passes/Algorithms.h"
#include "topology/Simulator.h"

namespace ccopt {

struct BaselineResult {
  std::string algorithm;
  topo::Protocol protocol;
  int64_t channels, chunks;
  double timeUs;
};

/// NCCL's fastest algorithm and protocol for an all-reduce of `shape` among
/// world ranks `ranks` (shape.ranks of them) on `machine`.
llvm::Expected<BaselineResult> ncclAllReduceBaseline(mlir::MLIRContext *context,
                                                     const AllReduceShape &shape,
                                                     llvm::ArrayRef<int> ranks,
                                                     const topo::Machine &machine);

/// Channels NCCL runs on `machine` (its rings/trees per collective).
int64_t ncclChannels(const topo::Machine &machine);

} // namespace ccopt

#endif
