//===- SharedBodies.h - per-rank tasks that share one kernel body -*- C++ -*-===//
//
// Trees, binomial trees and relays give every rank (and channel) a task of
// its own whose steps differ from its neighbours' only in constants: the
// peers and the part indices. Printed one by one, 1024 ranks on 16 channels
// make a kernel NVRTC cannot compile in useful time; NCCL keeps its trees as
// data instead. Rings and the hierarchical algorithms give every channel a
// task that differs from the others' in its rank order and part offsets.
// Tasks alike but for their constants (and rank orders) share one body
// here, and the constants that differ become a table row per task.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_CODEGEN_SHAREDBODIES_H
#define CCOPT_CODEGEN_SHAREDBODIES_H

#include "dialect/Sched/SchedDialect.h"

#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace ccopt {

struct SharedBody {
  /// The tasks, in program order; the first one's body is printed.
  std::vector<mlir::sched::TaskOp> tasks;
  /// Constants that differ among the tasks, per task (a row of `width`).
  int64_t width = 0;
  std::vector<int64_t> table;
  /// The printed task's maps, keyed by (step, attribute), with each
  /// differing constant as symbol j for column j of the row: peers; parts
  /// as (index, parts); loops, keyed by their upper bound, as (lower,
  /// upper).
  llvm::DenseMap<std::pair<mlir::Operation *, mlir::Attribute>, mlir::AffineMap>
      maps;
};

/// A part's map as shared bodies table it: (index, number of parts).
mlir::AffineMap partMap(mlir::sched::PartAttr part);
/// A loop's bounds as shared bodies table them: (lower, upper).
mlir::AffineMap loopBounds(mlir::sched::LoopOp loop);

/// Groups of two or more tasks of `program` alike but for the constants of
/// their maps and their rank orders: per-rank tasks, channel-wide tasks
/// without a rank order, channel-wide tasks with one (each group of one
/// kind). Only tasks that are the one task of their channel for each of
/// their ranks are grouped (they may then run in any order).
std::vector<SharedBody> sharedBodies(mlir::sched::ProgramOp program);

} // namespace ccopt

#endif
