//===- CudaEmitter.h - sched programs to CUDA C++ -----------------*- C++ -*-===//
//
// Prints every sched.program of a module as a CUDA kernel written against
// runtime/include/ccopt/device.h. The same text compiles with NVRTC for a GPU
// and with the host compiler for the host backend.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_CODEGEN_CUDAEMITTER_H
#define CCOPT_CODEGEN_CUDAEMITTER_H

#include "dialect/Sched/SchedDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace ccopt {

/// Emits the kernels of all sched.programs in `module`.
mlir::LogicalResult emitCuda(mlir::ModuleOp module, llvm::raw_ostream &os);

/// The C identifier of `program`'s kernel.
std::string kernelName(mlir::sched::ProgramOp program);

} // namespace ccopt

#endif
