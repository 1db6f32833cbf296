//===- Collectives.h - every collective's algorithms, by name -----*- C++ -*-===//
//
// What the lowering and the selection share: a ccl collective as the
// builders see it, the algorithms that can build each kind, which of them
// can run among given ranks on a machine, and building one by name.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_PASSES_COLLECTIVES_H
#define CCOPT_PASSES_COLLECTIVES_H

#include "passes/Algorithms.h"
#include "topology/Machine.h"

namespace ccopt {

/// One collective of a ccl.program (all_reduce, reduce_scatter,
/// all_gather, broadcast, reduce, all_to_all, a send with its recv, or a
/// barrier: no buffer, count 0).
struct Collective {
  mlir::ccl::CollectiveKind kind;
  /// The builders' shape: `count` is a rank's block for reduce_scatter and
  /// all_gather, the whole buffer otherwise; `rankMap` is empty when the
  /// collective runs on the world in rank order.
  AllReduceShape shape;
  /// World rank of each schedule rank.
  std::vector<int> ranks;
  int64_t root = 0;
  /// The larger buffer's bytes (what nccl-tests calls the size).
  int64_t bytes = 0;
  /// Input and output are `ccl.buffer ... multicast` (NVLS can reach them).
  bool multicast = false;
};

/// `op` as the builders see it; an error on `op` when its world is unknown.
mlir::FailureOr<Collective> describeCollective(mlir::Operation *op);

/// The algorithms that build `kind`, the default (without a machine) first.
llvm::ArrayRef<llvm::StringRef> algorithmsFor(mlir::ccl::CollectiveKind kind);

/// Why `algorithm` cannot build `c` on `machine` (null: none), or "" when
/// it can.
std::string algorithmUnsupported(const Collective &c, llvm::StringRef algorithm,
                                 const topo::Machine *machine);

/// For each pair of `ranks` (world ranks in schedule order) whose route on
/// `machine` is slower than NVLink, and has a schedule rank NVLink-linked to
/// both, such a relay for each of `shares` shares of the pair's block (none
/// for the other pairs): buildRelayAllToAll's table. Each share is first
/// given the relay whose busier link, counted in shares over its bandwidth
/// (every linked pair starts with its own block), is the least busy, then
/// the lowest; then shares move off the busiest links while that helps.
RelayShares nvlinkRelayShares(const topo::Machine &machine, llvm::ArrayRef<int> ranks,
                              int64_t shares);

/// nvlinkRelayShares in one share: the relay of each pair, else -1.
std::vector<std::vector<int64_t>> nvlinkRelays(const topo::Machine &machine,
                                               llvm::ArrayRef<int> ranks);

/// Builds `c` with `algorithm` (supported, see algorithmUnsupported) in
/// `chunks` pipelined pieces (where the algorithm pipelines) over
/// `channels` channels; rings and chains follow the machine's ring orders.
mlir::sched::ProgramOp buildCollective(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::StringRef name, const Collective &c,
                                       const topo::Machine *machine,
                                       llvm::StringRef algorithm, int64_t chunks,
                                       int64_t channels);

} // namespace ccopt

#endif
