//===- SchedDialect.cpp - sched dialect and op verifiers ------------------===//

#include "dialect/Sched/SchedDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::sched;

#include "dialect/Sched/SchedDialect.cpp.inc"
#include "dialect/Sched/SchedEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialect/Sched/SchedAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "dialect/Sched/SchedOps.cpp.inc"

void SchedDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/Sched/SchedAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/Sched/SchedOps.cpp.inc"
      >();
}

unsigned mlir::sched::loopDepth(Operation *op) {
  unsigned depth = 0;
  for (Operation *p = op->getParentOp(); p && !isa<ProgramOp>(p);
       p = p->getParentOp())
    depth += isa<LoopOp>(p);
  return depth;
}

bool mlir::sched::hasMultimemSteps(ProgramOp program) {
  return program
      .walk([](Operation *op) {
        return isa<MultimemReduceOp, MultimemStoreOp>(op) ? WalkResult::interrupt()
                                                           : WalkResult::advance();
      })
      .wasInterrupted();
}

SwitchRanks mlir::sched::switchRanks(std::optional<uint64_t> group, int64_t rank,
                                     int64_t ranks) {
  if (!group)
    return {0, ranks};
  int64_t g = *group;
  return {rank - rank % g, g};
}

int64_t mlir::sched::multimemBlock(ProgramOp program) {
  int64_t block = 0;
  auto widen = [&](std::optional<uint64_t> group) {
    block = std::lcm(std::max<int64_t>(block, 1), switchRanks(group, 0, program.getRanks()).count);
  };
  program.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<MultimemReduceOp>(op))
      widen(reduce.getGroup());
    else if (auto store = dyn_cast<MultimemStoreOp>(op))
      widen(store.getGroup());
  });
  return block;
}

void mlir::sched::forEachInherentAttr(Operation *op, function_ref<void(Attribute)> fn) {
  if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
    for (StringAttr name : info->getAttributeNames())
      fn(op->getInherentAttr(name).value_or(Attribute()));
}

void mlir::sched::walkStepShape(Block &block, function_ref<void(uintptr_t)> word,
                                function_ref<void(Operation *, Attribute)> attribute) {
  auto pointer = [](const void *p) { return reinterpret_cast<uintptr_t>(p); };
  for (Operation &op : block) {
    word(pointer(op.getName().getAsOpaquePointer()));
    forEachInherentAttr(&op, [&](Attribute value) { attribute(&op, value); });
    for (NamedAttribute attr : op.getDiscardableAttrs()) {
      word(pointer(attr.getName().getAsOpaquePointer()));
      attribute(&op, attr.getValue());
    }
    for (Region &region : op.getRegions()) {
      word(1); // nesting brackets
      walkStepShape(region.front(), word, attribute);
      word(2);
    }
  }
}

LogicalResult PartAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               BufferKind, AffineMap index, int64_t parts) {
  if (parts < 1)
    return emitError() << "a buffer splits into at least one part, got " << parts;
  if (index.getNumResults() != 1 || index.getNumSymbols() != 0)
    return emitError() << "part index must be a map with one result and no "
                          "symbols, got "
                       << AffineMapAttr::get(index);
  return success();
}

int64_t ProgramOp::getCount(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return getInputCount();
  case BufferKind::Output:
    return getOutputCount();
  case BufferKind::Scratch:
    return getScratchCount();
  }
  llvm_unreachable("unknown buffer kind");
}

// The getters of I64Attr are unsigned: the verifiers read the attributes as
// signed values so that negative ones are caught (and printed) as such.

LogicalResult ProgramOp::verify() {
  int64_t ranks = getRanksAttr().getInt();
  int64_t channels = getChannelsAttr().getInt();
  if (ranks < 1)
    return emitOpError("needs at least one rank, got ") << ranks;
  if (channels < 1)
    return emitOpError("needs at least one channel, got ") << channels;
  if (getInputCountAttr().getInt() < 0 || getOutputCountAttr().getInt() < 0 ||
      getScratchCountAttr().getInt() < 0)
    return emitOpError("buffer counts must not be negative");
  if (getInPlace() && getInputCount() != getOutputCount())
    return emitOpError("in_place needs equal input and output counts");
  if (getPrescale() && getRedop() != ccl::ReductionKind::Avg)
    return emitOpError("prescale needs the avg reduction");
  if (IntegerAttr root = getRootAttr();
      root && (root.getInt() < 0 || root.getInt() >= ranks))
    return emitOpError("root ") << root.getInt() << " is out of range for "
                                << ranks << " ranks";
  if (auto map = getRankMap()) {
    if (static_cast<int64_t>(map->size()) != ranks)
      return emitOpError("rank_map has ")
             << map->size() << " entries for " << ranks << " ranks";
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t world : *map)
      if (world < 0 || !seen.insert(world).second)
        return emitOpError("rank_map must list distinct non-negative ranks, "
                           "got ")
               << world;
  }
  return success();
}

LogicalResult TaskOp::verify() {
  auto program = getParentOp();
  int64_t ranks = program.getRanksAttr().getInt();
  int64_t channels = program.getChannelsAttr().getInt();
  int64_t channel = getChannelAttr().getInt();
  if (channel < 0 || channel >= channels)
    return emitOpError("channel ") << channel << " is out of range for "
                                   << channels << " channels";
  if (IntegerAttr rank = getRankAttr();
      rank && (rank.getInt() < 0 || rank.getInt() >= ranks))
    return emitOpError("rank ") << rank.getInt() << " is out of range for "
                                << ranks << " ranks";
  if (auto map = getRankMap()) {
    if (getRankAttr())
      return emitOpError("takes either a rank or a rank_map, not both");
    if (static_cast<int64_t>(map->size()) != ranks)
      return emitOpError("rank_map has ")
             << map->size() << " entries for " << ranks << " ranks";
    llvm::SmallVector<bool> seen(ranks, false);
    for (int64_t r : *map) {
      if (r < 0 || r >= ranks || seen[r])
        return emitOpError("rank_map must be a permutation of the ")
               << ranks << " ranks, got " << r;
      seen[r] = true;
    }
  }
  return success();
}

int64_t TaskOp::logicalRank(int64_t rank) {
  auto map = getRankMap();
  if (!map)
    return rank;
  return llvm::find(*map, rank) - map->begin();
}

LogicalResult LoopOp::verify() {
  int64_t lower = getLowerAttr().getInt(), upper = getUpperAttr().getInt();
  if (lower < 0)
    return emitOpError("lower bound ") << lower << " must not be negative";
  if (upper < lower)
    return emitOpError("upper bound ")
           << upper << " is below lower bound " << lower;
  return success();
}

namespace {

/// Maps inside a step take (rank, loop indices...).
LogicalResult verifyMap(Operation *op, StringRef what, AffineMap map) {
  unsigned dims = 1 + loopDepth(op);
  if (map.getNumDims() != dims || map.getNumResults() != 1 ||
      map.getNumSymbols() != 0)
    return op->emitOpError() << what << " map " << AffineMapAttr::get(map)
                             << " must take " << dims
                             << " dimensions (rank and " << dims - 1
                             << " loop indices) and give one result";
  return success();
}

LogicalResult verifyPart(Operation *op, StringRef what, PartAttr part) {
  if (!part)
    return success();
  auto program = op->getParentOfType<ProgramOp>();
  if (program.getCount(part.getBuffer()) == 0)
    return op->emitOpError() << what << " uses the "
                             << stringifyBufferKind(part.getBuffer())
                             << " buffer, which this program does not have";
  return verifyMap(op, what, part.getIndex());
}

} // namespace

LogicalResult CopyOp::verify() {
  return failure(failed(verifyPart(*this, "source", getSrc())) ||
                 failed(verifyPart(*this, "destination", getDst())));
}

LogicalResult ReduceOp::verify() {
  if (!(*this)->getParentOfType<ProgramOp>().getRedop())
    return emitOpError("needs a program with a reduction (redop)");
  return failure(failed(verifyPart(*this, "lhs", getLhs())) ||
                 failed(verifyPart(*this, "rhs", getRhs())) ||
                 failed(verifyPart(*this, "destination", getDst())));
}

LogicalResult SendOp::verify() {
  return failure(failed(verifyPart(*this, "source", getSrc())) ||
                 failed(verifyMap(*this, "peer", getPeer())) ||
                 failed(verifyPart(*this, "destination", getDst())) ||
                 failed(verifyPart(*this, "store", getStoreAttr())));
}

LogicalResult RecvOp::verify() {
  return failure(failed(verifyMap(*this, "peer", getPeer())) ||
                 failed(verifyPart(*this, "destination", getIntoAttr())));
}

LogicalResult RecvReduceSendOp::verify() {
  if (!(*this)->getParentOfType<ProgramOp>().getRedop())
    return emitOpError("needs a program with a reduction (redop)");
  return failure(failed(verifyMap(*this, "from", getFrom())) ||
                 failed(verifyPart(*this, "received", getRecvd())) ||
                 failed(verifyPart(*this, "local", getLocal())) ||
                 failed(verifyPart(*this, "store", getStoreAttr())) ||
                 failed(verifyMap(*this, "to", getTo())) ||
                 failed(verifyPart(*this, "destination", getDst())));
}

LogicalResult RecvCopySendOp::verify() {
  return failure(failed(verifyMap(*this, "from", getFrom())) ||
                 failed(verifyPart(*this, "received", getRecvd())) ||
                 failed(verifyPart(*this, "store", getStoreAttr())) ||
                 failed(verifyMap(*this, "to", getTo())) ||
                 failed(verifyPart(*this, "destination", getDst())));
}

LogicalResult SignalOp::verify() { return verifyMap(*this, "peer", getPeer()); }

bool mlir::sched::multimemReduces(Type element, ccl::ReductionKind redop) {
  using R = ccl::ReductionKind;
  bool sum = redop == R::Sum || redop == R::Avg;
  bool minMax = redop == R::Min || redop == R::Max;
  if (element.isF32() || element.isF64())
    return sum;
  if (element.isF16() || element.isBF16())
    return sum || minMax;
  auto integer = dyn_cast<IntegerType>(element);
  return integer && (integer.getWidth() == 32 || integer.getWidth() == 64) &&
         (sum || minMax);
}

bool mlir::sched::multimemStores(Type element) {
  return element.getIntOrFloatBitWidth() >= 16;
}

/// The switch reaches only memory bound to a multicast object: the input
/// and output of a `multicast` program; under Simple (its signals order the
/// stores), in the element type.
static LogicalResult verifyMulticast(Operation *op, StringRef role, PartAttr part) {
  auto program = op->getParentOfType<ProgramOp>();
  if (auto group = op->getAttrOfType<IntegerAttr>("group");
      group && (group.getInt() < 2 || program.getRanks() % group.getInt()))
    return op->emitOpError("group must be at least 2 ranks and divide the program's ")
           << program.getRanks() << ", not " << group.getInt();
  if (!program.getMulticast())
    return op->emitOpError("needs a multicast program (input and output bound "
                           "to multicast objects)");
  if (part.getBuffer() == BufferKind::Scratch)
    return op->emitOpError("needs its ")
           << role << " in the input or output (multicast), not the scratch";
  if (program.getWireType() != program.getElementType())
    return op->emitOpError("needs the element type on the wire, not ")
           << program.getWireType();
  if (!multimemStores(program.getElementType()))
    return op->emitOpError("the switch moves no ") << program.getElementType()
                                                   << " (16-bit words at least)";
  if (program.getProtocolKind() != ProtocolKind::Simple)
    return op->emitOpError("needs the simple protocol, not ")
           << stringifyProtocolKind(program.getProtocolKind());
  return success();
}

LogicalResult MultimemReduceOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (!program.getRedop())
    return emitOpError("needs a program with a reduction (redop)");
  if (!multimemReduces(program.getElementType(), *program.getRedop()))
    return emitOpError("the switch has no ")
           << ccl::stringifyReductionKind(*program.getRedop()) << " of "
           << program.getElementType();
  return failure(failed(verifyPart(*this, "source", getSrc())) ||
                 failed(verifyPart(*this, "destination", getDst())) ||
                 failed(verifyMulticast(*this, "source", getSrc())));
}

LogicalResult MultimemStoreOp::verify() {
  return failure(failed(verifyPart(*this, "source", getSrc())) ||
                 failed(verifyPart(*this, "destination", getDst())) ||
                 failed(verifyMulticast(*this, "destination", getDst())));
}
