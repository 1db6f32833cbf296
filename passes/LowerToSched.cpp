//===- LowerToSched.cpp - ccl-lower-to-sched ------------------------------===//
//
// Each collective becomes a sched.program next to its ccl.program, named on
// the collective. all_reduce lowers to a ring (Algorithms.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Algorithms.h"
#include "passes/NcclBaseline.h"
#include "topology/Rings.h"

#include "llvm/ADT/Sequence.h"

#include "mlir/IR/Builders.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLLOWERTOSCHED
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;
using namespace mlir::sched;

namespace {

struct LowerToSched : ccopt::impl::CclLowerToSchedBase<LowerToSched> {
  using Base::Base;
  std::optional<ccopt::topo::Machine> machine;

  void runOnOperation() override {
    if (chunks < 0 || channels < 0) {
      getOperation().emitError("chunks and channels must not be negative");
      return signalPassFailure();
    }
    auto loaded = ccopt::machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    machine = std::move(*loaded);
    getOperation().walk([&](ccl::ProgramOp program) {
      int index = 0;
      for (Operation &op : llvm::make_early_inc_range(program.getBody().front())) {
        if (isa<ccl::GroupOp, ccl::BufferOp>(op))
          continue;
        if (op.hasAttr("schedule")) {
          ++index;
          continue;
        }
        auto allReduce = dyn_cast<ccl::AllReduceOp>(op);
        if (!allReduce) {
          op.emitError("lowering ") << op.getName()
                                    << " is not supported yet (only ccl.all_reduce)";
          return signalPassFailure();
        }
        lowerAllReduce(program, allReduce, index++);
      }
    });
  }

  void lowerAllReduce(ccl::ProgramOp program, ccl::AllReduceOp op, int index) {
    auto n = ccl::participantCount(op, op.getGroupAttr());
    if (!n) {
      op.emitError("the number of ranks is unknown: run ccl-assign-world first");
      return signalPassFailure();
    }
    auto type = cast<ccl::BufferType>(op.getInput().getType());
    ccopt::AllReduceShape shape{*n, type.getCount(), type.getElementType(),
                                op.getOp(), op.getInput() == op.getOutput(), {}};
    // World ranks of the participants; schedule rank i runs on ranks[i].
    std::vector<int> ranks;
    if (FlatSymbolRefAttr group = op.getGroupAttr())
      llvm::append_range(ranks, cast<ccl::GroupOp>(
                                    SymbolTable::lookupSymbolIn(program, group))
                                    .getRanks());
    else
      for (int r = 0; r < *n; ++r)
        ranks.push_back(r);
    if (!llvm::equal(ranks, llvm::seq<int>(0, *n)))
      llvm::append_range(shape.rankMap, ranks);
    OpBuilder b(program->getContext());
    b.setInsertionPointAfter(program);
    std::string name = (program.getSymName() + "_all_reduce_" + Twine(index)).str();
    // Automatic: NCCL's channel count on the machine, but no channel with
    // less than 64 KiB per ring part (more would only add steps); pieces of
    // ~512 KiB (NCCL's Simple step) so that the ring pipelines.
    int64_t ringPartBytes = type.getSizeInBytes() / *n;
    int64_t numChannels =
        channels ? channels
                 : std::clamp<int64_t>(ringPartBytes / (64 << 10), 1,
                                       machine ? ccopt::ncclChannels(*machine) : 1);
    int64_t pieceBytes = 512 << 10;
    int64_t perPart = ringPartBytes / numChannels;
    int64_t numChunks = chunks ? chunks : std::max<int64_t>(1, (perPart + pieceBytes - 1) / pieceBytes);
    ccopt::RingOrders orders;
    if (machine)
      orders = ccopt::toScheduleRanks(
          ccopt::topo::ringOrders(*machine, ranks, numChannels), ranks);
    ccopt::buildRingAllReduce(b, op.getLoc(), name, shape, numChunks,
                              numChannels, orders);
    op->setAttr("schedule", FlatSymbolRefAttr::get(b.getContext(), name));
  }
};

} // namespace
