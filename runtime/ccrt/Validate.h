// Argument checks shared by every backend, run before anything is allocated
// or launched: a wrong buffer gives an InvalidArgument naming the rank and
// the buffer, and nothing is written.
#pragma once

#include "runtime/ccrt/Collective.h"

#include <functional>

namespace ccopt::rt {

/// Which ranks a binding must cover.
enum class RankCoverage {
  All,  // one entry for every schedule rank (host, virtual ranks, N GPUs)
  One,  // exactly one entry (a process of an NCCL world)
};

/// Checks `buffers` against `schedule`: ranks in range, each once, covering
/// as `coverage` says; element type and counts as compiled; pointers set and
/// aligned to the element size; capacities large enough; in-place schedules
/// given one buffer, out-of-place ones two that do not overlap. `where`
/// (optional) adds backend checks per buffer, e.g. the device it lives on.
Status validateBuffers(const Schedule& schedule, const std::vector<RankBuffers>& buffers, RankCoverage coverage,
                       const std::function<Status(const RankBuffers&, const BufferView&, const char* which)>& where =
                           nullptr);

/// Checks launch options (threads per block a positive multiple of 32, at most 1024).
Status validateOptions(const LaunchOptions& options);

}  // namespace ccopt::rt
