//===- ChannelClasses.h - channels that run alike ------------------*- C++ -*-===//
//
// Builders give every channel the same steps on its own slice of the data;
// analyses (the simulator, the mailbox's sizing) look at one channel of each
// class and count it for the others.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_DIALECT_SCHED_CHANNELCLASSES_H
#define CCOPT_DIALECT_SCHED_CHANNELCLASSES_H

#include "dialect/Sched/SchedDialect.h"

#include <vector>

namespace mlir::sched {

/// Per channel, the first channel that runs alike to it (itself when none
/// before it does); every channel itself when they cannot fold.
std::vector<int64_t> channelRepresentatives(ProgramOp program);

/// Channels that run alike (one parametric task each, same steps, loops,
/// peers and rank order; only their parts differ), as (representative
/// channel, how many); every channel alone when they cannot fold.
std::vector<std::pair<int64_t, int64_t>>
channelClasses(ProgramOp program);

/// Whether all channels of `program` run alike (one class).
bool hasSymmetricChannels(ProgramOp program);

} // namespace mlir::sched

#endif
