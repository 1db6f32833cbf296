//===- CclOps.cpp - ccl op verifiers --------------------------------------===//

#include "dialect/Ccl/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <map>
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::ccl;

/// Reductions read as a bare keyword: `ccl.all_reduce sum %a -> %b`.
static ParseResult parseRedOp(OpAsmParser &parser, ReductionKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  auto kind = symbolizeReductionKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected a reduction (sum, prod, min, max "
                                 "or avg), got '")
           << keyword << "'";
  attr = ReductionKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printRedOp(OpAsmPrinter &printer, Operation *, ReductionKindAttr attr) {
  printer << stringifyReductionKind(attr.getValue());
}

#define GET_OP_CLASSES
#include "dialect/Ccl/CclOps.cpp.inc"

bool mlir::ccl::isMulticastBuffer(Value v) {
  auto decl = v.getDefiningOp<BufferOp>();
  return decl && decl.getMulticast();
}

std::optional<int64_t> mlir::ccl::participantCount(Operation *op,
                                                   FlatSymbolRefAttr group) {
  auto program = op->getParentOfType<ProgramOp>();
  if (!program)
    return std::nullopt;
  if (group) {
    if (auto groupOp = SymbolTable::lookupSymbolIn(program, group.getAttr()))
      if (auto g = dyn_cast<GroupOp>(groupOp))
        return static_cast<int64_t>(g.getRanks().size());
    return std::nullopt;
  }
  if (auto world = program.getWorld())
    return static_cast<int64_t>(*world);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// ProgramOp, GroupOp, BufferOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  // Read as signed: the getter of an I64Attr is unsigned.
  if (IntegerAttr world = getWorldAttr(); world && world.getInt() < 1)
    return emitOpError("world must hold at least one rank, got ")
           << world.getInt();
  return success();
}

/// Ready events: distinct names, every buffer made ready at most once and
/// never after a collective used it (directly or through a bucket).
static LogicalResult verifyReadyOrder(ProgramOp program) {
  llvm::DenseMap<Value, Operation *> firstUse;
  llvm::DenseSet<Value> readied;
  llvm::StringMap<Operation *> events;
  auto uses = [&](Value v, auto &&fn) -> void {
    fn(v);
    if (auto bucket = v.getDefiningOp<BucketOp>())
      for (Value m : bucket.getMembers())
        fn(m);
  };
  for (Operation &op : program.getBody().front()) {
    if (auto ready = dyn_cast<ReadyOp>(op)) {
      auto [it, fresh] = events.try_emplace(ready.getName(), ready);
      if (!fresh) {
        InFlightDiagnostic diag = ready.emitOpError("event '")
                                  << ready.getName() << "' is declared twice";
        diag.attachNote(it->second->getLoc()) << "first declared here";
        return diag;
      }
      for (auto [i, buffer] : llvm::enumerate(ready.getBuffers())) {
        if (!readied.insert(buffer).second)
          return ready.emitOpError("makes buffer #")
                 << i << " ready a second time";
        if (Operation *user = firstUse.lookup(buffer)) {
          InFlightDiagnostic diag =
              ready.emitOpError("event '")
              << ready.getName() << "' makes buffer #" << i
              << " ready after a collective used it (impossible order)";
          diag.attachNote(user->getLoc()) << "used here";
          return diag;
        }
      }
      continue;
    }
    if (isa<BufferOp, BucketOp, GroupOp>(op))
      continue;
    for (Value operand : op.getOperands())
      uses(operand, [&](Value v) { firstUse.try_emplace(v, &op); });
  }
  return success();
}

/// Sends and receives between a pair of ranks match in program order.
LogicalResult ProgramOp::verifyRegions() {
  // (group, from, to) -> unmatched sends (or receives) in program order.
  using Key = std::tuple<std::string, int64_t, int64_t>;
  std::map<Key, SmallVector<Operation *>> pendingSends, pendingRecvs;
  auto keyOf = [](auto op) {
    FlatSymbolRefAttr group = op.getGroupAttr();
    return Key{group ? group.getValue().str() : "", op.getFrom(), op.getTo()};
  };
  auto pair = [&](Operation *op, Key key, bool isSend) -> LogicalResult {
    auto &mine = isSend ? pendingSends[key] : pendingRecvs[key];
    auto &theirs = isSend ? pendingRecvs[key] : pendingSends[key];
    if (theirs.empty()) {
      mine.push_back(op);
      return success();
    }
    Operation *other = theirs.front();
    theirs.erase(theirs.begin());
    Type mineType = op->getOperand(0).getType();
    Type theirType = other->getOperand(0).getType();
    if (mineType != theirType) {
      InFlightDiagnostic diag = op->emitOpError("buffer type ")
                                << mineType << " differs from " << theirType
                                << " of the matching " << other->getName();
      diag.attachNote(other->getLoc())
          << "the matching " << other->getName() << " is here";
      return diag;
    }
    return success();
  };
  if (failed(verifyReadyOrder(*this)))
    return failure();
  for (Operation &op : getBody().front()) {
    if (auto send = dyn_cast<SendOp>(op); send && failed(pair(send, keyOf(send), true)))
      return failure();
    if (auto recv = dyn_cast<RecvOp>(op); recv && failed(pair(recv, keyOf(recv), false)))
      return failure();
  }
  for (auto [pending, missing] : {std::make_pair(&pendingSends, "ccl.recv"),
                                  std::make_pair(&pendingRecvs, "ccl.send")})
    for (auto &[key, ops] : *pending)
      if (!ops.empty())
        return ops.front()->emitOpError("from rank ")
               << std::get<1>(key) << " to rank " << std::get<2>(key)
               << " has no matching " << missing;
  return success();
}

LogicalResult GroupOp::verify() {
  ArrayRef<int64_t> ranks = getRanks();
  if (ranks.empty())
    return emitOpError("must hold at least one rank");
  llvm::SmallSet<int64_t, 16> seen;
  auto world = getParentOp().getWorld();
  for (int64_t rank : ranks) {
    if (rank < 0)
      return emitOpError("rank ") << rank << " is negative";
    if (world && rank >= static_cast<int64_t>(*world))
      return emitOpError("rank ") << rank << " is outside the world of "
                                  << *world << " ranks";
    if (!seen.insert(rank).second)
      return emitOpError("lists rank ") << rank << " twice";
  }
  return success();
}

void BufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

void BucketOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

LogicalResult BucketOp::verify() {
  if (getMembers().empty())
    return emitOpError("needs at least one member");
  auto type = cast<BufferType>(getResult().getType());
  int64_t total = 0;
  llvm::SmallPtrSet<Value, 8> seen;
  for (auto [i, member] : llvm::enumerate(getMembers())) {
    auto memberType = cast<BufferType>(member.getType());
    if (memberType.getElementType() != type.getElementType())
      return emitOpError("member #") << i << " holds " << memberType.getElementType()
                                     << " but the bucket holds "
                                     << type.getElementType();
    if (!member.getDefiningOp<BufferOp>())
      return emitOpError("member #") << i << " is not a ccl.buffer";
    if (!seen.insert(member).second)
      return emitOpError("lists member #") << i << " twice";
    total += memberType.getCount();
  }
  if (total != type.getCount())
    return emitOpError("count ") << type.getCount()
                                 << " differs from the members' total " << total;
  return success();
}

SmallVector<int64_t> BucketOp::getMemberOffsets() {
  SmallVector<int64_t> offsets;
  int64_t at = 0;
  for (Value member : getMembers()) {
    offsets.push_back(at);
    at += cast<BufferType>(member.getType()).getCount();
  }
  return offsets;
}

LogicalResult ReadyOp::verify() {
  if (getBuffers().empty())
    return emitOpError("needs at least one buffer");
  for (auto [i, buffer] : llvm::enumerate(getBuffers()))
    if (!buffer.getDefiningOp<BufferOp>())
      return emitOpError("buffer #") << i << " is not a ccl.buffer";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

namespace {

LogicalResult verifySameElementType(Operation *op, Value input, Value output) {
  Type a = cast<BufferType>(input.getType()).getElementType();
  Type b = cast<BufferType>(output.getType()).getElementType();
  if (a != b)
    return op->emitOpError("input element type ")
           << a << " differs from output element type " << b;
  return success();
}

int64_t countOf(Value buffer) { return cast<BufferType>(buffer.getType()).getCount(); }

/// `compress` names a 16-bit float wire type for floating-point data wider
/// than it.
LogicalResult verifyCompress(Operation *op, TypeAttr compress, Value input) {
  if (!compress)
    return success();
  Type wire = compress.getValue();
  if (!wire.isF16() && !wire.isBF16())
    return op->emitOpError("compress must be f16 or bf16, got ") << wire;
  Type element = cast<BufferType>(input.getType()).getElementType();
  if (!element.isF32() && !element.isF64())
    return op->emitOpError("compress needs f32 or f64 data, got ")
           << element << " (integers and 16-bit floats are sent as they are)";
  return success();
}

/// Wire compression rounds only what is reduced (the reduction's error
/// bound covers it); a collective that moves data would deliver rounded
/// copies of its input.
LogicalResult verifyNoCompress(Operation *op) {
  if (op->hasAttr("compress"))
    return op->emitOpError("compress applies to reductions (all_reduce, "
                           "reduce_scatter, reduce): this collective would "
                           "deliver rounded copies of its input");
  return success();
}

/// Input and output hold the same number of elements of one type.
LogicalResult verifySameBuffers(Operation *op, Value input, Value output) {
  if (failed(verifySameElementType(op, input, output)))
    return failure();
  if (countOf(input) != countOf(output))
    return op->emitOpError("input and output counts differ: ")
           << countOf(input) << " vs " << countOf(output);
  return success();
}

LogicalResult verifyRank(Operation *op, StringRef what, int64_t rank, int64_t n) {
  if (rank < 0 || rank >= n)
    return op->emitOpError() << what << " " << rank << " is out of range for "
                             << n << " ranks";
  return success();
}

/// The group must name a ccl.group; checks that need the number of
/// participants run once it is known.
template <typename OpT>
LogicalResult verifyGroupUse(OpT op, SymbolTableCollection &tables) {
  if (FlatSymbolRefAttr group = op.getGroupAttr()) {
    auto program = op->template getParentOfType<ProgramOp>();
    if (!tables.lookupSymbolIn<GroupOp>(program, group))
      return op.emitOpError("names unknown group ") << group;
  }
  if (auto n = participantCount(op, op.getGroupAttr()))
    return op.verifyForRanks(*n);
  return success();
}

} // namespace

#define CCL_GROUP_USER(OpT)                                                    \
  LogicalResult OpT::verifySymbolUses(SymbolTableCollection &tables) {         \
    return verifyGroupUse(*this, tables);                                      \
  }
CCL_GROUP_USER(AllReduceOp)
CCL_GROUP_USER(ReduceScatterOp)
CCL_GROUP_USER(AllGatherOp)
CCL_GROUP_USER(BroadcastOp)
CCL_GROUP_USER(ReduceOp)
CCL_GROUP_USER(AllToAllOp)
CCL_GROUP_USER(SendOp)
CCL_GROUP_USER(RecvOp)
CCL_GROUP_USER(BarrierOp)
#undef CCL_GROUP_USER

LogicalResult AllReduceOp::verify() {
  if (failed(verifySameBuffers(*this, getInput(), getOutput())))
    return failure();
  return verifyCompress(*this, getCompressAttr(), getInput());
}
LogicalResult AllReduceOp::verifyForRanks(int64_t) { return success(); }

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifySameElementType(*this, getInput(), getOutput())))
    return failure();
  return verifyCompress(*this, getCompressAttr(), getInput());
}
LogicalResult ReduceScatterOp::verifyForRanks(int64_t n) {
  if (countOf(getInput()) != n * countOf(getOutput()))
    return emitOpError("input count ")
           << countOf(getInput()) << " must be " << n << " ranks x output count "
           << countOf(getOutput());
  return success();
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyNoCompress(*this)))
    return failure();
  return verifySameElementType(*this, getInput(), getOutput());
}
LogicalResult AllGatherOp::verifyForRanks(int64_t n) {
  if (countOf(getOutput()) != n * countOf(getInput()))
    return emitOpError("output count ")
           << countOf(getOutput()) << " must be " << n << " ranks x input count "
           << countOf(getInput());
  return success();
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyNoCompress(*this)))
    return failure();
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult BroadcastOp::verifyForRanks(int64_t n) {
  return verifyRank(*this, "root", getRoot(), n);
}

LogicalResult ReduceOp::verify() {
  if (failed(verifySameBuffers(*this, getInput(), getOutput())))
    return failure();
  return verifyCompress(*this, getCompressAttr(), getInput());
}
LogicalResult ReduceOp::verifyForRanks(int64_t n) {
  return verifyRank(*this, "root", getRoot(), n);
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyNoCompress(*this)))
    return failure();
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult AllToAllOp::verifyForRanks(int64_t n) {
  if (countOf(getInput()) % n != 0)
    return emitOpError("count ") << countOf(getInput())
                                 << " is not divisible by " << n << " ranks";
  return success();
}

LogicalResult SendOp::verify() {
  if (failed(verifyNoCompress(*this)))
    return failure();
  if (getFrom() == getTo())
    return emitOpError("sends from rank ") << getFrom() << " to itself";
  return success();
}
LogicalResult SendOp::verifyForRanks(int64_t n) {
  return failure(failed(verifyRank(*this, "from rank", getFrom(), n)) ||
                 failed(verifyRank(*this, "to rank", getTo(), n)));
}

LogicalResult RecvOp::verify() {
  if (getFrom() == getTo())
    return emitOpError("receives from rank ") << getFrom() << " on itself";
  return success();
}
LogicalResult RecvOp::verifyForRanks(int64_t n) {
  return failure(failed(verifyRank(*this, "from rank", getFrom(), n)) ||
                 failed(verifyRank(*this, "to rank", getTo(), n)));
}

LogicalResult BarrierOp::verify() { return success(); }
LogicalResult BarrierOp::verifyForRanks(int64_t) { return success(); }
