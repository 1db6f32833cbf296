//===- CclOps.cpp - ccl op verifiers --------------------------------------===//

#include "dialect/Ccl/CclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <map>
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"

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
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult AllReduceOp::verifyForRanks(int64_t) { return success(); }

LogicalResult ReduceScatterOp::verify() {
  return verifySameElementType(*this, getInput(), getOutput());
}
LogicalResult ReduceScatterOp::verifyForRanks(int64_t n) {
  if (countOf(getInput()) != n * countOf(getOutput()))
    return emitOpError("input count ")
           << countOf(getInput()) << " must be " << n << " ranks x output count "
           << countOf(getOutput());
  return success();
}

LogicalResult AllGatherOp::verify() {
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
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult BroadcastOp::verifyForRanks(int64_t n) {
  return verifyRank(*this, "root", getRoot(), n);
}

LogicalResult ReduceOp::verify() {
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult ReduceOp::verifyForRanks(int64_t n) {
  return verifyRank(*this, "root", getRoot(), n);
}

LogicalResult AllToAllOp::verify() {
  return verifySameBuffers(*this, getInput(), getOutput());
}
LogicalResult AllToAllOp::verifyForRanks(int64_t n) {
  if (countOf(getInput()) % n != 0)
    return emitOpError("count ") << countOf(getInput())
                                 << " is not divisible by " << n << " ranks";
  return success();
}

LogicalResult SendOp::verify() {
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
