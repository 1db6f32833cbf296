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

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
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

struct ImageClasses {
  std::vector<std::pair<int64_t, int64_t>> classes;
  std::vector<size_t> permutations;
  /// Per channel, a representative of `classes` and the permutation (-1:
  /// none) that renames its ranks into this channel's: the task of rank
  /// permutation[r] here runs the representative's rank r steps, peers
  /// renamed, parts aside.
  std::vector<std::pair<int64_t, int64_t>> sources;
};

/// Every task's shape (its steps, loops and peers), found once for the
/// questions below.
class ChannelShapes {
public:
  using Shape = std::vector<uintptr_t>;
  explicit ChannelShapes(ProgramOp program);

  /// channelRepresentatives / channelClasses.
  std::vector<int64_t> representatives() const;
  std::vector<std::pair<int64_t, int64_t>> classes() const;

  /// Classes folded further under renumberings of the ranks: `classes`
  /// whose channels are the images of others' under some of `permutations`
  /// (each a schedule rank's image), as representatives each standing for
  /// its own channels and their images, and those permutations (indices; a
  /// group with the identity, which is not listed). Only where every
  /// channel runs per-rank tasks whose peers are constants (trees), each
  /// class with a distinct image under every listed permutation;
  /// std::nullopt otherwise.
  std::optional<ImageClasses>
  images(llvm::ArrayRef<std::pair<int64_t, int64_t>> classes,
         llvm::ArrayRef<std::vector<int64_t>> permutations) const;

private:
  struct Task {
    int64_t channel;
    std::optional<uint64_t> rank;
    Shape words;
    /// Each peer's word, and the schedule rank it names (-1: not a
    /// constant).
    std::vector<std::pair<size_t, int64_t>> peers;
    std::vector<int64_t> rankMap;
  };
  int64_t channels, ranks;
  std::vector<Task> tasks;
};

/// Whether all channels of `program` run alike (one class).
bool hasSymmetricChannels(ProgramOp program);

} // namespace mlir::sched

#endif
