//===- SchedDialect.h - the sched dialect -------------------------*- C++ -*-===//

#ifndef CCOPT_DIALECT_SCHED_SCHEDDIALECT_H
#define CCOPT_DIALECT_SCHED_SCHEDDIALECT_H

#include "dialect/Ccl/CclDialect.h"

#include "mlir/IR/AffineMap.h"

#include "dialect/Sched/SchedDialect.h.inc"
#include "dialect/Sched/SchedEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Sched/SchedAttrs.h.inc"
#define GET_OP_CLASSES
#include "dialect/Sched/SchedOps.h.inc"

namespace mlir::sched {

/// First element of part `index` when `count` elements split into `parts`
/// nearly equal parts (part `parts` starts at `count`).
inline int64_t partBegin(int64_t count, int64_t parts, int64_t index) {
  return static_cast<int64_t>(static_cast<__int128>(index) * count / parts);
}

/// Number of loop dimensions enclosing `op` (so its maps take 1 + that many).
unsigned loopDepth(Operation *op);

/// Whether a step of `program` reduces or stores through the NVSwitch (NVLS).
bool hasMultimemSteps(ProgramOp program);

/// The ranks a multimem step run by `rank` of `ranks` reaches through the
/// switch, [first, first + count): the block of its `group`, or every rank.
struct SwitchRanks {
  int64_t first, count;
};
SwitchRanks switchRanks(std::optional<uint64_t> group, int64_t rank, int64_t ranks);

/// The ranks every multimem step of `program` stays within: blocks of this
/// many (the least common multiple of their groups; all its ranks where one
/// reaches every rank; 0 where it has none).
int64_t multimemBlock(ProgramOp program);

/// Whether the NVSwitch reduces `element`s with `redop` (multimem
/// ld_reduce: sums of f32, f64, f16, bf16 and 32/64-bit integers; min and
/// max of all but f32 and f64; no products, no 8-bit types). Avg is a sum.
bool multimemReduces(Type element, ccl::ReductionKind redop);

/// Whether the NVSwitch stores `element`s (multimem st: words of 16 bits
/// or more).
bool multimemStores(Type element);

/// Calls `fn` with each inherent attribute of `op` in declaration order, null
/// where an optional one is absent (without building getAttrs()'s
/// dictionary).
void forEachInherentAttr(Operation *op, function_ref<void(Attribute)> fn);

/// Walks the steps of `block` in order, nested loops included: `word` gets
/// each step's name, the names of its discardable attributes and brackets
/// around each region, `attribute` each attribute (inherent ones null where
/// absent) with its step. What a task's shape is made of (ChannelShapes,
/// the emitter's shared bodies).
void walkStepShape(Block &block, function_ref<void(uintptr_t)> word,
                   function_ref<void(Operation *, Attribute)> attribute);

} // namespace mlir::sched

#endif
