//===- StepSimulator.h - a training step: compute and communication -*- C++ -*-===//
//
// Compute runs a sequence of events (a backward pass, layer by layer);
// collectives run one at a time on one communication stream, in issue
// order, each once its buffers are ready (its event has ended) and the one
// before it has finished. A collective that holds C channels holds C of the
// GPU's SMs, so while it runs compute advances at (SMs - C) / SMs of its
// speed: an event of time t takes t x SMs / (SMs - C) while fully
// overlapped. Collective times come from the schedule simulator.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_STEPSIMULATOR_H
#define CCOPT_TOPOLOGY_STEPSIMULATOR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace ccopt::topo {

struct StepCollective {
  int64_t readyAfter; ///< index of the compute event after which it may start (-1: at once)
  double timeUs;      ///< simulated time of its schedule
  int64_t channels;   ///< SMs it holds while it runs
};

struct StepResult {
  double stepUs = 0;       ///< until compute and communication have both ended
  double computeUs = 0;    ///< compute alone (sum of the events, never slowed)
  double commUs = 0;       ///< sum of the collectives' times
  /// stepUs - computeUs: communication not hidden behind compute, plus what
  /// compute lost to the SMs communication held.
  double exposedUs = 0;
};

/// Simulates one step: `computeUs[e]` per event, collectives in issue order.
StepResult simulateStep(llvm::ArrayRef<double> computeUs,
                        llvm::ArrayRef<StepCollective> collectives, int64_t sms);

/// SMs of a GPU of the machine's generation (V100 80, A100 108, H100 132).
int64_t smCount(int arch);

} // namespace ccopt::topo

#endif
