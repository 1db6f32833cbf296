//===- LowerToSched.cpp - ccl-lower-to-sched ------------------------------===//
//
// Each collective becomes a sched.program next to its ccl.program, named on
// the collective. all_reduce lowers to a ring (Algorithms.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Algorithms.h"
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
    if (chunks < 1 || channels < 1) {
      getOperation().emitError("chunks and channels must be at least 1");
      return signalPassFailure();
    }
    if (!topo.empty()) {
      machine = ccopt::topo::lookupPreset(topo, nodes);
      if (!machine) {
        getOperation().emitError("unknown machine '") << topo << "'";
        return signalPassFailure();
      }
    }
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
    std::vector<int> ranks;
    if (FlatSymbolRefAttr group = op.getGroupAttr())
      llvm::append_range(ranks, cast<ccl::GroupOp>(
                                    SymbolTable::lookupSymbolIn(program, group))
                                    .getRanks());
    else
      for (int r = 0; r < *n; ++r)
        ranks.push_back(r);
    if (machine)
      ranks = ccopt::topo::bestRingOrder(*machine, ranks);
    if (!llvm::equal(ranks, llvm::seq<int>(0, *n)))
      llvm::append_range(shape.rankMap, ranks);
    OpBuilder b(program->getContext());
    b.setInsertionPointAfter(program);
    std::string name = (program.getSymName() + "_all_reduce_" + Twine(index)).str();
    ccopt::buildRingAllReduce(b, op.getLoc(), name, shape, chunks, channels);
    op->setAttr("schedule", FlatSymbolRefAttr::get(b.getContext(), name));
  }
};

} // namespace
