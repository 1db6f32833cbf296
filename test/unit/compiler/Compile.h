//===- Compile.h - ccl text to verified schedules and CUDA, for tests -----===//

#ifndef CCOPT_TEST_UNIT_COMPILER_COMPILE_H
#define CCOPT_TEST_UNIT_COMPILER_COMPILE_H

#include "codegen/CudaEmitter.h"
#include "passes/Collectives.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ccopt::test {

/// The algorithms of `kind` that build without a machine: all but the
/// node-aware ones, the relays, the rings and chains by socket (built from
/// a machine's links) and NVLS (a machine's switch).
inline std::vector<llvm::StringRef> algorithmsWithoutMachine(mlir::ccl::CollectiveKind kind) {
  std::vector<llvm::StringRef> algorithms;
  for (llvm::StringRef algorithm : algorithmsFor(kind))
    if (!algorithm.starts_with("hierarchical") && !algorithm.ends_with("_sockets") &&
        algorithm != "relay" && algorithm != "nvls")
      algorithms.push_back(algorithm);
  return algorithms;
}

/// A compiled module and its emitted CUDA; `error` holds diagnostics when
/// anything failed.
struct Compiled {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string cuda;
  std::string error;
};

inline Compiled compile(mlir::MLIRContext &context, const std::string &text,
                        const PipelineOptions &options) {
  Compiled out;
  llvm::raw_string_ostream errors(out.error);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  out.module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!out.module)
    return out;
  mlir::PassManager pm(&context);
  buildDefaultPipeline(pm, options);
  if (mlir::failed(pm.run(*out.module))) {
    out.module = nullptr;
    return out;
  }
  llvm::raw_string_ostream cuda(out.cuda);
  if (mlir::failed(emitCuda(*out.module, cuda)))
    out.module = nullptr;
  return out;
}

inline void loadDialects(mlir::MLIRContext &context) {
  context.loadDialect<mlir::ccl::CclDialect, mlir::sched::SchedDialect>();
}

} // namespace ccopt::test

#endif
