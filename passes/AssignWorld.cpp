//===- AssignWorld.cpp - ccl-assign-world ---------------------------------===//

#include "passes/Passes.h"
#include "topology/TopologyFile.h"

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
    if (!topo.empty() || !topoFile.empty()) {
      auto loaded = ccopt::topo::loadMachine(topo, topoFile, nodes);
      if (!loaded) {
        getOperation().emitError(llvm::toString(loaded.takeError()));
        return signalPassFailure();
      }
      machine = std::move(*loaded);
    }
    getOperation().walk([&](ccl::ProgramOp program) {
      if (auto world = program.getWorld()) {
        if (machine && static_cast<int64_t>(*world) > machine->ranks()) {
          program.emitError("program world of ")
              << *world << " ranks does not fit on " << machine->name << " x "
              << machine->nodes << " (" << machine->ranks() << " GPUs)";
          signalPassFailure();
        }
        return;
      }
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
