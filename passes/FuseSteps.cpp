//===- FuseSteps.cpp - sched-fuse-steps -----------------------------------===//
//
// recv; reduce A, B -> X; send X      => recv_reduce_send A, B store X
// recv; copy S -> X; send X           => recv_copy_send S store X
// recv; send X                        => recv_copy_send X
// copy S -> X; send S (or X)          => send S store X
// Each fused step reads its operands once and writes the peer (and the
// local store) in the same pass; the simulator charges one flow for it and
// the emitter prints one loop over the data.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace ccopt {
#define GEN_PASS_DEF_SCHEDFUSESTEPS
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace mlir::sched;

namespace {

/// Fuses the step run starting at `recv`; returns the op after what it
/// replaced (or after `recv` when nothing matched).
Operation *fuseAt(RecvOp recv) {
  Operation *next = recv->getNextNode();
  Operation *after = next ? next->getNextNode() : nullptr;
  OpBuilder b(recv);
  if (auto send = dyn_cast_or_null<SendOp>(next)) {
    Operation *resume = send->getNextNode();
    RecvCopySendOp::create(b, recv.getLoc(), recv.getPeerAttr(), send.getSrc(),
                           send.getPeerAttr(), send.getDst(), PartAttr());
    send.erase();
    recv.erase();
    return resume;
  }
  auto send = dyn_cast_or_null<SendOp>(after);
  if (!send)
    return next;
  Operation *resume = send->getNextNode();
  if (auto reduce = dyn_cast<ReduceOp>(next); reduce && reduce.getDst() == send.getSrc()) {
    RecvReduceSendOp::create(b, recv.getLoc(), recv.getPeerAttr(), reduce.getLhs(),
                             reduce.getRhs(), reduce.getDst(), reduce.getFinalizeAttr(),
                             send.getPeerAttr(), send.getDst());
  } else if (auto copy = dyn_cast<CopyOp>(next); copy && copy.getDst() == send.getSrc()) {
    RecvCopySendOp::create(b, recv.getLoc(), recv.getPeerAttr(), copy.getSrc(),
                           send.getPeerAttr(), send.getDst(), copy.getDst());
  } else {
    return next;
  }
  send.erase();
  next->erase();
  recv.erase();
  return resume;
}

/// Fuses `copy S -> X; send S or X` (an out-of-place root's or own
/// block's copy) into `send S store X`; returns the op after it.
Operation *fuseAt(CopyOp copy) {
  auto send = dyn_cast_or_null<SendOp>(copy->getNextNode());
  if (!send || send.getStoreAttr() ||
      (send.getSrc() != copy.getSrc() && send.getSrc() != copy.getDst()))
    return copy->getNextNode();
  Operation *resume = send->getNextNode();
  OpBuilder b(copy);
  SendOp::create(b, copy.getLoc(), copy.getSrc(), send.getPeerAttr(), send.getDst(),
                 copy.getDst());
  send.erase();
  copy.erase();
  return resume;
}

struct FuseSteps : ccopt::impl::SchedFuseStepsBase<FuseSteps> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Operation *op) {
      if (isa<TaskOp, LoopOp>(op))
        blocks.push_back(&op->getRegion(0).front());
    });
    for (Block *block : blocks) {
      Operation *op = block->empty() ? nullptr : &block->front();
      while (op) {
        if (auto recv = dyn_cast<RecvOp>(op))
          op = fuseAt(recv);
        else if (auto copy = dyn_cast<CopyOp>(op))
          op = fuseAt(copy);
        else
          op = op->getNextNode();
      }
    }
  }
};

} // namespace
