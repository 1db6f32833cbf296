//===- AssignWorld.cpp - ccl-assign-world ---------------------------------===//

#include "passes/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace ccopt {
#define GEN_PASS_DEF_CCLASSIGNWORLD
#include "passes/Passes.h.inc"
} // namespace ccopt

using namespace mlir;

namespace {

struct AssignWorld : ccopt::impl::CclAssignWorldBase<AssignWorld> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<ccopt::topo::Machine> machine;
    auto loaded = ccopt::machineFromOptions(getOperation(), topo, topoFile, nodes);
    if (failed(loaded))
      return signalPassFailure();
    machine = std::move(*loaded);
    getOperation().walk([&](ccl::ProgramOp program) {
      if (program.getWorld())
        return; // machineFromOptions checked that it fits
      if (!machine) {
        program.emitError("the world size is unknown: give a machine (--topo) "
                          "or write world(N) on the program");
        return signalPassFailure();
      }
      program.setWorld(machine->ranks());
    });
  }
};

} // namespace
