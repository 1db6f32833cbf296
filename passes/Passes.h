//===- Passes.h - ccopt passes ------------------------------------*- C++ -*-===//

#ifndef CCOPT_PASSES_PASSES_H
#define CCOPT_PASSES_PASSES_H

#include "dialect/Ccl/CclDialect.h"
#include "dialect/Sched/SchedDialect.h"

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
  int nodes = 1;
  int64_t chunks = 1;
  int64_t channels = 1;
  bool lower = true;
};
void buildDefaultPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

} // namespace ccopt

#endif
