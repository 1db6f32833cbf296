//===- Pipeline.cpp - the default ccopt pipeline --------------------------===//

#include "passes/Passes.h"
#include "topology/TopologyFile.h"

#include "mlir/Pass/PassManager.h"

void ccopt::buildDefaultPipeline(mlir::OpPassManager &pm,
                                       const PipelineOptions &options) {
  pm.addPass(createCclAssignWorld({options.topo, options.topoFile, options.nodes}));
  if (!options.compress.empty())
    pm.addPass(createCclCompressWire({options.compress}));
  if (!options.profile.empty())
    pm.addPass(createCclPlanOverlap(
        {options.profile, options.topo, options.topoFile, options.nodes}));
  if (options.bucketCapMb > 0)
    pm.addPass(createCclFuseBuckets({options.bucketCapMb}));
  if (!options.lower)
    return;
  // With a machine and no fixed chunking, simulation picks the algorithm.
  bool machine = !options.topo.empty() || !options.topoFile.empty();
  if (machine && options.chunks == 0 && options.channels == 0 &&
      options.algorithm.empty())
    pm.addPass(createCclSelectAlgorithm(
        {options.topo, options.topoFile, options.nodes}));
  pm.addPass(createCclLowerToSched(
      {options.chunks, options.channels, options.topo, options.topoFile,
       options.nodes, options.algorithm}));
  // Hand-written schedules in the input are checked against the machine too.
  SchedVerifyOptions verify;
  verify.topo = options.topo;
  verify.topoFile = options.topoFile;
  verify.nodes = options.nodes;
  pm.addPass(createSchedVerify(verify));
}

mlir::FailureOr<std::optional<ccopt::topo::Machine>>
ccopt::machineFromOptions(mlir::Operation *anchor, llvm::StringRef topo,
                          llvm::StringRef topoFile, int nodes) {
  if (topo.empty() && topoFile.empty())
    return std::optional<topo::Machine>();
  auto loaded = topo::loadMachine(topo, topoFile, nodes);
  if (!loaded) {
    anchor->emitError(llvm::toString(loaded.takeError()));
    return mlir::failure();
  }
  // Every pass that takes a machine places ranks on it.
  bool fits = true;
  anchor->walk([&](mlir::ccl::ProgramOp program) {
    auto world = program.getWorld();
    if (world && static_cast<int64_t>(*world) > loaded->ranks()) {
      program.emitError("program world of ")
          << *world << " ranks does not fit on " << loaded->name << " x " << loaded->nodes
          << " (" << loaded->ranks() << " GPUs)";
      fits = false;
    }
  });
  if (!fits)
    return mlir::failure();
  return std::optional<topo::Machine>(std::move(*loaded));
}
