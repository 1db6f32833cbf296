//===- Passes.h - ccopt passes ------------------------------------*- C++ -*-===//

#ifndef CCOPT_PASSES_PASSES_H
#define CCOPT_PASSES_PASSES_H

#include "dialect/Ccl/CclDialect.h"
#include "dialect/Sched/SchedDialect.h"
#include "topology/Machine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace ccopt {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// What `ccopt --topo` runs: assign the world, lower, verify.
struct PipelineOptions {
  std::string topo;
  std::string topoFile;
  int nodes = 1;
  int64_t chunks = 0;   ///< 0: automatic
  int64_t channels = 0; ///< 0: automatic
  bool lower = true;
  std::string compress;  ///< f16 | bf16: every f32 reduction on that wire
  double bucketCapMb = 0; ///< > 0: fuse small all_reduces up to this size
  std::string profile;   ///< compute profile: plan overlap with it
  /// all_reduce algorithm (algorithmsFor); empty: chosen.
  std::string algorithm = "";
};
void buildDefaultPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// The machine pass options name (none when both are empty); on a bad name
/// or file, or a ccl.program under `anchor` whose world outgrows it, an
/// error and failure.
mlir::FailureOr<std::optional<topo::Machine>>
machineFromOptions(mlir::Operation *anchor, llvm::StringRef topo,
                   llvm::StringRef topoFile, int nodes);

} // namespace ccopt

#endif
