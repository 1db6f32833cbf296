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

/// A second algorithm that runs beside a reduce-scatter's or all-gather's
/// own, on channels of its own and a share of every block
/// (buildOnBlockShares): the op's
/// `beside = {algorithm = "hierarchical", channels = 16, chunks = 16,
///            weights = array<i64: 4, 1>}` (4/5 of every block to the op's
/// algorithm, 1/5 to this one).
struct Beside {
  std::string algorithm;
  int64_t channels = 1, chunks = 1;
  int64_t ownWeight = 1, weight = 1;
};

/// `op`'s `beside`, if it has one; an error on `op` where it is malformed.
mlir::FailureOr<std::optional<Beside>> besideOf(mlir::Operation *op);

/// `beside` as the op's attribute.
mlir::DictionaryAttr besideAttr(mlir::MLIRContext *ctx, const Beside &beside);

/// buildCollective's program, with `beside` merged in where there is one
/// (buildOnBlockShares); fails, saying why, where `beside` cannot run
/// beside `c`'s algorithm or the shares cannot hold the pieces.
mlir::FailureOr<mlir::sched::ProgramOp>
buildCollective(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                const Collective &c, const topo::Machine *machine,
                llvm::StringRef algorithm, int64_t chunks, int64_t channels,
                const std::optional<Beside> &beside, std::string &why);

} // namespace ccopt

#endif
