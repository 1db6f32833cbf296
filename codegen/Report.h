//===- Report.h - predicted performance, nccl-tests style ---------*- C++ -*-===//
//
// For every lowered collective: the simulated time of ccopt's schedule, of
// the NCCL baseline on the same machine, and the lower bound, as an
// nccl-tests-like table or as JSON (schema in README.md), optionally swept
// over power-of-two sizes. Also the Chrome trace of the simulated run.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_CODEGEN_REPORT_H
#define CCOPT_CODEGEN_REPORT_H

#include "passes/Passes.h"
#include "topology/Machine.h"

#include "mlir/IR/BuiltinOps.h"

namespace ccopt {

struct ReportOptions {
  const topo::Machine *machine = nullptr;
  /// How collectives are lowered (sweeps lower again at every size).
  PipelineOptions pipeline;
  bool json = false;
  /// Sweep every collective (but barriers) over power-of-two sizes [first,
  /// second] bytes, nccl-tests' size: the larger of input and output.
  std::optional<std::pair<int64_t, int64_t>> sweep;
};

mlir::LogicalResult emitReport(mlir::ModuleOp module, const ReportOptions &options,
                               llvm::raw_ostream &os);

mlir::LogicalResult emitTrace(mlir::ModuleOp module, const topo::Machine &machine,
                              llvm::raw_ostream &os);

} // namespace ccopt

#endif
