//===- Pipeline.cpp - the default ccopt pipeline --------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"

void ccopt::buildDefaultPipeline(mlir::OpPassManager &pm,
                                       const PipelineOptions &options) {
  pm.addPass(createCclAssignWorld({options.topo, options.topoFile, options.nodes}));
  if (!options.lower)
    return;
  pm.addPass(createCclLowerToSched(
      {options.chunks, options.channels, options.topo, options.topoFile,
       options.nodes}));
  pm.addPass(createSchedVerify());
}
